//! [`Engine`]: the protocol state of one client connection, driven with the handler passed to
//! each call.

use crate::client::retry::{RETRYABLE, RetryArea};
use crate::client::{Buffers, Config, EraPolicy, Handler, State};
use crate::endpoint::{Endpoint, Eof, Next, OutboundKey, Outbox, Outcome, Response, Route, SendError, Transmit};
use crate::json::{JsonWriter, Value};
use crate::mcp::{LoggingLevel, ServerCapabilities, meta};
use crate::storage::Storage;
use crate::time::Instant;
use crate::version::{Era, ProtocolVersion};

/// Writes the members of a request's `params` (`"name":"echo","arguments":{…}`), without the
/// braces: the engine adds them, and `_meta` in 2026-07-28.
pub type Params<'p> = &'p dyn Fn(&mut JsonWriter<'_>);

/// The protocol state of one connection to a server, over caller-provided buffers. `OUTBOUND`
/// requests may await their answers at once. See the [module docs](crate::client).
pub struct Engine<'a, const OUTBOUND: usize = 8> {
    pub(crate) config: Config<'a>,
    pub(crate) ep: Endpoint<'a, OUTBOUND>,
    pub(crate) state: State,
    pub(crate) server: ServerCapabilities,
    /// The params of 2026-07-28 requests that may need a retry with input.
    pub(crate) retry: RetryArea<'a>,
    /// The requests sent with progress, with the latest their deadline may move to.
    pub(crate) progress: [Option<(OutboundKey, Option<Instant>)>; OUTBOUND],
}

impl<'a, const OUTBOUND: usize> Engine<'a, OUTBOUND> {
    /// An engine over `buffers` with `config`. Call [`Engine::connect`] to start.
    pub fn new(config: Config<'a>, buffers: Buffers<'a>) -> Self {
        Engine::with_storage(config, buffers.rx, buffers.tx)
    }

    /// An engine over a receive and a transmit buffer that are each borrowed or, with `alloc`,
    /// owned.
    pub fn with_storage(config: Config<'a>, rx: impl Into<Storage<'a>>, tx: impl Into<Storage<'a>>) -> Self {
        Engine {
            ep: Endpoint::new(rx.into(), tx.into(), config.limits),
            config,
            state: State::Idle,
            server: ServerCapabilities::default(),
            retry: RetryArea::default(),
            progress: [None; OUTBOUND],
        }
    }

