//! The byte-stream contract every adapter drives.
//!
//! A [`Connection`] is one endpoint (a server today, a client later) bound to one byte stream:
//! stdio, a UART, a USB CDC-ACM port, a TCP socket. Adapters (tokio, async-std, embedded) are written
//! once against this trait and hold no protocol logic.
//!
//! # Run-loop contract
//!
//! 1. Read from the stream into [`Connection::rx_spare`] and report the count with
//!    [`Connection::rx_commit`]; on end of stream call [`Connection::handle_eof`] once.
//!    `rx_spare` may be empty: the receive buffer is full of frames the engine cannot process until
//!    the transmit buffer drains (back-pressure). Then do not read; write first.
//! 2. While [`Connection::poll_transmit`] returns bytes, write them and report the count written with
//!    [`Connection::transmit_done`] (partial writes are fine). Writing may let the engine process
//!    frames it held back, which can produce more bytes: keep draining until it returns `None`.
//! 3. Sleep until the stream is readable, the transmit side is writable (if bytes are pending), or
//!    [`Connection::poll_timeout`] passes; in that last case call [`Connection::handle_timeout`].
//! 4. Stop when [`Connection::is_finished`] returns `true` (after EOF, once everything is transmitted).
//!
//! Every method does a bounded amount of work: at most the frames that fit in the receive buffer.

use crate::time::Instant;

/// An endpoint driven by a byte stream. See the module docs for the run-loop contract.
pub trait Connection {
    /// Free space at the end of the receive buffer, to read into directly.
    ///
    /// Empty when the engine holds back input until the transmit buffer drains.
    fn rx_spare(&mut self) -> &mut [u8];

    /// Reports that the first `n` bytes of [`Connection::rx_spare`] were filled, and processes every
    /// complete frame that the transmit buffer has room to answer.
    fn rx_commit(&mut self, now: Instant, n: usize);

    /// Reports the end of the input stream. Processes what is left; a partial last frame is reported
    /// and dropped.
    fn handle_eof(&mut self, now: Instant);

    /// The next bytes to write, or `None` when nothing is pending.
    #[must_use]
    fn poll_transmit(&self) -> Option<&[u8]>;

    /// Reports that the first `n` bytes of the last [`Connection::poll_transmit`] were written.
    /// May process held-back input.
    fn transmit_done(&mut self, now: Instant, n: usize);

    /// The instant at which [`Connection::handle_timeout`] should next be called, if any.
    #[must_use]
    fn poll_timeout(&self) -> Option<Instant>;

    /// Runs whatever was due at `now`.
    fn handle_timeout(&mut self, now: Instant);

    /// `true` once the input has ended and every pending byte has been transmitted.
    #[must_use]
    fn is_finished(&self) -> bool;
}
