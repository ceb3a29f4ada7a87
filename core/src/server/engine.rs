//! [`Engine`]: the protocol state of one connection, driven with the handler passed to each call.

use core::fmt;

use crate::endpoint::{Endpoint, Eof, Next, OutboundKey, Outcome, Response, Route, SendError, StreamId, Transmit};
use crate::json::{self, JsonWriter, Kind};
use crate::jsonrpc::{ParsedMessage, code};
use crate::mcp::ClientCapabilities;
use crate::server::reply::{InFlight, Outgoing, ReplyId};
use crate::server::{
    BatchCursor, Buffers, Config, Deferred, Event, Handler, PromptReply, ReplyError, ReplyKind, ResourceReply, Session,
    ToolReply,
};
use crate::time::Instant;
use crate::version::ProtocolVersion;

/// The protocol state of one connection: a legacy session (stdio, a serial line, one Streamable HTTP
/// session) or the stateless 2026-07-28 requests of an HTTP endpoint. `IN_FLIGHT` requests may be
/// deferred at once and `OUTBOUND` requests to the client may await their answers at once.
///
/// The application is the `handler` argument of every call that can run it, so any number of
/// engines serve one application. Drive an engine through [`Engine::bind`] (a [`Connection`]) or the
/// methods below; [`Server`](crate::server::Server) keeps one engine and its handler together.
///
/// [`Connection`]: crate::connection::Connection
pub struct Engine<'a, const IN_FLIGHT: usize = 4, const OUTBOUND: usize = 2> {
    pub(crate) config: Config<'a>,
    /// The endpoint: receive buffer, transmit queue, requests to the client, limits, end of input.
    pub(crate) ep: Endpoint<'a, OUTBOUND>,
    pub(crate) session: Session,
    pub(crate) in_flight: [Option<InFlight>; IN_FLIGHT],
    pub(crate) next_generation: u32,
    pub(crate) batch: Option<BatchCursor>,
    /// List changes not yet announced for lack of room.
    pub(crate) pending_changes: crate::server::ListChanges,
    /// Legacy requests waiting for the client's input.
    pub(crate) input: crate::server::legacy_input::InputArea<'a>,
}

/// What [`Engine::handle_message`] made of a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum Received {
    /// A request: its answer goes (now, or when a deferred reply is finished) to the message's route.
    Request,
    /// A notification: nothing is sent in return (Streamable HTTP answers `202 Accepted`).
    Notification,
    /// A response or error from the client: nothing is sent in return (`202 Accepted`).
    Response,
    /// Not a valid message: a JSON-RPC error was sent to the message's route.
    Invalid,
}

/// Why [`Engine::handle_message`] did not take a message. Nothing was read or written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum InputError {
    /// The transmit buffer lacks room for the answer: transmit, then offer the message again.
    Busy,
    /// The input has ended ([`Engine::handle_eof`]).
    Closed,
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            InputError::Busy => "no transmit room for the answer: transmit, then try again",
            InputError::Closed => "the input has ended",
        })
    }
}

impl core::error::Error for InputError {}

impl<'a, const IN_FLIGHT: usize, const OUTBOUND: usize> Engine<'a, IN_FLIGHT, OUTBOUND> {
    /// An engine over `buffers` with `config`.
    pub fn new(config: Config<'a>, buffers: Buffers<'a>) -> Self {
        Engine {
            ep: Endpoint::new(buffers, config.limits),
            config,
            session: Session::None,
            in_flight: [const { None }; IN_FLIGHT],
            next_generation: 0,
            batch: None,
            pending_changes: crate::server::ListChanges::NONE,
            input: crate::server::legacy_input::InputArea::none(),
        }
    }

    /// This engine with `handler`, as a [`Connection`](crate::connection::Connection) an adapter
    /// can drive.
    pub fn bind<'e, H: Handler>(&'e mut self, handler: &'e mut H) -> Bound<'e, 'a, H, IN_FLIGHT, OUTBOUND> {
        Bound { engine: self, handler }
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

    /// What the legacy session's client declared in `initialize` (check before
    /// [`Engine::send_request`]: a client is only asked what it declared).
    pub fn client_capabilities(&self) -> Option<ClientCapabilities> {
        match self.session {
            Session::None => None,
            Session::Legacy { client, .. } => Some(client),
        }
    }

    /// How many deferred requests await an answer (listen streams not counted: see
    /// [`Engine::listens`]).
    pub fn in_flight(&self) -> usize {
        self.in_flight.iter().flatten().filter(|entry| entry.kind != ReplyKind::Listen).count()
    }

    /// How many requests sent to the client await an answer.
    pub fn awaiting_answers(&self) -> usize {
        self.ep.out.outbound.len()
    }

