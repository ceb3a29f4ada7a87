//! [`Engine`]: the protocol state of one connection, driven with the handler passed to each call.

use crate::endpoint::{Endpoint, Eof, Next, Outcome, Response, Route, SendError, StreamId, Transmit};
use crate::frame::{Frame, FrameError, LineBuffer};
use crate::json::{self, JsonWriter, Kind, Spans};
use crate::jsonrpc::{ParsedMessage, code};
use crate::mcp::ClientCapabilities;
use crate::num::Decimal;
use crate::server::dispatch::{MAX_BATCH_LEN, Parts};
use crate::server::reply::InFlight;
use crate::server::{BatchCursor, Bound, Buffers, Config, Handler, InputError, Received, Session};
use crate::storage::Storage;
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
    /// Requests kept open past their frame. A slot whose request's reply has been opened is free
    /// ([`InFlight::live`]); its entry stays only for that reply to borrow the ids from.
    pub(crate) in_flight: [Option<InFlight>; IN_FLIGHT],
    pub(crate) next_generation: u32,
    pub(crate) batch: Option<BatchCursor>,
    /// List changes not yet announced for lack of room.
    pub(crate) pending_changes: crate::server::ListChanges,
    /// Legacy requests waiting for the client's input.
    pub(crate) input: crate::server::legacy_input::InputArea<'a>,
    /// `config.server_info` as 2026-07-28 results carry it, written once.
    pub(crate) server_info: crate::server::server_info::ServerInfoText,
    /// The tasks, if the application gave the engine a table (`Engine::set_task_table`).
    #[cfg(feature = "tasks")]
    pub(crate) tasks: Option<crate::server::tasks::TaskTable<'a>>,
}

impl<'a, const IN_FLIGHT: usize, const OUTBOUND: usize> Engine<'a, IN_FLIGHT, OUTBOUND> {
    /// An engine over `buffers` with `config`.
    pub fn new(config: Config<'a>, buffers: Buffers<'a>) -> Self {
        Engine::with_storage(config, buffers.rx, buffers.tx)
    }

