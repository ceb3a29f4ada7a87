//! The role-neutral layer beneath [`server`](crate::server) (and the client to come): the endpoint
//! (`Endpoint`: its receive buffer and its `Outbox`, which writes every framed message, sends
//! requests and notifications, cancels, expires and matches answers, and answers unusable
//! messages with errors), the transmit queue with its streams and framings, the table of requests
//! sent to the peer (ids, deadlines, routing of their answers), the [`Buffers`] and [`Limits`], the
//! errors of sending, and the [`Event`]s every role reports about the connection itself.
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

mod event;
mod limits;
mod outbound;
mod outbox;
#[cfg(test)]
mod tests;
mod tx;

pub use event::Event;
pub use limits::{Buffers, DEFAULT_MAX_DEPTH, DEFAULT_PAGE_SIZE, DEFAULT_WRITE_THRESHOLD, Limits, MIN_RESPONSE_WINDOW};
pub(crate) use outbound::OutboundTable;
pub use outbound::{OutboundKey, Outcome, Response};
pub(crate) use outbox::{Eof, Outbox, answer_unparsable};
pub(crate) use tx::{Commit, TxMark, TxQueue};
pub use tx::{MAX_TX_RECORDS, Transmit};

use core::fmt;

use crate::frame::{Frame, FrameError, LineBuffer};
use crate::storage::Storage;
use crate::time::Instant;

/// One end of an MCP connection, whichever its role: the receive buffer it frames messages from,
/// and its [`Outbox`] (the transmit queue, the requests awaiting the peer's answers, the limits and
/// the end of input). A role (the [server](crate::server::Engine), the client) is an endpoint plus
/// its own state: it takes each received message from [`Endpoint::next_frame`], decides what it
/// is, and answers through the outbox. `OUTBOUND` requests to the peer may await answers at once.
pub(crate) struct Endpoint<'a, const OUTBOUND: usize> {
    pub(crate) rx: LineBuffer<'a>,
    pub(crate) out: Outbox<'a, OUTBOUND>,
}

/// What [`Endpoint::next_frame`] found in the receive buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Next {
    /// A message to serve.
    Frame(Frame),
    /// A message the framing layer dropped (too long): answer it, and report it.
    Dropped(FrameError),
    /// Input is buffered but held back: enough output waits to be written first
    /// ([`Limits::write_threshold`]), or the next message needs transmit room that is not free.
    /// Transmit, then go on.
    Held,
    /// No complete message is buffered.
    Empty,
}

impl<'a, const OUTBOUND: usize> Endpoint<'a, OUTBOUND> {
    /// An endpoint over a receive and a transmit buffer (borrowed, or owned under `alloc`) with
    /// `limits`.
    pub(crate) fn new(rx: Storage<'a>, tx: Storage<'a>, limits: Limits) -> Self {
        Endpoint { rx: LineBuffer::with_storage(rx), out: Outbox::new(TxQueue::new(tx), limits) }
    }

    /// Whether input is still taken (the end of input was not reported).
    pub(crate) fn is_open(&self) -> bool {
        self.out.eof == Eof::Open
    }

    /// Reports the end of input: what is buffered is still served, then [`finish_input`](Self::finish_input).
    pub(crate) fn end_input(&mut self) {
        if self.out.eof == Eof::Open {
            self.out.eof = Eof::Pending;
        }
    }

    /// The next received message, if the role can take it now. Input waits while
    /// `write_threshold` bytes of output wait ([`Limits::write_threshold`], which the role may lift) (so a pipelining peer reads its first answers
    /// while the rest are computed). `needs_room` tells, per message, whether serving it writes an
    /// answer: a server answers every request (and errors to anything unusable), a client must go on
    /// reading answers and notifications while its transmit queue is full and only needs room for a
    /// request from its peer. A message that needs room when no answer fits stays buffered (`Held`).
    pub(crate) fn next_frame(&mut self, write_threshold: usize, needs_room: impl Fn(&[u8]) -> bool) -> Next {
        if self.out.tx.capacity() - self.out.tx.free() >= write_threshold.max(1) {
            return Next::Held;
        }
        let room = self.out.has_answer_room(StreamId::BYTE_STREAM);
        match self.rx.next_frame() {
            Some(Ok(frame)) if room || !needs_room(self.rx.frame(frame)) => Next::Frame(frame),
            Some(Ok(_)) => {
                self.rx.unread();
                Next::Held
            }
            // A dropped message is answered with an error where one fits, and reported.
            Some(Err(error)) => Next::Dropped(error),
            None => Next::Empty,
        }
    }

    /// Ends the input once everything buffered was served: a partial last message is dropped and
    /// returned to report ([`Event::FrameDropped`]). Afterwards nothing more is read or sent.
    pub(crate) fn finish_input(&mut self) -> Option<Event> {
        self.out.eof = Eof::Done;
        self.rx.finish().map(Event::FrameDropped)
    }

    /// The earliest deadline of the requests sent to the peer.
    pub(crate) fn poll_timeout(&self) -> Option<Instant> {
        self.out.outbound.next_deadline()
    }
}

/// Identifies the stream a message is written to. Numbers other than [`StreamId::BYTE_STREAM`] are
/// the adapter's to hand out (one per HTTP response or SSE stream).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct StreamId(pub u32);

impl StreamId {
    /// The single byte stream of stdio, a UART or a socket.
    pub const BYTE_STREAM: StreamId = StreamId(0);
    /// The engine's own stream, never transmitted: what is written to it is dropped (a task's
    /// answer is read back from its window and kept, see `server::tasks`).
    /// Adapters number their streams below it.
    pub const INTERNAL: StreamId = StreamId(u32::MAX);
}

/// How messages are delimited on a stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum Framing {
    /// One message per line, ended by `\n` (stdio, serial lines, custom byte streams).
    Ndjson,
    /// One Server-Sent Event per message: `id: <stream>-<n>`, `data: <message>`, a blank line (Streamable
    /// HTTP response and GET streams). With the `http` feature: a build without it (a serial
    /// firmware) carries no event framing.
    #[cfg(feature = "http")]
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
            #[cfg(feature = "http")]
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
    /// The peer did not declare the capability the request needs (elicitation, sampling, roots).
    MissingCapability,
    /// Its params are not well-formed (not JSON, or not a JSON object where one is required).
    Malformed,
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
            SendError::MissingCapability => "the peer did not declare the capability this request needs",
            SendError::Malformed => "the params are not well-formed JSON of the right kind",
        })
    }
}

impl core::error::Error for SendError {}