    /// Whether the client cancelled this deferred request (its answer would be suppressed).
    pub fn is_cancelled(&self, deferred: &Deferred) -> bool {
        self.slot(deferred).is_some_and(|entry| entry.cancelled)
    }

    /// Copies `data` into the receive buffer and processes what it completes. Returns how many bytes
    /// were taken: fewer than `data.len()` when the engine holds back input until bytes are
    /// transmitted (then transmit, and offer the rest again), and none after [`Engine::handle_eof`].
    pub fn handle_input<H: Handler>(&mut self, now: Instant, data: &[u8], handler: &mut H) -> usize {
        if !self.ep.is_open() {
            // Input after `handle_eof` is not part of the stream.
            return 0;
        }
        let mut taken = 0;
        while let Some(rest) = data.get(taken..).filter(|rest| !rest.is_empty()) {
            if self.batch.is_some() {
                break;
            }
            let n = self.ep.rx.push(rest);
            if n == 0 {
                break;
            }
            taken += n;
            self.process(now, handler);
        }
        taken
    }

    /// Serves one whole message (an HTTP request body) whose answer goes to `route`, without copying
    /// it. The transmit buffer must have room for an answer, or the message is refused with
    /// [`InputError::Busy`] untouched. Batches are not accepted here (`-32600`).
    pub fn handle_message<H: Handler>(
        &mut self,
        now: Instant,
        route: Route,
        message: &[u8],
        handler: &mut H,
    ) -> Result<Received, InputError> {
        self.handle_body(now, route, message, None, handler)
    }

    /// [`Engine::handle_message`] of a body validated already (an HTTP server that routed it read
    /// it first): the same, without validating it again unless it was validated with another depth
    /// limit than this engine's.
    pub fn handle_parsed<H: Handler>(
        &mut self,
        now: Instant,
        route: Route,
        message: &ParsedMessage<'_>,
        handler: &mut H,
    ) -> Result<Received, InputError> {
        self.handle_body(now, route, message.bytes(), Some(message), handler)
    }

    fn handle_body<H: Handler>(
        &mut self,
        now: Instant,
        route: Route,
        message: &[u8],
        parsed: Option<&ParsedMessage<'_>>,
        handler: &mut H,
    ) -> Result<Received, InputError> {
        if !self.ep.is_open() {
            return Err(InputError::Closed);
        }
        if !self.ep.out.has_answer_room(route.stream) {
            return Err(InputError::Busy);
        }
        let (_, mut parts) = self.split(handler, now, route);
        let max_depth = parts.config.limits.max_depth;
        let mut own;
        let (value, spans) = match parsed.filter(|p| p.max_depth() == max_depth) {
            Some(parsed) => (parsed.value(), parsed.spans()),
            None => {
                own = json::Spans::default();
                (json::parse_spanned(message, max_depth, &mut own), &own)
            }
        };
        let value = match value {
            Ok(value) => value,
            Err(error) => {
                parts.reject_unparsable(error, message);
                return Ok(Received::Invalid);
            }
        };
        if value.kind() == Kind::Array {
            parts.reject(
                None,
                code::INVALID_REQUEST,
                format_args!("JSON-RPC batches are not accepted on this transport"),
            );
            return Ok(Received::Invalid);
        }
        let received = parts.handle_message(value, false, spans);
        self.announce_changes(handler);
        Ok(received)
    }

    /// Free space at the end of the receive buffer, to read into directly (see
    /// [`Connection::rx_spare`](crate::connection::Connection::rx_spare)).
    pub fn rx_spare(&mut self) -> &mut [u8] {
        if self.batch.is_some() || !self.ep.is_open() {
            return &mut [];
        }
        self.ep.rx.spare()
    }

    /// Reports `n` bytes read into [`Engine::rx_spare`] and processes them.
    pub fn rx_commit<H: Handler>(&mut self, now: Instant, n: usize, handler: &mut H) {
        if self.batch.is_none() && self.ep.is_open() {
            self.ep.rx.commit(n);
        }
        self.process(now, handler);
    }

    /// Reports the end of the input stream.
    pub fn handle_eof<H: Handler>(&mut self, now: Instant, handler: &mut H) {
        self.ep.end_input();
        self.process(now, handler);
    }

