//! The byte-stream contract every adapter drives.
//!
//! A [`Connection`] is one endpoint (a server or a client) bound to one byte stream:
//! stdio, a UART, a USB CDC-ACM port, a TCP socket. Adapters (tokio, async-std, embedded) are written
//! once against this trait and hold no protocol logic.
//!
//! The run-loop contract (what to call after feeding input, how to drain output and the next
//! timeout, when to stop) is written once, in the [crate docs](crate#the-run-loop). Every method
//! does a bounded amount of work: at most the frames that fit in the receive buffer.

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

    /// Reports that the writer cannot take [`Connection::poll_transmit`]'s bytes yet, and returns
    /// them with [`Connection::rx_spare`], so that the caller can write and read at once: a peer
    /// that sends without reading its answers is still read from, instead of both sides waiting to
    /// write. Input the connection held back only to let output go first (the server's
    /// `Limits::write_threshold`) is processed now, up to the room its transmit buffer has; the
    /// receive buffer then has room again unless the transmit buffer is full.
    ///
    /// For callers whose pending write can be dropped without losing bytes. Call it again after
    /// each [`Connection::rx_commit`] made while the write waits. The default returns no spare room:
    /// a connection that does not override it is not read from while its output waits.
    fn transmit_blocked(&mut self, now: Instant) -> (Option<&[u8]>, &mut [u8]) {
        let _ = now;
        (self.poll_transmit(), &mut [])
    }

    /// The instant at which [`Connection::handle_timeout`] should next be called, if any.
    #[must_use]
    fn poll_timeout(&self) -> Option<Instant>;

    /// Runs whatever was due at `now`.
    fn handle_timeout(&mut self, now: Instant);

    /// `true` once the input has ended and every pending byte has been transmitted.
    #[must_use]
    fn is_finished(&self) -> bool;
}

/// What a byte stream writes next of `transmit` (an end-of-stream marker with no bytes is nothing
/// on a byte stream).
#[inline]
pub(crate) fn bytes_of(transmit: Option<crate::endpoint::Transmit<'_>>) -> Option<&[u8]> {
    transmit.map(|t| t.bytes).filter(|bytes| !bytes.is_empty())
}

/// Implements [`Connection`] for a role's engine with its handler: the server's and the client's
/// owning type (`Server`, `Client`) and borrowing one (`Bound`). Each method forwards to the
/// engine's method of the same name, with the handler; the type has the fields `engine` (the
/// engine or `&mut` to it) and `handler`, and a `parts_mut` giving both. `$transmit_blocked` is
/// the role's `transmit_blocked`, called as `$transmit_blocked(engine, now, handler)`.
macro_rules! connection_by_engine {
    ($(#[$attr:meta])* impl[$($generics:tt)*] $ty:ty, $transmit_blocked:path) => {
        $(#[$attr])*
        impl<$($generics)*> $crate::connection::Connection for $ty {
            fn rx_spare(&mut self) -> &mut [u8] {
                self.engine.rx_spare()
            }

            fn rx_commit(&mut self, now: $crate::time::Instant, n: usize) {
                let (engine, handler) = self.parts_mut();
                engine.rx_commit(now, n, handler)
            }

            fn handle_eof(&mut self, now: $crate::time::Instant) {
                let (engine, handler) = self.parts_mut();
                engine.handle_eof(now, handler)
            }

            fn poll_transmit(&self) -> Option<&[u8]> {
                $crate::connection::bytes_of(self.engine.poll_transmit())
            }

            fn transmit_done(&mut self, now: $crate::time::Instant, n: usize) {
                let (engine, handler) = self.parts_mut();
                engine.transmit_done(now, n, handler)
            }

            fn transmit_blocked(&mut self, now: $crate::time::Instant) -> (Option<&[u8]>, &mut [u8]) {
                let (engine, handler) = self.parts_mut();
                let (transmit, spare) = $transmit_blocked(engine, now, handler);
                ($crate::connection::bytes_of(transmit), spare)
            }

            fn poll_timeout(&self) -> Option<$crate::time::Instant> {
                self.engine.poll_timeout()
            }

            fn handle_timeout(&mut self, now: $crate::time::Instant) {
                let (engine, handler) = self.parts_mut();
                engine.handle_timeout(now, handler)
            }

            fn is_finished(&self) -> bool {
                self.engine.is_finished()
            }
        }
    };
}

pub(crate) use connection_by_engine;
