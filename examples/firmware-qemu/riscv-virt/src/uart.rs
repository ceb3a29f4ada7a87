//! The virt board's UART: a 16550 at `0x1000_0000` (PLIC source 10), as `firmware_common::uart`'s
//! [`Port`]: the async halves, the receive ring and the wakers are the common module's.

use core::ptr::{read_volatile, write_volatile};
use core::sync::atomic::{AtomicBool, Ordering};

use firmware_common::uart::{self, Port, Shared};

const UART0: usize = 0x1000_0000;
const RBR_THR: usize = 0; // DLL with DLAB
const IER: usize = 1; // DLM with DLAB
const LCR: usize = 3;
const MCR: usize = 4;
const LSR: usize = 5;

const IER_RX: u8 = 1 << 0;
const IER_TX: u8 = 1 << 1;
const LSR_DR: u8 = 1 << 0;
/// Parity, framing error, break.
const LSR_ERRORS: u8 = 0b1110;
const LSR_THRE: u8 = 1 << 5;
const LSR_TEMT: u8 = 1 << 6;

/// The UART's interrupt source at the PLIC.
pub const IRQ: u32 = 10;

fn read_reg(offset: usize) -> u8 {
    // SAFETY: a byte register of the UART, which this module owns.
    unsafe { read_volatile((UART0 + offset) as *const u8) }
}

fn write_reg(offset: usize, value: u8) {
    // SAFETY: as above.
    unsafe { write_volatile((UART0 + offset) as *mut u8, value) }
}

static SHARED: Shared = Shared::new();
static TAKEN: AtomicBool = AtomicBool::new(false);

/// The UART's registers.
pub struct Uart;

impl Port for Uart {
    fn shared() -> &'static Shared {
        &SHARED
    }

    fn pump_rx() -> bool {
        let mut moved = false;
        loop {
            let lsr = read_reg(LSR);
            if lsr & LSR_DR == 0 {
                break;
            }
            if SHARED.ring.is_full() {
                write_reg(IER, read_reg(IER) & !IER_RX);
                return moved;
            }
            let byte = read_reg(RBR_THR);
            if lsr & LSR_ERRORS == 0 {
                SHARED.ring.push(byte);
                moved = true;
            }
        }
        write_reg(IER, read_reg(IER) | IER_RX);
        moved
    }

    fn transmit(buf: &[u8]) -> usize {
        let mut n = 0;
        while n < buf.len() && read_reg(LSR) & LSR_THRE != 0 {
            write_reg(RBR_THR, buf[n]);
            n += 1;
        }
        n
    }

    fn want_tx_interrupt() {
        write_reg(IER, read_reg(IER) | IER_TX);
    }

    fn flush() {
        while read_reg(LSR) & LSR_TEMT == 0 {}
    }
}

/// The UART's interrupt handler (claimed from the PLIC).
pub fn on_interrupt() {
    if Uart::pump_rx() {
        SHARED.rx_ready();
    }
    if read_reg(IER) & IER_TX != 0 && read_reg(LSR) & LSR_THRE != 0 {
        write_reg(IER, read_reg(IER) & !IER_TX);
        SHARED.tx_ready();
    }
}

/// Sets up the UART (8N1; QEMU ignores the rate) and its interrupt enables; the PLIC routes it.
/// `None` if called twice.
pub fn take() -> Option<(uart::UartRx<Uart>, uart::UartTx<Uart>)> {
    if TAKEN.swap(true, Ordering::AcqRel) {
        return None;
    }
    write_reg(IER, 0);
    // 115200 baud from the 3.6864 MHz reference: divisor 2.
    write_reg(LCR, 0x80);
    write_reg(RBR_THR, 2);
    write_reg(IER, 0);
    write_reg(LCR, 0b11); // 8 bits, no parity, one stop bit
    // The FIFOs stay off (FCR untouched): QEMU empties them when they are switched on, which would
    // lose what the host sent before this point. The handler empties the holding register.
    write_reg(MCR, 0b1011); // DTR, RTS, OUT2 (the interrupt line on a PC)
    riscv::interrupt::free(Uart::pump_rx); // whatever arrived before now; enables RX
    Some(uart::split())
}
