//! UART0 of the LM3S6965: a PL011 at `0x4000_C000` (IRQ 5), as `embedded_io_async` `Read` and `Write`.
//!
//! Receiving is interrupt-driven into a ring buffer, like a HAL's `BufferedUart`: the interrupt
//! handler moves bytes from the receive register into the ring; `read` copies out of the ring.
//! When the ring is full the receive interrupt is masked and bytes wait in the UART (under QEMU,
//! on the host side of the serial line): nothing is dropped. `read` is cancel-safe: bytes leave the
//! ring only in the poll that returns them.
//!
//! Transmitting fills the transmit register directly; when it is full, `write` sleeps until the
//! transmit interrupt says there is room.

use core::cell::UnsafeCell;
use core::convert::Infallible;
use core::future::poll_fn;
use core::ptr::{read_volatile, write_volatile};
use core::sync::atomic::{AtomicBool, AtomicU32, AtomicUsize, Ordering};
use core::task::Poll;

use cortex_m::interrupt;
use cortex_m::peripheral::NVIC;
use embedded_io_async::{ErrorType, Read, Write};

use crate::waker::WakerSlot;

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

/// Received bytes not yet read. A power of two.
pub const RX_RING_BYTES: usize = 128;

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

/// Single-producer (interrupt handler) single-consumer (task) byte ring.
struct Ring {
    bytes: UnsafeCell<[u8; RX_RING_BYTES]>,
    /// Total bytes pushed (wrapping); only the producer stores it.
    head: AtomicUsize,
    /// Total bytes popped (wrapping); only the consumer stores it.
    tail: AtomicUsize,
}

// SAFETY: one producer and one consumer touch disjoint slots, ordered by `head`/`tail`.
unsafe impl Sync for Ring {}

impl Ring {
    fn is_full(&self) -> bool {
        self.head.load(Ordering::Relaxed).wrapping_sub(self.tail.load(Ordering::Acquire)) == RX_RING_BYTES
    }

    /// Producer only (inside a critical section).
    fn push(&self, byte: u8) {
        let head = self.head.load(Ordering::Relaxed);
        // SAFETY: the slot at `head` is not readable by the consumer until `head` moves past it.
        unsafe { (*self.bytes.get())[head % RX_RING_BYTES] = byte };
        self.head.store(head.wrapping_add(1), Ordering::Release);
    }

    /// Consumer only: copies out up to `out.len()` bytes.
    fn pop_into(&self, out: &mut [u8]) -> usize {
        let tail = self.tail.load(Ordering::Relaxed);
        let available = self.head.load(Ordering::Acquire).wrapping_sub(tail);
        let n = available.min(out.len());
        for (i, slot) in out[..n].iter_mut().enumerate() {
            // SAFETY: slots between `tail` and `head` were published by the producer.
            *slot = unsafe { (*self.bytes.get())[tail.wrapping_add(i) % RX_RING_BYTES] };
        }
        self.tail.store(tail.wrapping_add(n), Ordering::Release);
        n
    }
}

static RX: Ring =
    Ring { bytes: UnsafeCell::new([0; RX_RING_BYTES]), head: AtomicUsize::new(0), tail: AtomicUsize::new(0) };
static RX_WAKER: WakerSlot = WakerSlot::new();
static TX_WAKER: WakerSlot = WakerSlot::new();
static TAKEN: AtomicBool = AtomicBool::new(false);
/// Bytes received with a framing, parity, break or overrun error (dropped).
pub static LINE_ERRORS: AtomicU32 = AtomicU32::new(0);

/// Moves received bytes from the UART into the ring while it has room, then masks the receive
/// interrupts if bytes had to stay in the UART (the ring is full) and unmasks them otherwise.
/// Call with interrupts disabled (or from the handler).
fn pump_rx() -> bool {
    let mut moved = false;
    while read_reg(FR) & FR_RXFE == 0 {
        if RX.is_full() {
            write_reg(IMSC, read_reg(IMSC) & !(INT_RX | INT_RT));
            return moved;
        }
        let data = read_reg(DR);
        if data & DR_ERRORS != 0 {
            LINE_ERRORS.fetch_add(1, Ordering::Relaxed);
            continue;
        }
        RX.push(data as u8);
        moved = true;
    }
    write_reg(IMSC, read_reg(IMSC) | INT_RX | INT_RT);
    moved
}

/// UART0's interrupt handler (dispatched from `DefaultHandler`).
pub fn on_interrupt() {
    if pump_rx() {
        RX_WAKER.wake();
    }
    write_reg(ICR, INT_RX | INT_RT);
    if read_reg(IMSC) & INT_TX != 0 && read_reg(FR) & FR_TXFF == 0 {
        write_reg(IMSC, read_reg(IMSC) & !INT_TX);
        write_reg(ICR, INT_TX);
        TX_WAKER.wake();
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

/// The receive half.
pub struct UartRx(());
/// The transmit half.
pub struct UartTx(());

/// Sets up UART0 (115200 8N1 at the 12 MHz core clock) and its interrupt. `None` if
/// called twice.
pub fn take() -> Option<(UartRx, UartTx)> {
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
    interrupt::free(|_| pump_rx()); // whatever arrived before now; unmasks the receive interrupts
    // SAFETY: the handler only touches this module's statics, which are interrupt-safe.
    unsafe { NVIC::unmask(Irq(IRQ)) };
    Some((UartRx(()), UartTx(())))
}

impl ErrorType for UartRx {
    type Error = Infallible;
}

impl Read for UartRx {
    async fn read(&mut self, buf: &mut [u8]) -> Result<usize, Infallible> {
        if buf.is_empty() {
            return Ok(0);
        }
        poll_fn(|cx| {
            let n = RX.pop_into(buf);
            // Room was made (or the ring is empty): refill from the UART and unmask.
            interrupt::free(|_| pump_rx());
            if n > 0 {
                return Poll::Ready(Ok(n));
            }
            RX_WAKER.register(cx.waker());
            match RX.pop_into(buf) {
                0 => Poll::Pending,
                n => Poll::Ready(Ok(n)),
            }
        })
        .await
    }
}

impl ErrorType for UartTx {
    type Error = Infallible;
}

impl Write for UartTx {
    async fn write(&mut self, buf: &[u8]) -> Result<usize, Infallible> {
        if buf.is_empty() {
            return Ok(0);
        }
        poll_fn(|cx| {
            let mut n = 0;
            while n < buf.len() && read_reg(FR) & FR_TXFF == 0 {
                write_reg(DR, u32::from(buf[n]));
                n += 1;
            }
            if n > 0 {
                return Poll::Ready(Ok(n));
            }
            TX_WAKER.register(cx.waker());
            interrupt::free(|_| write_reg(IMSC, read_reg(IMSC) | INT_TX));
            Poll::Pending
        })
        .await
    }

    async fn flush(&mut self) -> Result<(), Infallible> {
        // At most one character in flight (87 µs at 115200 baud): not worth an interrupt.
        while read_reg(FR) & FR_BUSY != 0 {}
        Ok(())
    }
}
