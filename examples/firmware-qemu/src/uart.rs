//! UART0 of the LM3S6965: a PL011 at `0x4000_C000` (IRQ 5), as `firmware_common::uart`'s
//! [`Port`]: the async halves, the receive ring and the wakers are the common module's.

use core::ptr::{read_volatile, write_volatile};
use core::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use cortex_m::interrupt;
use cortex_m::peripheral::NVIC;
use firmware_common::uart::{self, Port, Shared};

const UART0: usize = 0x4000_C000;
const DR: usize = 0x000;
const FR: usize = 0x018;
const IBRD: usize = 0x024;
const FBRD: usize = 0x028;
const LCRH: usize = 0x02C;
const CR: usize = 0x030;
const IMSC: usize = 0x038;
const ICR: usize = 0x044;

const FR_BUSY: u32 = 1 << 3;
const FR_RXFE: u32 = 1 << 4;
const FR_TXFF: u32 = 1 << 5;
const INT_RX: u32 = 1 << 4;
const INT_TX: u32 = 1 << 5;
const INT_RT: u32 = 1 << 6;
const DR_ERRORS: u32 = 0xF00;

const SYSCTL_RCGC1: usize = 0x400F_E104;
const SYSCTL_RCGC2: usize = 0x400F_E108;
const GPIOA: usize = 0x4000_4000;
const GPIO_AFSEL: usize = 0x420;
const GPIO_DEN: usize = 0x51C;

/// UART0's interrupt number.
pub const IRQ: u16 = 5;

fn reg(offset: usize) -> *mut u32 {
    (UART0 + offset) as *mut u32
}

fn read_reg(offset: usize) -> u32 {
    // SAFETY: an aligned PL011 register of UART0, which this module owns.
    unsafe { read_volatile(reg(offset)) }
}

fn write_reg(offset: usize, value: u32) {
    // SAFETY: as above.
    unsafe { write_volatile(reg(offset), value) }
}

static SHARED: Shared = Shared::new();
static TAKEN: AtomicBool = AtomicBool::new(false);
/// Bytes received with a framing, parity, break or overrun error (dropped).
pub static LINE_ERRORS: AtomicU32 = AtomicU32::new(0);

/// UART0's registers.
pub struct Uart0;

impl Port for Uart0 {
    fn shared() -> &'static Shared {
        &SHARED
    }

    fn pump_rx() -> bool {
        let mut moved = false;
        while read_reg(FR) & FR_RXFE == 0 {
            if SHARED.ring.is_full() {
                write_reg(IMSC, read_reg(IMSC) & !(INT_RX | INT_RT));
                return moved;
            }
            let data = read_reg(DR);
            if data & DR_ERRORS != 0 {
                LINE_ERRORS.fetch_add(1, Ordering::Relaxed);
                continue;
            }
            SHARED.ring.push(data as u8);
            moved = true;
        }
        write_reg(IMSC, read_reg(IMSC) | INT_RX | INT_RT);
        moved
    }

    fn transmit(buf: &[u8]) -> usize {
        let mut n = 0;
        while n < buf.len() && read_reg(FR) & FR_TXFF == 0 {
            write_reg(DR, u32::from(buf[n]));
            n += 1;
        }
        n
    }

    fn want_tx_interrupt() {
        write_reg(IMSC, read_reg(IMSC) | INT_TX);
    }

    fn flush() {
        // At most one character in flight (87 µs at 115200 baud): not worth an interrupt.
        while read_reg(FR) & FR_BUSY != 0 {}
    }
}

/// UART0's interrupt handler (dispatched from `DefaultHandler`).
pub fn on_interrupt() {
    // Acknowledged before the receive register is drained: a byte that arrives after the drain
    // raises the interrupt again. Acknowledged after, it would be cleared with that byte unread,
    // and with no wake for the reader the byte would wait for the next one.
    write_reg(ICR, INT_RX | INT_RT);
    if Uart0::pump_rx() {
        SHARED.rx_ready();
    }
    if read_reg(IMSC) & INT_TX != 0 && read_reg(FR) & FR_TXFF == 0 {
        write_reg(IMSC, read_reg(IMSC) & !INT_TX);
        write_reg(ICR, INT_TX);
        SHARED.tx_ready();
    }
}

#[derive(Clone, Copy)]
struct Irq(u16);

// SAFETY: 5 is UART0's interrupt number on the LM3S6965.
unsafe impl cortex_m::interrupt::InterruptNumber for Irq {
    fn number(self) -> u16 {
        self.0
    }
}

/// Sets up UART0 (115200 8N1 at the 12 MHz core clock) and its interrupt. `None` if
/// called twice.
pub fn take() -> Option<(uart::UartRx<Uart0>, uart::UartTx<Uart0>)> {
    if TAKEN.swap(true, Ordering::AcqRel) {
        return None;
    }
    // SAFETY: clock gating and pin muxing registers of the System Control and GPIO A blocks.
    unsafe {
        write_volatile(SYSCTL_RCGC1 as *mut u32, read_volatile(SYSCTL_RCGC1 as *const u32) | 1);
        write_volatile(SYSCTL_RCGC2 as *mut u32, read_volatile(SYSCTL_RCGC2 as *const u32) | 1);
        let afsel = (GPIOA + GPIO_AFSEL) as *mut u32;
        write_volatile(afsel, read_volatile(afsel) | 0b11);
        let den = (GPIOA + GPIO_DEN) as *mut u32;
        write_volatile(den, read_volatile(den) | 0b11);
    }
    write_reg(CR, 0);
    // 12 MHz / (16 * 115200) = 6.51: IBRD 6, FBRD round(0.51 * 64) = 33.
    write_reg(IBRD, 6);
    write_reg(FBRD, 33);
    // 8 bits, no parity, one stop bit, FIFOs left disabled (one-byte holding registers). Enabling
    // them would discard what the host sent before this point (QEMU resets the FIFO when FEN
    // changes): a client that writes as soon as the device starts would lose its first byte. The
    // interrupt handler empties the holding register into the ring within a character time.
    write_reg(LCRH, 0b11 << 5);
    write_reg(ICR, 0x7FF);
    write_reg(CR, 1 | 1 << 8 | 1 << 9); // UARTEN, TXE, RXE
    interrupt::free(|_| Uart0::pump_rx()); // whatever arrived before now; unmasks the receive interrupts
    // SAFETY: the handler only touches this module's statics, which are interrupt-safe.
    unsafe { NVIC::unmask(Irq(IRQ)) };
    Some(uart::split())
}
