//! A board's UART as `embedded_io_async` `Read` and `Write`, like a HAL's `BufferedUart`: the board
//! brings its registers ([`Port`]), this module the ring, the wakers and the async halves.
//!
//! Receiving is interrupt-driven into a ring buffer: the interrupt handler moves bytes from the
//! receive register into the ring ([`Port::pump_rx`]); `read` copies out of the ring. When the ring
//! is full the receive interrupt is masked and bytes wait in the UART (under QEMU, on the host side
//! of the serial line): nothing is dropped. `read` is cancel-safe: bytes leave the ring only in the
//! poll that returns them.
//!
//! Transmitting fills the transmit register directly; when it takes no more, `write` sleeps until
//! the transmit interrupt says there is room ([`Port::want_tx_interrupt`], then the handler calls
//! [`Shared::tx_ready`]).

use core::convert::Infallible;
use core::future::poll_fn;
use core::marker::PhantomData;
use core::task::Poll;

use embedded_io_async::{ErrorType, Read, Write};

use crate::ring::Ring;
use crate::waker::WakerSlot;

/// Received bytes not yet read. A power of two.
pub const RX_RING_BYTES: usize = 128;

/// What the interrupt handler and the task share: a static of the board's UART module.
pub struct Shared {
    pub ring: Ring<RX_RING_BYTES>,
    rx: WakerSlot,
    tx: WakerSlot,
}

impl Shared {
    pub const fn new() -> Self {
        Shared { ring: Ring::new(), rx: WakerSlot::new(), tx: WakerSlot::new() }
    }

    /// The handler moved bytes into the ring: wakes the reader.
    pub fn rx_ready(&self) {
        self.rx.wake();
    }

    /// The transmitter takes a byte again (the handler masked its interrupt): wakes the writer.
    pub fn tx_ready(&self) {
        self.tx.wake();
    }
}

impl Default for Shared {
    fn default() -> Self {
        Self::new()
    }
}

/// A board's UART registers. One UART per type: its functions take no `self`.
pub trait Port: 'static {
    /// The ring and wakers of this UART.
    fn shared() -> &'static Shared;
    /// Moves received bytes into the ring while it has room, then masks the receive interrupt if
    /// bytes had to stay in the UART (the ring is full) and unmasks it otherwise; whether any byte
    /// moved. Called with interrupts disabled (or from the handler).
    fn pump_rx() -> bool;
    /// Puts bytes of `buf` into the transmitter while it takes them; how many.
    fn transmit(buf: &[u8]) -> usize;
    /// Unmasks the interrupt that says the transmitter takes a byte again; its handler masks it
    /// and calls [`Shared::tx_ready`]. Called with interrupts disabled.
    fn want_tx_interrupt();
    /// Waits until the last byte written has left.
    fn flush();
}

/// The receive half.
pub struct UartRx<P>(PhantomData<P>);
/// The transmit half.
pub struct UartTx<P>(PhantomData<P>);

/// The two halves of the board's UART; the board calls this once, from its `take`.
pub fn split<P: Port>() -> (UartRx<P>, UartTx<P>) {
    (UartRx(PhantomData), UartTx(PhantomData))
}

impl<P: Port> ErrorType for UartRx<P> {
    type Error = Infallible;
}

impl<P: Port> Read for UartRx<P> {
    async fn read(&mut self, buf: &mut [u8]) -> Result<usize, Infallible> {
        if buf.is_empty() {
            return Ok(0);
        }
        let shared = P::shared();
        poll_fn(|cx| {
            let n = shared.ring.pop_into(buf);
            // Room was made (or the ring is empty): refill from the UART and unmask.
            critical_section::with(|_| P::pump_rx());
            if n > 0 {
                return Poll::Ready(Ok(n));
            }
            shared.rx.register(cx.waker());
            match shared.ring.pop_into(buf) {
                0 => Poll::Pending,
                n => Poll::Ready(Ok(n)),
            }
        })
        .await
    }
}

impl<P: Port> ErrorType for UartTx<P> {
    type Error = Infallible;
}

impl<P: Port> Write for UartTx<P> {
    async fn write(&mut self, buf: &[u8]) -> Result<usize, Infallible> {
        if buf.is_empty() {
            return Ok(0);
        }
        poll_fn(|cx| {
            let n = P::transmit(buf);
            if n > 0 {
                return Poll::Ready(Ok(n));
            }
            P::shared().tx.register(cx.waker());
            critical_section::with(|_| P::want_tx_interrupt());
            Poll::Pending
        })
        .await
    }

    async fn flush(&mut self) -> Result<(), Infallible> {
        P::flush();
        Ok(())
    }
}
