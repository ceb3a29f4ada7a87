//! The server engine: a sans-IO MCP server for both protocol eras.
//!
//! [`Server`] owns caller-provided receive and transmit buffers, a [`Handler`] (the application) and
//! a small table of deferred requests. It implements [`Connection`], so any adapter can drive it.
//! Protocol methods are answered here; the handler only sees tool calls, resource reads and prompt
//! requests, already validated.

mod dispatch;
pub mod handler;
mod lists;
#[cfg(feature = "alloc")]
pub mod registry;
pub mod reply;
mod tx;

use crate::connection::Connection;
use crate::frame::{FrameError, LineBuffer};
use crate::json::JsonStr;
use crate::time::Instant;
use crate::version::ProtocolVersion;

pub use dispatch::MAX_BATCH_LEN;
pub use handler::{
    Handler, Implementation, Prompt, PromptArgument, PromptGet, RequestContext, Resource, ResourceRead, Tool,
    ToolAnnotations, ToolCall,
};
#[cfg(feature = "alloc")]
pub use registry::{PromptInfo, Registry, ResourceInfo, ToolInfo};
pub use reply::{
    CacheHints, CacheScope, DeferError, Deferred, DeferredKey, PromptReply, ReplyError, ReplyKind, ResourceReply, Role,
    ToolReply,
};

use reply::{InFlight, Outgoing, ReplyId};
use tx::TxBuffer;

/// Default JSON nesting limit for received messages.
pub const DEFAULT_MAX_DEPTH: usize = 64;
/// Default number of items on one page of `tools/list`, `resources/list` and `prompts/list`.
pub const DEFAULT_PAGE_SIZE: usize = 100;
/// Smallest transmit window the engine accepts: room for any error it writes itself.
pub const MIN_RESPONSE_WINDOW: usize = 256;
/// Longest tool name, prompt name or resource URI that may arrive with JSON escapes in it (unescaped
/// length in bytes). Names without escapes have no limit beyond the frame length.
pub const MAX_ESCAPED_NAME_LEN: usize = 256;

/// The caller-owned memory a server works in.
pub struct Buffers<'a> {
    /// Receive buffer. Its length is the longest message accepted; longer lines are rejected with an
    /// error and skipped.
    pub rx: &'a mut [u8],
    /// Transmit buffer. Must be at least [`MIN_RESPONSE_WINDOW`] bytes.
    pub tx: &'a mut [u8],
}

/// Limits on received and transmitted messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Deepest JSON nesting accepted in a received message (clamped to
    /// [`crate::json::MAX_DEPTH_LIMIT`]); deeper messages are rejected with `-32600`.
    pub max_depth: usize,
    /// Largest message the server writes, in bytes (clamped to the transmit buffer, and to at least
    /// [`MIN_RESPONSE_WINDOW`]). A result that does not fit becomes a `-32603` error; list results end
    /// the page early instead. The engine only reads the next request when this much transmit space is
    /// free: with the default (the whole transmit buffer) it answers one request at a time; a transmit
    /// buffer several times larger lets it answer a burst of requests before the adapter flushes.
    pub max_response: usize,
    /// Items per page of the list methods.
    pub page_size: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { max_depth: DEFAULT_MAX_DEPTH, max_response: usize::MAX, page_size: DEFAULT_PAGE_SIZE }
    }
}

/// Server identity and policy.
#[derive(Clone, Copy, Debug)]
pub struct Config<'a> {
    /// `serverInfo`: name, version, title.
    pub server_info: Implementation<'a>,
    /// Guidance for the model, sent in `initialize` and `server/discover` results.
    pub instructions: Option<&'a str>,
    /// Limits.
    pub limits: Limits,
    /// Cache hints of `server/discover` and list results (2026-07-28).
    pub list_cache: CacheHints,
    /// Default cache hints of `resources/read` results (2026-07-28).
    pub resource_cache: CacheHints,
}

impl<'a> Config<'a> {
    /// A configuration with default limits and no caching (`ttlMs: 0`).
    pub const fn new(name: &'a str, version: &'a str) -> Self {
        Config {
            server_info: Implementation { name, version, title: None },
            instructions: None,
            limits: Limits { max_depth: DEFAULT_MAX_DEPTH, max_response: usize::MAX, page_size: DEFAULT_PAGE_SIZE },
            list_cache: CacheHints { ttl_ms: 0, scope: CacheScope::Public },
            resource_cache: CacheHints { ttl_ms: 0, scope: CacheScope::Private },
        }
    }
}