    /// An engine over a receive and a transmit buffer that are each borrowed (`&mut [u8]`, as in
    /// [`Buffers`]) or, with `alloc`, owned (`Box<[u8]>`; see `Engine::new_owned`).
    pub fn with_storage(config: Config<'a>, rx: impl Into<Storage<'a>>, tx: impl Into<Storage<'a>>) -> Self {
        Engine {
            ep: Endpoint::new(rx.into(), tx.into(), config.limits),
            server_info: crate::server::server_info::ServerInfoText::new(&config.server_info),
            config,
            session: Session::None,
            // Built at run time: `[const { None }; IN_FLIGHT]` is a constant, which rustc copies from
            // an image of every slot in flash (232 B in the Cortex-M3 firmware; docs/firmware.md,
            // "Flash: constant images and finished replies").
            in_flight: core::array::from_fn(|_| None),
            next_generation: 0,
            batch: None,
            pending_changes: crate::server::ListChanges::NONE,
            input: crate::server::legacy_input::InputArea::none(),
            #[cfg(feature = "tasks")]
            tasks: None,
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

    /// How many deferred requests await an answer (listen streams and `tasks/result` requests,
    /// which the engine answers itself, not counted: see [`Engine::listens`]).
    pub fn in_flight(&self) -> usize {
        self.in_flight.iter().filter_map(InFlight::live).filter(|entry| entry.kind.answered_by_handler()).count()
    }

    /// How many requests sent to the client await an answer.
    pub fn awaiting_answers(&self) -> usize {
        self.ep.out.outbound.len()
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
        let parsed = parsed.filter(|p| p.max_depth() == max_depth);
        let (value, spans) = match parsed {
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
        let received = match parsed.and_then(|p| Some((p.message()?, p.picked()))) {
            Some((classified, picked)) => parts.handle_classified(classified, false, spans, picked),
            None => parts.handle_message(value, false, spans),
        };
        parts.retry_due_input_with_own_record();
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

    /// The writer cannot take [`Engine::poll_transmit`] yet: returns the pending output with
    /// [`Engine::rx_spare`], to write and read at once (see
    /// [`Connection::transmit_blocked`](crate::connection::Connection::transmit_blocked)). When the
    /// receive buffer is full, the input held back by
    /// [`Limits::write_threshold`](crate::server::Limits::write_threshold) is served first (up to
    /// the transmit room), so that reading can go on.
    pub fn transmit_blocked<H: Handler>(&mut self, now: Instant, handler: &mut H) -> (Option<Transmit<'_>>, &mut [u8]) {
        // The threshold lets output go first; while the writer is blocked it cannot. Until the
        // receive buffer is full, reading on is enough to keep a pipelining peer going, and answers
        // still go out in threshold-sized writes (both sides work at once); only a full buffer
        // needs the held requests served now, or neither side would move.
        if self.batch.is_none() && self.ep.is_open() && self.ep.rx.spare().is_empty() {
            self.process_with(now, handler, usize::MAX);
        }
        let spare = if self.batch.is_some() || !self.ep.is_open() { &mut [][..] } else { self.ep.rx.spare() };
        (self.ep.out.tx.pending(), spare)
    }

    /// The earliest deadline: of the requests sent to the client, and (with a task table) of the
    /// tasks a 2025-11-25 `tasks/result` waits for, which is answered when its task expires.
    #[must_use = "a deadline that is not waited for never expires its requests"]
    pub fn poll_timeout(&self) -> Option<Instant> {
        let deadline = self.ep.poll_timeout();
        #[cfg(feature = "tasks")]
        if let Some(table) = self.tasks.as_ref() {
            // Listen streams to tell of a task's new status: due now.
            if table.changed && !table.notes_blocked {
                return Some(deadline.map_or(table.last_now, |d| d.min(table.last_now)));
            }
            let waited = |e: &InFlight| e.task.filter(|_| e.kind == crate::server::reply::ReplyKind::TaskResult);
            let expiries = self.in_flight.iter().flatten().filter_map(waited).filter_map(|id| table.expiry(&id));
            return expiries.chain(deadline).min();
        }
        deadline
    }

    /// Expires the requests whose deadline passed: each is cancelled on the wire
    /// (`notifications/cancelled`) and reported to the handler as timed out.
    pub fn handle_timeout<H: Handler>(&mut self, now: Instant, handler: &mut H) {
        self.expire_requests(now, handler);
        self.process(now, handler);
    }

    /// [`Engine::handle_timeout`] but for processing held input: in a frame of its own, which is
    /// gone before the input's.
    #[inline(never)]
    fn expire_requests<H: Handler>(&mut self, now: Instant, handler: &mut H) {
        while let Some(entry) = self.ep.out.expire(now) {
            #[cfg(feature = "tasks")]
            if let Some(table) = self.tasks.as_mut()
                && crate::server::tasks::task_input_timed_out(&mut self.ep.out, table, entry.key, now)
            {
                continue;
            }
            if !self.input_timed_out(entry.key) {
                handler.on_response(now, Response { request: entry.key, outcome: Outcome::TimedOut });
            }
        }
        self.ep.out.flush_cancellations();
    }

    /// Tells whoever waits on a task of its new status; then, while a 2025-11-25 `tasks/result`
    /// waits, drops the tasks whose time to live ended by `now` and tells it of its task's expiry
    /// (otherwise the next lookup drops them). A task that failed or ended before it expired is
    /// told as such, even when both are seen in one call.
    #[cfg(feature = "tasks")]
    fn tell_tasks(&mut self, now: Instant) {
        if self.tasks.as_ref().is_some_and(|t| t.changed) {
            self.flush_task_statuses();
        }
        let waits = self.in_flight.iter().flatten().any(|e| e.kind == crate::server::reply::ReplyKind::TaskResult);
        if let Some(table) = self.tasks.as_mut().filter(|_| waits) {
            table.expire(now);
            if table.changed {
                self.flush_task_statuses();
            }
        }
    }

    /// The input has ended and every pending byte has been transmitted.
    pub fn is_finished(&self) -> bool {
        self.ep.out.eof == Eof::Done && self.ep.out.tx.is_empty() && self.in_flight.iter().all(InFlight::is_free)
    }

    /// Ends `stream` after what is queued for it (a [`Transmit`] with `end_of_stream` follows).
    pub fn end_stream(&mut self, stream: StreamId) -> Result<(), SendError> {
        if self.ep.out.tx.end_stream(stream) { Ok(()) } else { Err(SendError::Full) }
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

    /// Processes buffered frames while the transmit buffer has room for an answer. Once the input
    /// has ended, listen streams are ended gracefully (their result written as room allows).
    fn process<H: Handler>(&mut self, now: Instant, handler: &mut H) {
        self.process_with(now, handler, self.config.limits.write_threshold);
    }

    /// [`process`](Self::process) taking input while less than `write_threshold` bytes of output
    /// wait (the configured [`Limits::write_threshold`](crate::server::Limits::write_threshold), or
    /// none while the writer is blocked).
    fn process_with<H: Handler>(&mut self, now: Instant, handler: &mut H, write_threshold: usize) {
        #[cfg(feature = "tasks")]
        if let Some(tasks) = self.tasks.as_mut() {
            tasks.set_now(now);
        }
        if self.pending_changes != crate::server::ListChanges::NONE {
            self.flush_changes(&*handler);
        }
        #[cfg(feature = "tasks")]
        self.tell_tasks(now);
        self.process_input(now, handler, write_threshold);
        // Requests to the client that the input gave up on (a cancelled or failed request waiting
        // for input) are cancelled on the wire at once.
        self.ep.out.flush_cancellations();
        if self.ep.out.eof == Eof::Done {
            let _ = self.end_listens();
        }
    }

    fn process_input<H: Handler>(&mut self, now: Instant, handler: &mut H, write_threshold: usize) {
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
            match self.ep.next_frame(write_threshold, |_| true) {
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
            if let Some(event) = self.ep.finish_input() {
                handler.on_event(now, event.into());
            }
            self.drop_pending_input();
            #[cfg(feature = "tasks")]
            if let Some(table) = self.tasks.as_mut() {
                crate::server::tasks::task_input_ended(&mut self.ep.out, table, now);
            }
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

impl<'a, const IN_FLIGHT: usize, const OUTBOUND: usize> Engine<'a, IN_FLIGHT, OUTBOUND> {
    /// The receive buffer, and the state beside it for answering messages that arrived on `route`.
    pub(crate) fn split<'s, H>(
        &'s mut self,
        handler: &'s mut H,
        now: Instant,
        route: Route,
    ) -> (&'s LineBuffer<'a>, Parts<'s, 'a, H, OUTBOUND>) {
        let parts = Parts {
            handler,
            config: &self.config,
            server_info: self.server_info.with(&self.config.server_info),
            out: &mut self.ep.out,
            session: &mut self.session,
            slots: &mut self.in_flight,
            next_generation: &mut self.next_generation,
            input: &mut self.input,
            #[cfg(feature = "tasks")]
            tasks: &mut self.tasks,
            now,
            route,
        };
        (&self.ep.rx, parts)
    }

    /// Answers one received line; `spans` is the validator's record to fill.
    pub(super) fn handle_frame<H: Handler>(&mut self, now: Instant, frame: Frame, handler: &mut H, spans: &mut Spans) {
        let (rx, mut parts) = self.split(handler, now, Route::BYTE_STREAM);
        let value = match json::parse_spanned(rx.frame(frame), parts.config.limits.max_depth, spans) {
            Ok(value) => value,
            Err(error) => return parts.reject_unparsable(error, rx.frame(frame)),
        };
        if value.kind() != Kind::Array {
            parts.handle_message(value, false, spans);
            parts.retry_due_input(spans);
            return;
        }
        let accepts_batches = cfg!(feature = "legacy")
            && matches!(*parts.session, Session::Legacy { version, .. } if version.accepts_batches());
        let len = value.elements().take(MAX_BATCH_LEN + 1).count();
        if !accepts_batches {
            parts.reject(
                None,
                code::INVALID_REQUEST,
                format_args!("JSON-RPC batches are only accepted in protocol version 2025-03-26"),
            );
        } else if len == 0 {
            parts.reject(None, code::INVALID_REQUEST, format_args!("empty batch"));
        } else if len > MAX_BATCH_LEN {
            parts.reject(
                None,
                code::INVALID_REQUEST,
                format_args!("batches may hold at most {} messages", Decimal(MAX_BATCH_LEN as u64)),
            );
        } else {
            self.batch = Some(BatchCursor { frame, next: 0, mark: self.ep.out.tx.mark() });
        }
    }

    /// Answers the next element of the batch being served, as a message of its own (so the engine can
    /// pause between elements when the transmit buffer fills); at the end the answers are joined
    /// into one array where they can be (see `TxQueue::join_as_array`).
    pub(super) fn resume_batch<H: Handler>(
        &mut self,
        now: Instant,
        cursor: BatchCursor,
        handler: &mut H,
        spans: &mut Spans,
    ) {
        let (rx, mut parts) = self.split(handler, now, Route::BYTE_STREAM);
        let element = json::parse_spanned(rx.frame(cursor.frame), parts.config.limits.max_depth, spans)
            .ok()
            .and_then(|batch| batch.elements().nth(cursor.next));
        match element {
            Some(element) => {
                parts.handle_message(element, true, spans);
                parts.retry_due_input(spans);
                self.batch = Some(BatchCursor { next: cursor.next + 1, ..cursor });
            }
            None => {
                self.batch = None;
                // One array of responses, as JSON-RPC says a batch should be answered, when nothing
                // else (a notification, a request to the client) came in between and nothing was
                // transmitted meanwhile; otherwise each answer stays a message of its own.
                self.ep.out.tx.join_as_array(cursor.mark, is_response_line);
            }
        }
    }

    /// Answers a frame the framing layer dropped.
    pub(super) fn reject_frame<H: Handler>(&mut self, now: Instant, error: FrameError, handler: &mut H) {
        let (_, mut parts) = self.split(handler, now, Route::BYTE_STREAM);
        match error {
            FrameError::TooLong { limit } => parts.reject(
                None,
                code::INVALID_REQUEST,
                format_args!("message longer than the {}-byte limit; skipped", Decimal(limit as u64)),
            ),
            FrameError::Truncated { .. } => {}
        }
        parts.handler.on_event(now, crate::endpoint::Event::FrameDropped(error).into());
    }
}

/// Whether an output line is a response or an error (not a notification or a request).
fn is_response_line(line: &[u8]) -> bool {
    json::peek_member(line, "method").is_none() && json::peek_member(line, "jsonrpc").is_some()
}
