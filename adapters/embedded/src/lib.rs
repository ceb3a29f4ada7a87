#![no_std]
#![forbid(unsafe_code)]
#![warn(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]
//! # mcp-sansio-embedded
//!
//! Runs an [mcp-sansio](mcp_sansio) endpoint over any [`embedded_io_async`] byte stream: a UART, a USB
//! CDC-ACM port, a TCP socket. No allocator, no executor of its own, no protocol logic.
//!
//! The run loop itself is [`mcp_sansio_driver`]'s, re-exported here ([`run`],
//! [`run_with_jobs`], [`run_with_options`], [`Clock`], [`Jobs`], [`Error`]); its
//! [crate docs](mcp_sansio_driver#the-loop) describe the loop, back-pressure, flushing,
//! [jobs](mcp_sansio_driver#jobs) and [cancellation](mcp_sansio_driver#cancellation)
//! once. This crate adds the embedded IO glue: [`PacketWriter`] for USB packet links and
//! `EmbassyClock` (feature `embassy-time`).
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
//! Writes run to completion by default (a USB endpoint's `write` is not cancel-safe). With a
//! cancel-safe writer (embassy's `BufferedUart`, embassy-net's `TcpSocket`), [`run_with_options`]
//! and [`Options::interruptible_writes`] let deadlines and jobs run, and input be read, while a
//! write waits.
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
//! - `embassy-time`: `EmbassyClock`, a [`Clock`] on `embassy_time`.
//! - `embassy-usb`: [`PacketWrite`] for `embassy_usb::class::cdc_acm::Sender`.
//! - `defmt`: `defmt::Format` for the error types (and the core's).

#[cfg(feature = "embassy-time")]
mod clock;
mod packet;

#[cfg(feature = "embassy-time")]
#[cfg_attr(docsrs, doc(cfg(feature = "embassy-time")))]
pub use clock::EmbassyClock;
pub use mcp_sansio_driver::{
    Clock, Error, JobStatus, Jobs, NoJobs, Options, ROUNDS_BEFORE_YIELD, run, run_with_jobs, run_with_options,
};
pub use packet::{PacketWrite, PacketWriter};
