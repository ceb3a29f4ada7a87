#![no_std]
#![warn(missing_docs)]
//! # mcp-sansio-embedded
//!
//! Runs an [mcp-sansio](mcp_sansio) endpoint over any [`embedded_io_async`] byte stream: a UART, a USB
//! CDC-ACM port, a TCP socket, or (through `embedded-io-adapters`) a tokio or futures stream. No
//! allocator, no executor of its own, no protocol logic: [`run`] moves bytes between the stream and a
//! [`Connection`], reads the time from a [`Clock`] and sleeps until something can progress.
//!
//! ```no_run
//! # async fn example<R, W, K, C>(reader: &mut R, writer: &mut W, clock: &mut K, server: &mut C)
//! # where R: embedded_io_async::Read, W: embedded_io_async::Write, K: mcp_sansio_embedded::Clock,
//! #       C: mcp_sansio::connection::Connection {
//! // `server` is an `mcp_sansio::server::Server` over static buffers; `reader`/`writer` a UART.
//! loop {
//!     match mcp_sansio_embedded::run(server, reader, writer, clock).await {
//!         Ok(()) => break, // the input ended and everything was answered
//!         // A UART overrun or a USB disconnect: the connection is intact, carry on.
//!         Err(_error) => continue,
//!     }
//! }
//! # }
//! ```
//!
//! # The loop
//!
//! Each round of [`run`]:
//!
//! 1. If [`Connection::poll_timeout`] has passed, call [`Connection::handle_timeout`].
//! 2. Drain: write [`Connection::poll_transmit`] and report [`Connection::transmit_done`] until it
//!    returns `None`. A write may take fewer bytes than offered (a USB packet, a UART FIFO); the
//!    rest is offered again, so every message goes out whole (`write_all` semantics) and messages are
//!    never interleaved.
//! 3. Once drained, [`flush`](embedded_io_async::Write::flush) the writer (once per burst, not per
//!    message), and return if [`Connection::is_finished`].
//! 4. Wait for the first of: the [`Connection::poll_timeout`] deadline on the [`Clock`], a
//!    [`Completions`] source having work for the connection, or bytes read straight into
//!    [`Connection::rx_spare`] (then [`Connection::rx_commit`]; end of stream calls
//!    [`Connection::handle_eof`]). They are checked in that order, so a peer that floods the line
//!    cannot starve deadlines or deferred answers. Start the next round.
//!
//! Nothing is read while output is pending: a client that does not read its answers eventually
//! stops being read from (back-pressure), and the receive buffer never holds more than the engine
//! can answer. After [`ROUNDS_BEFORE_YIELD`] rounds without sleeping the loop yields to the
//! executor, so a peer that never stops sending cannot starve the other tasks.
//!
//! # Cancellation
//!
//! - **Reads are raced** against the timer and the completion source and dropped when one of those
//!   wins. The loop itself loses nothing then: bytes are committed in the same poll in which the read
//!   returns them. The reader must be *cancel-safe* too (a dropped `read` future loses no data) when
//!   a timer deadline or a completion source is in play. embassy's `BufferedUart`, embassy-usb's
//!   `BufferedReceiver`, embassy-net's `TcpSocket` and `FromTokio` are; a reader that is not can be
//!   used with [`NoCompletions`] and a connection without timeouts, where the read is never dropped.
//! - **Dropping the [`run`] future** is safe between messages; dropped during a write, the bytes that
//!   write took were never reported, so they are sent again by the next [`run`] (a duplicated
//!   fragment). Stop a server through its input or a completion instead.
//! - **Errors** end [`run`] and leave the connection as it was, so calling [`run`] again resumes the
//!   same session: after a UART framing error, a USB host that went away and came back, a reconnected
//!   socket.
//!
//! # USB CDC-ACM
//!
//! A CDC-ACM `Sender` writes at most one packet per `write`, and a transfer that ends with a
//! full-size packet is not delivered by the host until a shorter packet follows. Wrap a
//! [`PacketWrite`] (implemented for embassy-usb's `Sender` with the `embassy-usb` feature) in a
//! [`PacketWriter`]: it sends a zero-length packet after every frame that ends on a packet boundary.
//!
//! # Features
//!
//! - `embassy-time`: [`EmbassyClock`], a [`Clock`] on `embassy_time`.
//! - `embassy-usb`: [`PacketWrite`] for `embassy_usb::class::cdc_acm::Sender`.
//! - `defmt`: `defmt::Format` for the error types (and the core's).
//!
//! [`Connection`]: mcp_sansio::connection::Connection
//! [`Connection::poll_timeout`]: mcp_sansio::connection::Connection::poll_timeout
//! [`Connection::handle_timeout`]: mcp_sansio::connection::Connection::handle_timeout
//! [`Connection::poll_transmit`]: mcp_sansio::connection::Connection::poll_transmit
//! [`Connection::transmit_done`]: mcp_sansio::connection::Connection::transmit_done
//! [`Connection::is_finished`]: mcp_sansio::connection::Connection::is_finished
//! [`Connection::rx_spare`]: mcp_sansio::connection::Connection::rx_spare
//! [`Connection::rx_commit`]: mcp_sansio::connection::Connection::rx_commit
//! [`Connection::handle_eof`]: mcp_sansio::connection::Connection::handle_eof

mod clock;
mod completion;
mod driver;
mod packet;
mod select;

pub use clock::Clock;
#[cfg(feature = "embassy-time")]
pub use clock::EmbassyClock;
pub use completion::{Completions, NoCompletions};
pub use driver::{Error, ROUNDS_BEFORE_YIELD, run, run_with_completions};
pub use packet::{PacketWrite, PacketWriter};
