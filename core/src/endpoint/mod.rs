//! The role-neutral layer beneath [`server`](crate::server) (and the client to come): the transmit
//! queue with its streams and framings, the table of requests sent to the peer (ids, deadlines,
//! routing of their answers), and the errors of sending.
//!
//! # Streams
//!
//! Every message the engine writes belongs to a [stream](StreamId): the single byte stream of stdio,
//! a UART or a TCP socket ([`StreamId::BYTE_STREAM`]), or, over Streamable HTTP, one POST response or
//! one long-lived GET/`subscriptions/listen` stream, numbered by the adapter. A stream has a
//! [`Framing`]: NDJSON lines, SSE events or a bare HTTP body. The engine writes each message once and
//! the queue frames it for its stream; the adapter only moves bytes.
//!
//! Output comes out as [`Transmit`]s, in the manner of quinn's `Transmit` and str0m's single output:
//! each names its stream, holds whole messages of that stream (consecutive messages of one stream
//! come out together, so a pipelined byte stream is written with one system call), and says whether
//! the stream ends after it. Where a message goes is a [`Route`], taken from the input that caused it
//! (a response goes where its request came from) or given by the caller (a notification).
//!
//! # Limits
//! - Messages wait in the caller's transmit buffer; a run of messages of one stream is one record,
//!   and at most [`MAX_TX_RECORDS`] records (runs of different streams, or stream ends) wait at once.
//!   A message that finds no room is not written: answers to requests wait for room before the request
//!   is read, and [`SendError::Full`] tells the caller of an application-initiated send to transmit
//!   first and try again.
//! - Requests to the peer wait in a fixed table (the `OUTBOUND` parameter of the engine); each has an
//!   optional deadline, after which it is cancelled on the wire and reported as timed out.

mod outbound;
mod tx;

pub(crate) use outbound::OutboundTable;
pub use outbound::{OutboundKey, Outcome, Response};
pub(crate) use tx::{Commit, TxMark, TxQueue};
pub use tx::{MAX_TX_RECORDS, Transmit};

use core::fmt;

/// Identifies the stream a message is written to. Numbers other than [`StreamId::BYTE_STREAM`] are
/// the adapter's to hand out (one per HTTP response or SSE stream).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct StreamId(pub u32);

impl StreamId {
    /// The single byte stream of stdio, a UART or a socket.
    pub const BYTE_STREAM: StreamId = StreamId(0);
}

/// How messages are delimited on a stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum Framing {
    /// One message per line, ended by `\n` (stdio, serial lines, custom byte streams).
    Ndjson,
    /// One Server-Sent Event per message: `id: <stream>-<n>`, `data: <message>`, a blank line (Streamable
    /// HTTP response and GET streams).
    Sse,
    /// The message is the whole HTTP body (a JSON response to a POST): no delimiter.
    Body,
}

impl Framing {
    /// What ends a message of this framing.
    #[cfg_attr(not(target_pointer_width = "64"), inline(never))]
    pub const fn suffix(self) -> &'static [u8] {
        match self {
            Framing::Ndjson => b"\n",
            Framing::Sse => b"\n\n",
            Framing::Body => b"",
        }
    }
}

/// Where a message goes: a stream, its framing, and whether the stream ends with the response.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Route {
    /// The stream.
    pub stream: StreamId,
    /// Its framing.
    pub framing: Framing,
    /// The stream ends after the response to the request that came in on it (an HTTP POST's
    /// response); a byte stream and a GET stream stay open.
    pub ends_with_response: bool,
}

impl Route {
    /// The byte stream of stdio or a serial line: NDJSON, never ending with a response.
    pub const BYTE_STREAM: Route =
        Route { stream: StreamId::BYTE_STREAM, framing: Framing::Ndjson, ends_with_response: false };

    /// A route to `stream` with `framing` that stays open.
    pub const fn new(stream: StreamId, framing: Framing) -> Self {
        Route { stream, framing, ends_with_response: false }
    }

    /// The same route, ending its stream after the response.
    #[must_use]
    pub const fn ending_with_response(mut self) -> Self {
        self.ends_with_response = true;
        self
    }
}

/// Why a message could not be sent. Nothing was written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum SendError {
    /// The transmit buffer lacks room for it now: transmit, then try again.
    Full,
    /// It can never fit: it is longer than the largest message the engine writes.
    TooLarge,
    /// Every slot of the outbound-request table is taken (see the engine's `OUTBOUND` parameter).
    TooManyRequests,
    /// Not possible in this state or protocol version (for example a server-to-client request with no
    /// legacy session, where the protocol has no channel for it).
    NotAvailable,
    /// The input has ended; nothing more is sent.
    Closed,
    /// A progress notification whose `progress` is not larger than the last one sent for the request
    /// (the spec requires it to increase).
    NotIncreasing,
}

impl fmt::Display for SendError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SendError::Full => "the transmit buffer is full: transmit, then try again",
            SendError::TooLarge => "the message is larger than the largest message the engine writes",
            SendError::TooManyRequests => "too many requests to the peer are awaiting an answer",
            SendError::NotAvailable => "not available in this state or protocol version",
            SendError::Closed => "the connection is closed",
            SendError::NotIncreasing => "progress must increase with every notification of a request",
        })
    }
}

impl core::error::Error for SendError {}
