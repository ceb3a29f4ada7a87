//! The nRF51822's UART at `0x4000_2000` (IRQ 2), on the micro:bit's USB serial pins (TX P0.24,
//! RX P0.25), as `firmware_common::uart`'s [`Port`]: the async halves, the receive ring and the
//! wakers are the common module's.
//!
//! The nRF51 UART signals with events: `RXDRDY` when a byte can be read from `RXD` (the receiver
//! keeps up to six), `TXDRDY` when the byte written to `TXD` has left; an event register stays set
//! until written 0, and raises the interrupt while its `INTEN` bit is set.

use core::ptr::{read_volatile, write_volatile};
use core::sync::atomic::{AtomicBool, Ordering};

use cortex_m::interrupt;
use cortex_m::peripheral::NVIC;
use firmware_common::uart::{self, Port, Shared};

const UART0: usize = 0x4000_2000;
const STARTRX: usize = 0x000;
const STARTTX: usize = 0x008;
const EVENTS_RXDRDY: usize = 0x108;
const EVENTS_TXDRDY: usize = 0x11C;
const INTENSET: usize = 0x304;
const INTENCLR: usize = 0x308;
const ENABLE: usize = 0x500;
const PSELTXD: usize = 0x50C;
const PSELRXD: usize = 0x514;
const RXD: usize = 0x518;
const TXD: usize = 0x51C;
const BAUDRATE: usize = 0x524;
const CONFIG: usize = 0x56C;

const INT_RXDRDY: u32 = 1 << 2;
const INT_TXDRDY: u32 = 1 << 7;
const BAUD_115200: u32 = 0x01D7_E000;
const PIN_TX: u32 = 24;
const PIN_RX: u32 = 25;

/// The UART's interrupt number.
pub const IRQ: u16 = 2;

fn read_reg(offset: usize) -> u32 {
    // SAFETY: an aligned register of the UART, which this module owns.
    unsafe { read_volatile((UART0 + offset) as *const u32) }
}

fn write_reg(offset: usize, value: u32) {
    // SAFETY: as above.
    unsafe { write_volatile((UART0 + offset) as *mut u32, value) }
}

static SHARED: Shared = Shared::new();
/// A byte was written to `TXD` whose `TXDRDY` has not been taken yet. Only the task stores it.
static TX_BUSY: AtomicBool = AtomicBool::new(false);
static TAKEN: AtomicBool = AtomicBool::new(false);

/// The UART's registers.
pub struct Uart;

impl Port for Uart {
    fn shared() -> &'static Shared {
        &SHARED
    }

    fn pump_rx() -> bool {
        let mut moved = false;
        while read_reg(EVENTS_RXDRDY) != 0 {
            if SHARED.ring.is_full() {
                write_reg(INTENCLR, INT_RXDRDY);
                return moved;
            }
            // The event first, then the byte: reading RXD raises it again if more are waiting.
            write_reg(EVENTS_RXDRDY, 0);
            SHARED.ring.push(read_reg(RXD) as u8);
            moved = true;
        }
        write_reg(INTENSET, INT_RXDRDY);
        moved
    }

    fn transmit(buf: &[u8]) -> usize {
        let mut n = 0;
        while n < buf.len() {
            if TX_BUSY.load(Ordering::Relaxed) {
                if read_reg(EVENTS_TXDRDY) == 0 {
                    break;
                }
                write_reg(EVENTS_TXDRDY, 0);
            }
            write_reg(TXD, u32::from(buf[n]));
            TX_BUSY.store(true, Ordering::Relaxed);
            n += 1;
        }
        n
    }

    fn want_tx_interrupt() {
        write_reg(INTENSET, INT_TXDRDY);
    }

    fn flush() {
        while TX_BUSY.load(Ordering::Relaxed) && read_reg(EVENTS_TXDRDY) == 0 {
            core::hint::spin_loop();
        }
    }
}

/// The UART's interrupt handler (dispatched from `DefaultHandler`).
pub fn on_interrupt() {
    if Uart::pump_rx() {
        SHARED.rx_ready();
    }
    // The task clears TXDRDY when it writes the next byte; here only the interrupt is masked.
    if read_reg(INTENSET) & INT_TXDRDY != 0 && read_reg(EVENTS_TXDRDY) != 0 {
        write_reg(INTENCLR, INT_TXDRDY);
        SHARED.tx_ready();
    }
}

#[derive(Clone, Copy)]
struct Irq(u16);

// SAFETY: 2 is UART0's interrupt number on the nRF51.
unsafe impl cortex_m::interrupt::InterruptNumber for Irq {
    fn number(self) -> u16 {
        self.0
    }
}

/// Sets up the UART (115200 8N1, no flow control) and its interrupt. `None` if called twice.
pub fn take() -> Option<(uart::UartRx<Uart>, uart::UartTx<Uart>)> {
    // No swap on ARMv6-M: a load and a store with interrupts masked.
    let taken = interrupt::free(|_| {
        let taken = TAKEN.load(Ordering::Relaxed);
        TAKEN.store(true, Ordering::Relaxed);
        taken
    });
    if taken {
        return None;
    }
    write_reg(PSELTXD, PIN_TX);
    write_reg(PSELRXD, PIN_RX);
    write_reg(BAUDRATE, BAUD_115200);
    write_reg(CONFIG, 0);
    write_reg(ENABLE, 4);
    write_reg(STARTTX, 1);
    // Until the receiver starts, QEMU keeps what the host sent on its side of the serial line.
    write_reg(STARTRX, 1);
    interrupt::free(|_| Uart::pump_rx()); // whatever arrived before now; unmasks RXDRDY
    // SAFETY: the handler only touches this module's statics, which are interrupt-safe.
    unsafe { NVIC::unmask(Irq(IRQ)) };
    Some(uart::split())
}