/// Something the application may want to know or log; see [`Handler::on_event`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event<'a> {
    /// A legacy client sent `initialize`; the session speaks `version`.
    SessionStarted {
        /// The negotiated version.
        version: ProtocolVersion,
        /// `clientInfo.name`, if given.
        client_name: Option<JsonStr<'a>>,
    },
    /// The legacy client sent `notifications/initialized`.
    SessionReady,
    /// The client cancelled a deferred request; its answer will be suppressed.
    Cancelled {
        /// Which request.
        request: DeferredKey,
    },
    /// A received message was answered with an error (`code`) instead of being served.
    Rejected {
        /// The JSON-RPC error code sent.
        code: i32,
        /// A short description.
        reason: &'static str,
    },
    /// A frame was dropped by the framing layer (too long, or cut off by the end of input).
    FrameDropped(FrameError),
    /// The client sent a response or an error, but this server sent no request.
    UnexpectedResponse,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Session {
    /// No `initialize` yet.
    None,
    /// `initialize` answered; `ready` after `notifications/initialized`.
    Legacy { version: ProtocolVersion, ready: bool },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Eof {
    Open,
    Pending,
    Done,
}

/// A batch whose elements are being answered, one message each (see `dispatch`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct BatchCursor {
    frame: crate::frame::Frame,
    next: usize,
}

/// A sans-IO MCP server. `IN_FLIGHT` is how many requests may be deferred at once.
///
/// Drive it through [`Connection`] (see the crate docs for the run loop); answer deferred requests
/// with [`Server::reply_tool`], [`Server::reply_resource`] and [`Server::reply_prompt`].
pub struct Server<'a, H: Handler, const IN_FLIGHT: usize = 4> {
    handler: H,
    config: Config<'a>,
    rx: LineBuffer<'a>,
    tx: TxBuffer<'a>,
    session: Session,
    in_flight: [Option<InFlight>; IN_FLIGHT],
    next_generation: u32,
    batch: Option<BatchCursor>,
    eof: Eof,
}

impl<'a, H: Handler, const IN_FLIGHT: usize> Server<'a, H, IN_FLIGHT> {
    /// A server over `buffers`, serving `handler` with `config`.
    pub fn new(handler: H, config: Config<'a>, buffers: Buffers<'a>) -> Self {
        Server {
            handler,
            config,
            rx: LineBuffer::new(buffers.rx),
            tx: TxBuffer::new(buffers.tx),
            session: Session::None,
            in_flight: [const { None }; IN_FLIGHT],
            next_generation: 0,
            batch: None,
            eof: Eof::Open,
        }
    }

    /// The application.
    pub fn handler(&self) -> &H {
        &self.handler
    }

    /// The application, mutably.
    pub fn handler_mut(&mut self) -> &mut H {
        &mut self.handler
    }