    /// This engine with `handler`, as a [`Connection`](crate::connection::Connection) an adapter
    /// can drive.
    pub fn bind<'e, H: Handler>(&'e mut self, handler: &'e mut H) -> crate::client::Bound<'e, 'a, H, OUTBOUND> {
        crate::client::Bound { engine: self, handler }
    }

    /// Gives the engine room to keep the params of 2026-07-28 requests that a server may answer
    /// `input_required`, to retry them with the answers (see the
    /// [module docs](crate::client#input-from-the-server)).
    pub fn set_retry_buffer(&mut self, buffer: impl Into<Storage<'a>>) {
        self.retry = RetryArea::new(buffer.into());
    }

    /// The configuration.
    pub fn config(&self) -> &Config<'a> {
        &self.config
    }

    /// Starts the connection: `server/discover` or `initialize`, per [`Config::era`]. Requests may
    /// be sent once [`Event::Connected`](crate::client::Event::Connected) was reported.
    pub fn connect(&mut self, now: Instant) -> Result<(), SendError> {
        if self.state != State::Idle {
            return Err(SendError::NotAvailable);
        }
        match self.config.era {
            EraPolicy::Legacy => self.initialize(now),
            EraPolicy::Auto | EraPolicy::Modern => self.parts().discover(now, false),
        }
    }

    /// Starts a new legacy session: `initialize` again, without the old session. A Streamable
    /// HTTP client does this when the server answers 404 to a request that carried its session
    /// (the session ended: [`session_expired`](crate::http::client::session_expired)).
    /// Until the answer, [`Engine::is_connecting`] is `true` and requests fail with
    /// [`SendError::NotAvailable`]; the answer is reported as a new
    /// [`Event::Connected`](crate::client::Event::Connected) (or `ConnectFailed`). Requests
    /// awaiting answers keep waiting. `initialize` waits for room (transmit, or a free slot of
    /// the outbound table) when there is none now. [`SendError::NotAvailable`] unless connected
    /// in a legacy era.
    pub fn reinitialize(&mut self, now: Instant) -> Result<(), SendError> {
        if !self.era().is_some_and(|version| version.era() == Era::Legacy) {
            return Err(SendError::NotAvailable);
        }
        match self.initialize(now) {
            Err(SendError::Full | SendError::TooManyRequests) => {
                self.state = State::FallingBack;
                Ok(())
            }
            other => other,
        }
    }

    /// Whether the handshake is under way: [`Engine::connect`] or [`Engine::reinitialize`] was
    /// called and its outcome is not known yet.
    pub fn is_connecting(&self) -> bool {
        matches!(self.state, State::Discovering(..) | State::FallingBack | State::Initializing(_))
    }

    /// Sends `initialize` at the newest legacy version.
    pub(crate) fn initialize(&mut self, now: Instant) -> Result<(), SendError> {
        self.parts().initialize(now)
    }

    /// The protocol version spoken, once connected: its [era](ProtocolVersion::era) is the
    /// verdict a host may cache for this server.
    pub fn era(&self) -> Option<ProtocolVersion> {
        match self.state {
            State::Ready(version) => Some(version),
            _ => None,
        }
    }

    /// Whether the handshake failed (see [`Event::ConnectFailed`](crate::client::Event::ConnectFailed)).
    pub fn is_failed(&self) -> bool {
        self.state == State::Failed
    }

    /// What the server offers, once connected.
    pub fn server_capabilities(&self) -> Option<ServerCapabilities> {
        self.era().map(|_| self.server)
    }

    /// How many requests await an answer.
    pub fn awaiting_answers(&self) -> usize {
        self.ep.out.outbound.len()
    }

    /// Sends the request `method` with the members of its `params`, once connected. Its answer
    /// reaches [`Handler::on_response`] with the returned key; with no answer by
    /// [`Config::request_timeout`] it is cancelled on the wire and reported as timed out.
    pub fn request(
        &mut self,
        now: Instant,
        method: &str,
        params: Option<Params<'_>>,
    ) -> Result<OutboundKey, SendError> {
        self.request_inner(now, method, params, false)
    }

    /// [`Engine::request`] asking for progress: the server's `notifications/progress` about it
    /// name its id ([`Notification::Progress`](crate::client::Notification::Progress)).
    pub fn request_with_progress(
        &mut self,
        now: Instant,
        method: &str,
        params: Option<Params<'_>>,
    ) -> Result<OutboundKey, SendError> {
        self.request_inner(now, method, params, true)
    }

    fn request_inner(
        &mut self,
        now: Instant,
        method: &str,
        params: Option<Params<'_>>,
        progress: bool,
    ) -> Result<OutboundKey, SendError> {
        let State::Ready(version) = self.state else { return Err(SendError::NotAvailable) };
        let deadline = self.config.request_timeout.map(|timeout| now + timeout);
        let token = progress.then(|| self.ep.out.outbound.next_key().id());
        if progress {
            // A slot for its cap: a free one, or one whose request is answered.
            let cap = self.config.max_request_time.map(|cap| now + cap);
            let key = self.ep.out.outbound.next_key();
            let outbound = &self.ep.out.outbound;
            if let Some(slot) =
                self.progress.iter_mut().find(|slot| slot.is_none_or(|(key, _)| !outbound.is_waiting(key)))
            {
                *slot = Some((key, cap));
            }
        }
        let retryable = RETRYABLE.iter().position(|m| *m == method).filter(|_| version.era() == Era::Modern);
        if let (Some(index), Some(params)) = (retryable, params) {
            // Kept for a retry with input, and sent from where it is kept.
            let mut w = JsonWriter::new(self.retry.spare());
            params(&mut w);
            if !w.is_overflowed() {
                let kept: &[u8] = w.into_written();
                let len = kept.len();
                let key =
                    send(&mut self.ep.out, &self.config, version, method, Some(&|w| w.raw(kept)), token, deadline)?;
                self.retry.keep(key, index as u8, len);
                return Ok(key);
            }
        }
        send(&mut self.ep.out, &self.config, version, method, params, token, deadline)
    }

    /// `ping` (legacy); in 2026-07-28, which has no `ping`, `server/discover` asks the same
    /// question: whether the server answers.
    pub fn ping(&mut self, now: Instant) -> Result<OutboundKey, SendError> {
        match self.era() {
            Some(version) if version.era() == Era::Modern => self.request(now, "server/discover", None),
            _ => self.request(now, "ping", None),
        }
    }

    /// `tools/list`, from `cursor` (the previous page's `nextCursor`) or the first page.
    pub fn list_tools(&mut self, now: Instant, cursor: Option<Value<'_>>) -> Result<OutboundKey, SendError> {
        self.list(now, "tools/list", cursor)
    }

    /// `prompts/list`; see [`Engine::list_tools`].
    pub fn list_prompts(&mut self, now: Instant, cursor: Option<Value<'_>>) -> Result<OutboundKey, SendError> {
        self.list(now, "prompts/list", cursor)
    }

    /// `resources/list`; see [`Engine::list_tools`].
    pub fn list_resources(&mut self, now: Instant, cursor: Option<Value<'_>>) -> Result<OutboundKey, SendError> {
        self.list(now, "resources/list", cursor)
    }

    /// `resources/templates/list`; see [`Engine::list_tools`].
    pub fn list_resource_templates(
        &mut self,
        now: Instant,
        cursor: Option<Value<'_>>,
    ) -> Result<OutboundKey, SendError> {
        self.list(now, "resources/templates/list", cursor)
    }

    pub(super) fn list(
        &mut self,
        now: Instant,
        method: &str,
        cursor: Option<Value<'_>>,
    ) -> Result<OutboundKey, SendError> {
        match cursor {
            Some(cursor) => self.request(
                now,
                method,
                Some(&|w: &mut JsonWriter<'_>| {
                    w.key("cursor");
                    w.value(cursor);
                }),
            ),
            None => self.request(now, method, None),
        }
    }

    /// `tools/call` of the tool `name` with `arguments` (a JSON object, or none).
    pub fn call_tool(
        &mut self,
        now: Instant,
        name: &str,
        arguments: Option<Value<'_>>,
    ) -> Result<OutboundKey, SendError> {
        self.request(now, "tools/call", Some(&|w: &mut JsonWriter<'_>| write_named(w, "name", name, arguments)))
    }

    /// `prompts/get` of the prompt `name` with `arguments` (a JSON object of strings, or none).
    pub fn get_prompt(
        &mut self,
        now: Instant,
        name: &str,
        arguments: Option<Value<'_>>,
    ) -> Result<OutboundKey, SendError> {
        self.request(now, "prompts/get", Some(&|w: &mut JsonWriter<'_>| write_named(w, "name", name, arguments)))
    }

    /// `resources/read` of `uri`.
    pub fn read_resource(&mut self, now: Instant, uri: &str) -> Result<OutboundKey, SendError> {
        self.request(now, "resources/read", Some(&|w: &mut JsonWriter<'_>| write_named(w, "uri", uri, None)))
    }

    /// `resources/subscribe` to `uri` (legacy; updates come as
    /// [`Notification::ResourceUpdated`](crate::client::Notification::ResourceUpdated)).
    pub fn subscribe(&mut self, now: Instant, uri: &str) -> Result<OutboundKey, SendError> {
        self.request(now, "resources/subscribe", Some(&|w: &mut JsonWriter<'_>| write_named(w, "uri", uri, None)))
    }

    /// `resources/unsubscribe` from `uri` (legacy).
    pub fn unsubscribe(&mut self, now: Instant, uri: &str) -> Result<OutboundKey, SendError> {
        self.request(now, "resources/unsubscribe", Some(&|w: &mut JsonWriter<'_>| write_named(w, "uri", uri, None)))
    }

    /// `logging/setLevel` (legacy; in 2026-07-28 the level goes with each request).
    pub fn set_logging_level(&mut self, now: Instant, level: LoggingLevel) -> Result<OutboundKey, SendError> {
        self.request(
            now,
            "logging/setLevel",
            Some(&|w: &mut JsonWriter<'_>| {
                w.key("level");
                w.string(level.as_str());
            }),
        )
    }

    /// `completion/complete` of the argument `argument` (partly typed as `value`) of `reference`
    /// (`{"type":"ref/prompt","name":…}` or `{"type":"ref/resource","uri":…}`).
    pub fn complete(
        &mut self,
        now: Instant,
        reference: Value<'_>,
        argument: &str,
        value: &str,
    ) -> Result<OutboundKey, SendError> {
        self.request(
            now,
            "completion/complete",
            Some(&|w: &mut JsonWriter<'_>| {
                w.key("ref");
                w.value(reference);
                w.raw(b",\"argument\":{\"name\":");
                w.string(argument);
                w.member("value");
                w.string(value);
                w.byte(b'}');
            }),
        )
    }

    /// `subscriptions/listen` (2026-07-28): a stream of the notifications `notifications` asks for
    /// (the members of its `notifications` object: `"toolsListChanged":true`,
    /// `"resourceSubscriptions":["file:///…"]`, …). It has no timeout; its notifications reach
    /// [`Handler::on_listen_notification`] under the returned key (the first is
    /// `notifications/subscriptions/acknowledged`), and its result when the server ends it. End
    /// it with [`Engine::cancel`]. [`SendError::NotAvailable`] in a legacy session, which has no
    /// listen streams.
    pub fn listen(&mut self, now: Instant, notifications: Params<'_>) -> Result<OutboundKey, SendError> {
        let _ = now;
        let State::Ready(version) = self.state else { return Err(SendError::NotAvailable) };
        if version.era() != Era::Modern {
            return Err(SendError::NotAvailable);
        }
        let members = |w: &mut JsonWriter<'_>| {
            w.raw(b"\"notifications\":{");
            notifications(w);
            w.byte(b'}');
        };
        send(&mut self.ep.out, &self.config, version, "subscriptions/listen", Some(&members), None, None)
    }

    /// Gives up on a request: `notifications/cancelled` goes out (now, or once the transmit
    /// buffer has room), a late answer is ignored, and [`Handler::on_response`] is not called for
    /// it. `false` if it awaits no answer.
    pub fn cancel(&mut self, key: OutboundKey) -> bool {
        // A request retried with input is on the wire under another id.
        match self.retry.by_original(key.id()) {
            Some(record) => {
                self.retry.remove(&record);
                self.ep.out.cancel(OutboundKey::from_id(record.current))
            }
            None => self.ep.out.cancel(key),
        }
    }

    /// Sends the notification `method` with `params` (a whole JSON object written by the closure).
    pub fn notify(&mut self, method: &str, params: Option<&dyn Fn(&mut JsonWriter<'_>)>) -> Result<(), SendError> {
        self.ep.out.notify(Route::BYTE_STREAM, method, params)
    }

    /// Copies `data` into the receive buffer and processes what it completes. Returns how many
    /// bytes were taken (fewer when the engine holds input back until bytes are transmitted).
    pub fn handle_input<H: Handler>(&mut self, now: Instant, data: &[u8], handler: &mut H) -> usize {
        if !self.ep.is_open() {
            return 0;
        }
        let mut taken = 0;
        while let Some(rest) = data.get(taken..).filter(|rest| !rest.is_empty()) {
            let n = self.ep.rx.push(rest);
            if n == 0 {
                break;
            }
            taken += n;
            self.process(now, handler);
        }
        taken
    }

    /// Free space at the end of the receive buffer, to read into directly.
    pub fn rx_spare(&mut self) -> &mut [u8] {
        if !self.ep.is_open() {
            return &mut [];
        }
        self.ep.rx.spare()
    }

    /// Reports `n` bytes read into [`Engine::rx_spare`] and processes them.
    pub fn rx_commit<H: Handler>(&mut self, now: Instant, n: usize, handler: &mut H) {
        if self.ep.is_open() {
            self.ep.rx.commit(n);
        }
        self.process(now, handler);
    }

    /// Reports the end of the input stream: what is buffered is served, then every request still
    /// awaiting an answer is reported [`Outcome::Closed`].
    pub fn handle_eof<H: Handler>(&mut self, now: Instant, handler: &mut H) {
        self.ep.end_input();
        self.process(now, handler);
    }

    /// The next bytes to write, with their stream.
    #[must_use = "the bytes to write are lost if not written"]
    pub fn poll_transmit(&self) -> Option<Transmit<'_>> {
        self.ep.out.tx.pending()
    }

    /// Reports that `n` bytes of the last [`Engine::poll_transmit`] were written.
    pub fn transmit_done<H: Handler>(&mut self, now: Instant, n: usize, handler: &mut H) {
        self.ep.out.tx.consume(n);
        self.ep.out.flush_cancellations();
        self.process(now, handler);
    }

    /// The writer cannot take [`Engine::poll_transmit`] yet: returns the pending output with the
    /// receive buffer's free space, so the caller reads on while the write waits (see
    /// [`Connection::transmit_blocked`](crate::connection::Connection::transmit_blocked)): answers
    /// and notifications are served without transmit room, so a server that pipelines its
    /// answers while this client pipelines its requests never leaves both sides waiting to write.
    pub fn transmit_blocked(&mut self) -> (Option<Transmit<'_>>, &mut [u8]) {
        let spare = if self.ep.is_open() { self.ep.rx.spare() } else { &mut [][..] };
        (self.ep.out.tx.pending(), spare)
    }

    /// The earliest deadline of the requests awaiting answers.
    #[must_use = "a deadline that is not waited for never expires its requests"]
    pub fn poll_timeout(&self) -> Option<Instant> {
        self.ep.poll_timeout()
    }

    /// Expires the requests whose deadline passed: each is cancelled on the wire and reported
    /// timed out (a handshake that timed out falls back or fails).
    pub fn handle_timeout<H: Handler>(&mut self, now: Instant, handler: &mut H) {
        while let Some(entry) = self.ep.out.expire(now) {
            // The cancellation goes out before anything the outcome sends (the fallback's
            // `initialize` after a probe that timed out).
            self.ep.out.flush_cancellations();
            self.parts().outcome(now, Response { request: entry.key, outcome: Outcome::TimedOut }, handler);
        }
        self.ep.out.flush_cancellations();
        self.process(now, handler);
    }

    /// The input has ended and every pending byte has been transmitted.
    pub fn is_finished(&self) -> bool {
        self.ep.out.eof == Eof::Done && self.ep.out.tx.is_empty()
    }

    /// Serves the buffered messages. Answers and notifications are read while the transmit
    /// queue is full; a request from the server waits for room to answer it.
    fn process<H: Handler>(&mut self, now: Instant, handler: &mut H) {
        if self.state == State::FallingBack {
            // The probe's cancellation first, then `initialize` if it fits now.
            self.ep.out.flush_cancellations();
            self.parts().fall_back(now, handler);
        }
        let held = loop {
            match self.ep.next_frame(usize::MAX, crate::client::incoming::needs_answer) {
                Next::Frame(frame) => self.handle_frame(now, frame, handler),
                Next::Dropped(error) => self.drop_frame(now, error, handler),
                Next::Held => break true,
                Next::Empty => break false,
            }
        };
        self.ep.out.flush_cancellations();
        // The input ends once everything buffered was served: a message held for transmit room
        // (and what follows it) is served after the next `transmit_done`.
        if self.ep.out.eof == Eof::Pending && !held {
            if let Some(event) = self.ep.finish_input() {
                handler.on_event(now, event.into());
            }
            while let Some(entry) = self.ep.out.drain() {
                if !entry.cancel_pending {
                    self.parts().outcome(now, Response { request: entry.key, outcome: Outcome::Closed }, handler);
                }
            }
        }
    }
}

/// Writes `"<key>":<name>` and, if given, `,"arguments":<arguments>`.
pub(crate) fn write_named(w: &mut JsonWriter<'_>, key: &str, name: &str, arguments: Option<Value<'_>>) {
    w.key(key);
    w.string(name);
    if let Some(arguments) = arguments {
        w.member("arguments");
        w.value(arguments);
    }
}

/// Writes a request: params are the members `params` writes, then `_meta` (2026-07-28: the
/// version, capabilities and client info; any era: the progress token).
pub(crate) fn send<const OUTBOUND: usize>(
    out: &mut Outbox<'_, OUTBOUND>,
    config: &Config<'_>,
    version: ProtocolVersion,
    method: &str,
    params: Option<Params<'_>>,
    progress_token: Option<i64>,
    deadline: Option<Instant>,
) -> Result<OutboundKey, SendError> {
    let modern = version.era() == Era::Modern;
    if params.is_none() && !modern && progress_token.is_none() {
        return out.request(Route::BYTE_STREAM, method, None, deadline);
    }
    let (info, capabilities) = (config.client_info, config.capabilities);
    let write = |w: &mut JsonWriter<'_>| {
        w.byte(b'{');
        let start = w.len();
        if let Some(params) = params {
            params(w);
        }
        let comma = |w: &mut JsonWriter<'_>| {
            if w.len() > start {
                w.byte(b',');
            }
        };
        if modern {
            comma(w);
            w.key("_meta");
            meta::write_request_meta(w, version, &capabilities, &info, config.log_level, progress_token);
        } else if let Some(token) = progress_token {
            comma(w);
            w.raw(b"\"_meta\":{\"progressToken\":");
            w.i64(token);
            w.byte(b'}');
        }
        w.byte(b'}');
    };
    out.request(Route::BYTE_STREAM, method, Some(&write), deadline)
}