    /// The next bytes to write, with their stream (see [`Transmit`]).
    #[must_use = "the bytes to write are lost if not written"]
    pub fn poll_transmit(&self) -> Option<Transmit<'_>> {
        self.ep.out.tx.pending()
    }

    /// Reports that `n` bytes of the last [`Engine::poll_transmit`] were written. May process
    /// held-back input.
    pub fn transmit_done<H: Handler>(&mut self, now: Instant, n: usize, handler: &mut H) {
        self.ep.out.tx.consume(n);
        self.ep.out.flush_cancellations();
        self.process(now, handler);
    }

    /// The earliest deadline: of the requests sent to the client.
    #[must_use = "a deadline that is not waited for never expires its requests"]
    pub fn poll_timeout(&self) -> Option<Instant> {
        self.ep.poll_timeout()
    }

    /// Expires the requests whose deadline passed: each is cancelled on the wire
    /// (`notifications/cancelled`) and reported to the handler as timed out.
    pub fn handle_timeout<H: Handler>(&mut self, now: Instant, handler: &mut H) {
        while let Some(entry) = self.ep.out.expire(now) {
            if !self.input_timed_out(entry.key) {
                handler.on_response(now, Response { request: entry.key, outcome: Outcome::TimedOut });
            }
        }
        self.ep.out.flush_cancellations();
        self.process(now, handler);
    }

    /// The input has ended and every pending byte has been transmitted.
    pub fn is_finished(&self) -> bool {
        self.ep.out.eof == Eof::Done && self.ep.out.tx.is_empty() && self.in_flight.iter().all(Option::is_none)
    }

    /// Starts the answer to a deferred `tools/call`. Errors: the client cancelled it (the handle is
    /// spent), the transmit buffer is too full (transmit, then call again: [`ReplyError::Busy`]), or
    /// the handle is unknown.
    pub fn reply_tool(&mut self, deferred: &Deferred) -> Result<ToolReply<'_>, ReplyError> {
        self.reopen(deferred, ReplyKind::Tool).map(ToolReply::new)
    }

    /// Starts the answer to a deferred `resources/read`; see [`Engine::reply_tool`].
    pub fn reply_resource(&mut self, deferred: &Deferred) -> Result<ResourceReply<'_>, ReplyError> {
        let cache = self.config.resource_cache;
        self.reopen(deferred, ReplyKind::Resource).map(|out| ResourceReply::new(out, cache))
    }

    /// Starts the answer to a deferred `prompts/get`; see [`Engine::reply_tool`].
    pub fn reply_prompt(&mut self, deferred: &Deferred) -> Result<PromptReply<'_>, ReplyError> {
        self.reopen(deferred, ReplyKind::Prompt).map(PromptReply::new)
    }

    /// Sends `ping` to the client of the legacy session. Its answer (or its timeout, after
    /// [`Config::request_timeout`]) reaches [`Handler::on_response`] with the returned key.
    pub fn ping(&mut self, now: Instant) -> Result<OutboundKey, SendError> {
        self.send(now, "ping", None)
    }

    /// Sends the request `method` with `params` (written by the closure, a JSON object) to the client
    /// of the legacy session, on the notification route. The answer reaches [`Handler::on_response`]
    /// with the returned key; with no answer by [`Config::request_timeout`] the request is cancelled
    /// and reported as timed out.
    pub fn send_request(
        &mut self,
        now: Instant,
        method: &str,
        params: Option<&dyn Fn(&mut JsonWriter<'_>)>,
    ) -> Result<OutboundKey, SendError> {
        self.send(now, method, params)
    }

    /// Gives up on a request sent to the client: `notifications/cancelled` goes out (now, or once the
    /// transmit buffer has room), a late answer is ignored, and [`Handler::on_response`] is not called
    /// for it. `false` if the request is not awaiting an answer (answered, timed out, or unknown).
    pub fn cancel_request(&mut self, key: OutboundKey) -> bool {
        self.ep.out.cancel(key)
    }

    /// Sends the notification `method` with `params` (a JSON object written by the closure) on the
    /// notification route ([`Route::BYTE_STREAM`] unless [set](Engine::set_notification_route)).
    pub fn notify(&mut self, method: &str, params: Option<&dyn Fn(&mut JsonWriter<'_>)>) -> Result<(), SendError> {
        self.notify_on(self.ep.out.notify_route, method, params)
    }

    /// Sends a notification to `route` (for example the stream of the request it is about).
    pub fn notify_on(
        &mut self,
        route: Route,
        method: &str,
        params: Option<&dyn Fn(&mut JsonWriter<'_>)>,
    ) -> Result<(), SendError> {
        self.ep.out.notify(route, method, params)
    }

    /// Where [`Engine::notify`] and [`Engine::send_request`] write: the byte stream by default, the
    /// standalone GET stream of a Streamable HTTP session.
    pub fn set_notification_route(&mut self, route: Route) {
        self.ep.out.notify_route = route;
    }

    /// Ends `stream` after what is queued for it (a [`Transmit`] with `end_of_stream` follows).
    pub fn end_stream(&mut self, stream: StreamId) -> Result<(), SendError> {
        if self.ep.out.tx.end_stream(stream) { Ok(()) } else { Err(SendError::Full) }
    }

    fn send(
        &mut self,
        now: Instant,
        method: &str,
        params: Option<&dyn Fn(&mut JsonWriter<'_>)>,
    ) -> Result<OutboundKey, SendError> {
        if self.ep.is_open() && !matches!(self.session, Session::Legacy { .. }) {
            // 2026-07-28 has no server-to-client requests (the server returns `input_required`), and
            // before `initialize` there is no session to send them in.
            return Err(SendError::NotAvailable);
        }
        let deadline = self.config.request_timeout.map(|timeout| now + timeout);
        self.ep.out.request(self.ep.out.notify_route, method, params, deadline)
    }

    /// Writes one message (the closure writes it without its framing suffix) all or nothing.
    pub(crate) fn write(&mut self, route: Route, body: impl FnMut(&mut JsonWriter<'_>)) -> Result<(), SendError> {
        self.ep.out.write(route, body)
    }

    /// Writes a response that ends its stream if its route says so.
    pub(crate) fn write_ending(
        &mut self,
        route: Route,
        body: impl FnMut(&mut JsonWriter<'_>),
    ) -> Result<(), SendError> {
        self.ep.out.write_ending(route, body)
    }

    pub(crate) fn slot(&self, deferred: &Deferred) -> Option<&InFlight> {
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
        let window = self.ep.out.window_len();
        if self.ep.out.tx.free() < window || !self.ep.out.tx.has_record_room(entry.route.stream) {
            return Err(ReplyError::Busy);
        }
        let entry = self.in_flight[usize::from(deferred.slot)].take().ok_or(ReplyError::Unknown)?;
        let slot = self.ep.out.tx.open(entry.route, window);
        let notes = crate::server::reply::Notes {
            progress_token: entry.notes.progress_token.map(ReplyId::Owned),
            last_progress: entry.notes.last_progress,
            log_level: entry.notes.log_level,
        };
        let out = Outgoing::open(slot, ReplyId::Owned(entry.id), entry.version, &self.config.server_info, None);
        Ok(out.with_notes(notes))
    }

    /// Processes buffered frames while the transmit buffer has room for an answer. Once the input
    /// has ended, listen streams are ended gracefully (their result written as room allows).
    fn process<H: Handler>(&mut self, now: Instant, handler: &mut H) {
        if self.pending_changes != crate::server::ListChanges::NONE {
            self.flush_changes(&*handler);
        }
        self.process_input(now, handler);
        // Requests to the client that the input gave up on (a cancelled or failed request waiting
        // for input) are cancelled on the wire at once.
        self.ep.out.flush_cancellations();
        if self.ep.out.eof == Eof::Done {
            let _ = self.end_listens();
        }
    }

    fn process_input<H: Handler>(&mut self, now: Instant, handler: &mut H) {
        // One record for every frame of this call (each validation starts it afresh).
        let mut spans = json::Spans::default();
        loop {
            // Every message a server takes may need an answer: none is read without room for one.
            if !self.ep.out.has_answer_room(StreamId::BYTE_STREAM) {
                return;
            }
            if let Some(batch) = self.batch {
                self.resume_batch(now, batch, handler, &mut spans);
                self.announce_changes(handler);
                continue;
            }
            match self.ep.next_frame(|_| true) {
                Next::Frame(frame) => {
                    self.handle_frame(now, frame, handler, &mut spans);
                    self.announce_changes(handler);
                }
                Next::Dropped(error) => self.reject_frame(now, error, handler),
                Next::Held => return,
                Next::Empty => break,
            }
        }
        if self.ep.out.eof == Eof::Pending {
            if let Some(error) = self.ep.finish_input() {
                handler.on_event(now, Event::FrameDropped(error));
            }
            self.drop_pending_input();
            // Nobody is left to answer requests sent to the client. Those that timed out or were
            // cancelled have had their outcome already.
            while let Some(entry) = self.ep.out.drain() {
                if !entry.cancel_pending {
                    handler.on_response(now, Response { request: entry.key, outcome: Outcome::Closed });
                }
            }
        }
    }
}

/// An [`Engine`] with the handler it serves, for one call or one drive by an adapter; implements
/// [`Connection`](crate::connection::Connection).
pub struct Bound<'e, 'a, H, const IN_FLIGHT: usize = 4, const OUTBOUND: usize = 2> {
    pub(crate) engine: &'e mut Engine<'a, IN_FLIGHT, OUTBOUND>,
    pub(crate) handler: &'e mut H,
}

impl<'a, H, const IN_FLIGHT: usize, const OUTBOUND: usize> Bound<'_, 'a, H, IN_FLIGHT, OUTBOUND> {
    /// The engine.
    pub fn engine(&mut self) -> &mut Engine<'a, IN_FLIGHT, OUTBOUND> {
        self.engine
    }

    /// The handler.
    pub fn handler(&mut self) -> &mut H {
        self.handler
    }
}