    /// The configuration.
    pub fn config(&self) -> &Config<'a> {
        &self.config
    }

    /// The legacy session's negotiated version, once `initialize` was answered.
    pub fn session_version(&self) -> Option<ProtocolVersion> {
        match self.session {
            Session::None => None,
            Session::Legacy { version, .. } => Some(version),
        }
    }

    /// How many deferred requests await an answer.
    pub fn in_flight(&self) -> usize {
        self.in_flight.iter().filter(|slot| slot.is_some()).count()
    }

    /// Whether the client cancelled this deferred request (its answer would be suppressed).
    pub fn is_cancelled(&self, deferred: &Deferred) -> bool {
        self.slot(deferred).is_some_and(|entry| entry.cancelled)
    }

    /// Copies `data` into the receive buffer and processes what it completes. Returns how many bytes
    /// were taken: fewer than `data.len()` when the engine holds back input until bytes are
    /// transmitted (then transmit, and offer the rest again), and none after [`Connection::handle_eof`].
    pub fn handle_input(&mut self, now: Instant, data: &[u8]) -> usize {
        if self.eof != Eof::Open {
            // Input after `handle_eof` is not part of the stream.
            return 0;
        }
        let mut taken = 0;
        while let Some(rest) = data.get(taken..).filter(|rest| !rest.is_empty()) {
            if self.batch.is_some() {
                break;
            }
            let n = self.rx.push(rest);
            if n == 0 {
                break;
            }
            taken += n;
            self.process(now);
        }
        taken
    }

    /// Starts the answer to a deferred `tools/call`. Errors: the client cancelled it (the handle is
    /// spent), the transmit buffer is too full (transmit, then call again), or the handle is unknown.
    pub fn reply_tool(&mut self, deferred: &Deferred) -> Result<ToolReply<'_>, ReplyError> {
        self.reopen(deferred, ReplyKind::Tool).map(ToolReply::new)
    }

    /// Starts the answer to a deferred `resources/read`; see [`Server::reply_tool`].
    pub fn reply_resource(&mut self, deferred: &Deferred) -> Result<ResourceReply<'_>, ReplyError> {
        let cache = self.config.resource_cache;
        self.reopen(deferred, ReplyKind::Resource).map(|out| ResourceReply::new(out, cache))
    }

    /// Starts the answer to a deferred `prompts/get`; see [`Server::reply_tool`].
    pub fn reply_prompt(&mut self, deferred: &Deferred) -> Result<PromptReply<'_>, ReplyError> {
        self.reopen(deferred, ReplyKind::Prompt).map(PromptReply::new)
    }

    fn slot(&self, deferred: &Deferred) -> Option<&InFlight> {
        self.in_flight
            .get(usize::from(deferred.slot))?
            .as_ref()
            .filter(|entry| entry.generation == deferred.generation && entry.kind == deferred.kind)
    }

    fn reopen(&mut self, deferred: &Deferred, kind: ReplyKind) -> Result<Outgoing<'_>, ReplyError> {
        let entry = self.slot(deferred).filter(|entry| entry.kind == kind).ok_or(ReplyError::Unknown)?;
        if entry.cancelled {
            self.in_flight[usize::from(deferred.slot)] = None;
            return Err(ReplyError::Cancelled);
        }
        let window = self.window_len();
        if self.tx.free() < window {
            return Err(ReplyError::Busy);
        }
        let entry = self.in_flight[usize::from(deferred.slot)].take().ok_or(ReplyError::Unknown)?;
        let (buf, committed) = self.tx.window(window);
        Ok(Outgoing::open(buf, committed, ReplyId::Owned(entry.id), entry.version, &self.config.server_info, None))
    }

    /// Bytes one message may take in the transmit buffer.
    fn window_len(&self) -> usize {
        self.config.limits.max_response.min(self.tx.capacity()).max(MIN_RESPONSE_WINDOW.min(self.tx.capacity()))
    }

    /// Processes buffered frames while the transmit buffer has room for an answer.
    fn process(&mut self, now: Instant) {
        let window = self.window_len();
        loop {
            if self.tx.free() < window || window < MIN_RESPONSE_WINDOW {
                return;
            }
            if let Some(batch) = self.batch {
                self.resume_batch(now, batch, window);
                continue;
            }
            match self.rx.next_frame() {
                Some(Ok(frame)) => self.handle_frame(now, frame, window),
                Some(Err(error)) => self.reject_frame(now, error, window),
                None => break,
            }
        }
        if self.eof == Eof::Pending {
            if let Some(error) = self.rx.finish() {
                self.handler.on_event(now, Event::FrameDropped(error));
            }
            self.eof = Eof::Done;
        }
    }
}

impl<H: Handler, const IN_FLIGHT: usize> Connection for Server<'_, H, IN_FLIGHT> {
    fn rx_spare(&mut self) -> &mut [u8] {
        if self.batch.is_some() || self.eof != Eof::Open {
            return &mut [];
        }
        self.rx.spare()
    }

    fn rx_commit(&mut self, now: Instant, n: usize) {
        if self.batch.is_none() && self.eof == Eof::Open {
            self.rx.commit(n);
        }
        self.process(now);
    }

    fn handle_eof(&mut self, now: Instant) {
        if self.eof == Eof::Open {
            self.eof = Eof::Pending;
        }
        self.process(now);
    }

    fn poll_transmit(&self) -> Option<&[u8]> {
        Some(self.tx.pending()).filter(|bytes| !bytes.is_empty())
    }

    fn transmit_done(&mut self, now: Instant, n: usize) {
        self.tx.consume(n);
        self.process(now);
    }

    fn poll_timeout(&self) -> Option<Instant> {
        None
    }

    fn handle_timeout(&mut self, now: Instant) {
        self.process(now);
    }

    fn is_finished(&self) -> bool {
        self.eof == Eof::Done && self.tx.pending().is_empty() && self.in_flight() == 0
    }
}

#[cfg(test)]
mod tests;
