//! What the client does with each received message: answers to its requests (the handshake's
//! included), the server's requests (legacy) and notifications.

use crate::client::Config;
use crate::client::engine::send;
use crate::client::retry::{RETRYABLE, Record, RetryArea};
use crate::client::{ConnectError, Engine, EraPolicy, Event, Handler, InputAnswer, Notification, State};
use crate::endpoint::OutboundKey;
use crate::endpoint::{Outbox, SendError, answer_unparsable};
use crate::endpoint::{Outcome, Response, Route};
use crate::frame::{Frame, FrameError};
use crate::json::JsonWriter;
use crate::json::{self, Kind, Value};
use crate::jsonrpc::{self, ErrorMessage, Id, Message, WriteId, code};
use crate::mcp::input::ReceivedInput;
use crate::mcp::{ClientCapabilities, ServerCapabilities};
use crate::time::Instant;
use crate::version::{Era, ProtocolVersion};

/// Whether serving `text` may write an answer: a request from the server, or a message that is
/// not even an answer or a notification (it gets an error). Answers and notifications are read
/// while the transmit queue is full.
pub(crate) fn needs_answer(text: &[u8]) -> bool {
    json::peek_member(text, "method").is_some() == json::peek_member(text, "id").is_some()
}

impl<'a, const OUTBOUND: usize> Engine<'a, OUTBOUND> {
    /// The state beside the receive buffer, to serve a message while reading it.
    pub(crate) fn parts(&mut self) -> Parts<'_, 'a, OUTBOUND> {
        Parts {
            config: &self.config,
            out: &mut self.ep.out,
            state: &mut self.state,
            server: &mut self.server,
            retry: &mut self.retry,
            progress: &mut self.progress,
        }
    }

    pub(crate) fn handle_frame<H: Handler>(&mut self, now: Instant, frame: Frame, handler: &mut H) {
        let text = self.ep.rx.frame(frame);
        let mut parts = Parts {
            config: &self.config,
            out: &mut self.ep.out,
            state: &mut self.state,
            server: &mut self.server,
            retry: &mut self.retry,
            progress: &mut self.progress,
        };
        parts.handle(now, text, handler);
    }

    /// Answers a frame the framing layer dropped (too long: an error, as the server does), and
    /// reports it.
    pub(crate) fn drop_frame<H: Handler>(&mut self, now: Instant, error: FrameError, handler: &mut H) {
        if let FrameError::TooLong { limit } = error {
            let event = self.ep.out.reject(
                Route::BYTE_STREAM,
                None,
                code::INVALID_REQUEST,
                ErrorMessage::Named(format_args!("message longer than the {limit}-byte limit; skipped")),
                None,
            );
            handler.on_event(now, event.into());
        }
        handler.on_event(now, crate::endpoint::Event::FrameDropped(error).into());
    }
}

/// The engine's state apart from its receive buffer.
pub(crate) struct Parts<'s, 'a, const OUTBOUND: usize> {
    pub(crate) config: &'s Config<'a>,
    pub(crate) out: &'s mut Outbox<'a, OUTBOUND>,
    pub(crate) state: &'s mut State,
    pub(crate) server: &'s mut ServerCapabilities,
    pub(crate) retry: &'s mut RetryArea<'a>,
    pub(crate) progress: &'s mut [Option<(OutboundKey, Option<Instant>)>; OUTBOUND],
}

impl<const OUTBOUND: usize> Parts<'_, '_, OUTBOUND> {
    fn handle<H: Handler>(&mut self, now: Instant, text: &[u8], handler: &mut H) {
        let max_depth = self.config.limits.max_depth;
        let value = match json::parse(text, max_depth) {
            Ok(value) => value,
            Err(error) => {
                let out = &mut *self.out;
                return answer_unparsable(error, text, max_depth, |id, code, message| {
                    let event = out.reject(Route::BYTE_STREAM, id, code, message, None);
                    handler.on_event(now, event.into());
                });
            }
        };
        if value.kind() == Kind::Array {
            // No client request is ever sent in a batch, so no answer comes in one.
            let event = self.out.reject(
                Route::BYTE_STREAM,
                None,
                code::INVALID_REQUEST,
                ErrorMessage::Named(format_args!("JSON-RPC batches are not accepted by this client")),
                None,
            );
            return handler.on_event(now, event.into());
        }
        match jsonrpc::classify(value) {
            Ok(Message::Response { id, result }) => self.answer(now, Some(id), Outcome::Result(result), handler),
            Ok(Message::Error { id, error }) => self.answer(now, id, Outcome::from_error(error), handler),
            Ok(Message::Request { id, method, params }) => self.serve(now, id, method, params, handler),
            Ok(Message::Notification { method, params }) => self.notified(now, method, params, handler),
            Err(error) => {
                let event = self.out.reject(
                    Route::BYTE_STREAM,
                    error.id.as_ref().map(|id| id as &dyn WriteId),
                    code::INVALID_REQUEST,
                    ErrorMessage::Named(format_args!("{}", error.reason)),
                    None,
                );
                handler.on_event(now, event.into());
            }
        }
    }

    fn answer<H: Handler>(&mut self, now: Instant, id: Option<Id<'_>>, outcome: Outcome<'_>, handler: &mut H) {
        match self.out.answer(id) {
            Ok(entry) => self.outcome(now, Response { request: entry.key, outcome }, handler),
            Err(event) => handler.on_event(now, event.into()),
        }
    }

    /// The outcome of a request: the handshake's is the engine's, every other the handler's.
    pub(crate) fn outcome<H: Handler>(&mut self, now: Instant, response: Response<'_>, handler: &mut H) {
        match *self.state {
            State::Discovering(key, again) if key == response.request => {
                return self.discovered(now, response.outcome, again, handler);
            }
            State::Initializing(key) if key == response.request => {
                return self.initialized(now, response.outcome, handler);
            }
            _ => {}
        }
        let Some(record) = self.retry.by_current(response.request.id()) else {
            return handler.on_response(now, response);
        };
        if let Outcome::Result(result) = response.outcome
            && record.rounds < self.config.max_input_rounds
            && self.retry_with_input(now, &record, result, handler)
        {
            return;
        }
        self.retry.remove(&record);
        handler
            .on_response(now, Response { request: OutboundKey::from_id(record.original), outcome: response.outcome });
    }

    /// Answers the `inputRequests` of an `input_required` result through the handler and retries
    /// the request under a new id with them; `false` (nothing sent) for any other result, an input
    /// the client did not declare or the handler refused, or no room.
    fn retry_with_input<H: Handler>(
        &mut self,
        now: Instant,
        record: &Record,
        result: Value<'_>,
        handler: &mut H,
    ) -> bool {
        let input_required =
            result.get("resultType").and_then(|t| t.as_str()).is_some_and(|t| t.eq_str("input_required"));
        let State::Ready(version) = *self.state else { return false };
        if !input_required {
            return false;
        }
        let requests = result.get("inputRequests").filter(|r| r.kind() == Kind::Object);
        let request_state = result.get("requestState");
        let declared = self.config.capabilities;
        let answerable = requests
            .into_iter()
            .flat_map(|r| r.members())
            .all(|(_, entry)| ReceivedInput::from_entry(entry).is_some_and(|input| is_declared(&input, &declared)));
        if !answerable || (requests.is_none() && request_state.is_none()) {
            return false;
        }
        let kept = self.retry.params(record);
        let handler = core::cell::RefCell::new(handler);
        let refused = core::cell::Cell::new(false);
        let members = |w: &mut JsonWriter<'_>| {
            w.raw(kept);
            let mut first = kept.is_empty();
            if let Some(state) = request_state {
                w.next_key(&mut first, "requestState");
                w.value(state);
            }
            w.next_key(&mut first, "inputResponses");
            w.byte(b'{');
            let entries = requests.into_iter().flat_map(|r| r.members());
            if write_input_answers(w, entries, now, &mut **handler.borrow_mut()).is_some() {
                refused.set(true);
            }
            w.byte(b'}');
        };
        let method = RETRYABLE[usize::from(record.method)];
        let deadline = self.config.request_timeout.map(|timeout| now + timeout);
        match send(self.out, self.config, version, method, Some(&members), None, deadline) {
            Ok(key) if !refused.get() => {
                self.retry.advance(record, key);
                true
            }
            _ => false,
        }
    }

    /// Sends `server/discover` at 2026-07-28 (`again`: the retry after a `-32022`).
    pub(crate) fn discover(&mut self, now: Instant, again: bool) -> Result<(), SendError> {
        let deadline = Some(now + self.config.connect_timeout);
        let key = send(self.out, self.config, ProtocolVersion::LATEST, "server/discover", None, None, deadline)?;
        *self.state = State::Discovering(key, again);
        Ok(())
    }

    /// The answer to `server/discover`: modern if usable, once more after a `-32022` that lists
    /// 2026-07-28 as supported, else the fallback (or failure when pinned modern).
    fn discovered<H: Handler>(&mut self, now: Instant, outcome: Outcome<'_>, again: bool, handler: &mut H) {
        let usable = match outcome {
            Outcome::Result(result) => discover_result(result),
            _ => None,
        };
        if let Some((capabilities, result)) = usable {
            *self.server = capabilities;
            *self.state = State::Ready(ProtocolVersion::LATEST);
            return connected(now, ProtocolVersion::LATEST, capabilities, result, handler);
        }
        if !again && supports_latest_after_all(outcome) && self.discover(now, true).is_ok() {
            return;
        }
        if self.config.era == EraPolicy::Modern || outcome == Outcome::Closed {
            return self.fail(now, connect_error(outcome), handler);
        }
        handler.on_event(now, Event::FellBack);
        self.fall_back(now, handler);
    }

    /// Sends the fallback `initialize`; with no room for it yet (a full transmit buffer, or the
    /// timed-out probe's slot until its cancellation is written) it waits, and is tried again
    /// as the engine processes (after each `transmit_done`).
    pub(crate) fn fall_back<H: Handler>(&mut self, now: Instant, handler: &mut H) {
        match self.initialize(now) {
            Ok(()) => {}
            Err(SendError::Full | SendError::TooManyRequests) => *self.state = State::FallingBack,
            Err(_) => self.fail(now, ConnectError::Closed, handler),
        }
    }

    /// The answer to `initialize`: a version this crate implements and a capabilities object,
    /// then `notifications/initialized`.
    fn initialized<H: Handler>(&mut self, now: Instant, outcome: Outcome<'_>, handler: &mut H) {
        let Outcome::Result(result) = outcome else { return self.fail(now, connect_error(outcome), handler) };
        let version = result.get("protocolVersion").and_then(|v| v.as_str()).and_then(|v| v.as_plain());
        let Some(version) = version.and_then(ProtocolVersion::from_wire).filter(|v| v.era() == Era::Legacy) else {
            return self.fail(now, ConnectError::UnsupportedVersion, handler);
        };
        let Some(capabilities) = result.get("capabilities").filter(|c| c.kind() == Kind::Object) else {
            return self.fail(now, ConnectError::Invalid, handler);
        };
        let capabilities = ServerCapabilities::from_value(capabilities);
        *self.server = capabilities;
        *self.state = State::Ready(version);
        // Written after the answer; if there is no room now the server learns it from the next
        // request (servers serve requests after `initialize` without it, as most do).
        let _ = self.out.notify(Route::BYTE_STREAM, "notifications/initialized", None);
        connected(now, version, capabilities, result, handler);
    }

    /// Sends `initialize` at the newest legacy version.
    pub(crate) fn initialize(&mut self, now: Instant) -> Result<(), SendError> {
        // The tasks extension is defined in 2026-07-28 only.
        let capabilities = ClientCapabilities { tasks: false, ..self.config.capabilities };
        let (info, version) = (self.config.client_info, ProtocolVersion::LATEST_LEGACY);
        let params = |w: &mut JsonWriter<'_>| {
            w.raw(b"{\"protocolVersion\":");
            w.string(version.as_str());
            w.member("capabilities");
            capabilities.write(w);
            w.member("clientInfo");
            info.write(w, version);
            w.byte(b'}');
        };
        let deadline = Some(now + self.config.connect_timeout);
        let key = self.out.request(Route::BYTE_STREAM, "initialize", Some(&params), deadline)?;
        *self.state = State::Initializing(key);
        Ok(())
    }

    fn fail<H: Handler>(&mut self, now: Instant, error: ConnectError, handler: &mut H) {
        *self.state = State::Failed;
        handler.on_event(now, Event::ConnectFailed(error));
    }

    /// A request from the server: `ping`, or a request for input the client declared.
    fn serve<H: Handler>(
        &mut self,
        now: Instant,
        id: Id<'_>,
        method: crate::json::JsonStr<'_>,
        params: Option<Value<'_>>,
        handler: &mut H,
    ) {
        let declared = self.config.capabilities;
        let input = ReceivedInput::read(method, params).filter(|input| is_declared(input, &declared));
        if method.eq_str("ping") {
            // No room: the server's ping goes unanswered, as one whose answer was lost.
            let _ = self.out.write(Route::BYTE_STREAM, |w| {
                jsonrpc::write_result_head(w, &id);
                w.raw(b"{}}");
            });
            return;
        }
        let event = match input {
            Some(input) => {
                let mut answer = InputAnswer::Refused;
                let written = self.out.write(Route::BYTE_STREAM, |w| {
                    jsonrpc::write_result_head(w, &id);
                    answer = handler.on_input(now, input, w);
                    w.byte(b'}');
                    if answer != InputAnswer::Written {
                        // Nothing of a refused answer is written.
                        w.set_overflowed();
                    }
                });
                if written.is_ok() {
                    return;
                }
                self.out.reject(
                    Route::BYTE_STREAM,
                    Some(&id),
                    code::INTERNAL_ERROR,
                    ErrorMessage::Named(format_args!("the client could not answer {}", input.method())),
                    None,
                )
            }
            None => self.out.reject(
                Route::BYTE_STREAM,
                Some(&id),
                code::METHOD_NOT_FOUND,
                ErrorMessage::Named(format_args!("not offered by this client")),
                None,
            ),
        };
        handler.on_event(now, event.into());
    }

    fn notified<H: Handler>(
        &mut self,
        now: Instant,
        method: crate::json::JsonStr<'_>,
        params: Option<Value<'_>>,
        handler: &mut H,
    ) {
        if method.eq_str("notifications/cancelled") {
            let request = params.and_then(|p| p.get("requestId")).and_then(|id| id.as_i64());
            return handler.on_event(now, Event::Cancelled { request });
        }
        // A listen stream's: named by the listen request's id, which must still be open.
        let listen = Notification::subscription(params)
            .map(OutboundKey::from_id)
            .filter(|key| self.out.outbound.is_waiting(*key));
        if let Some(listen) = listen {
            return handler.on_listen_notification(now, listen, method, params);
        }
        let notification = Notification::read(method, params);
        if let Notification::Progress { request: Some(id), .. } = notification {
            self.progressed(now, id);
        }
        handler.on_notification(now, notification);
    }

    /// A request sent with progress reported progress: its deadline moves a whole timeout
    /// ahead, up to its cap.
    fn progressed(&mut self, now: Instant, id: i64) {
        let Some(timeout) = self.config.request_timeout else { return };
        let Some((key, cap)) = self.progress.iter().flatten().find(|(key, _)| key.id() == id).copied() else { return };
        let deadline = match cap {
            Some(cap) => (now + timeout).min(cap),
            None => now + timeout,
        };
        self.out.outbound.set_deadline(key, Some(deadline));
    }
}

/// Writes `"key":<answer>` for each question of `entries` (members of an `inputRequests` object),
/// separated by commas, each answer written by [`Handler::on_input`]. Returns the method of a
/// question the handler refused, if one was: the writer is then marked overflowed, so that nothing
/// of a refused round is sent.
pub(crate) fn write_input_answers<'v, H: Handler>(
    w: &mut JsonWriter<'_>,
    entries: impl Iterator<Item = (json::JsonStr<'v>, Value<'v>)>,
    now: Instant,
    handler: &mut H,
) -> Option<&'static str> {
    let mut refused = None;
    for (i, (key, entry)) in entries.enumerate() {
        if i > 0 {
            w.byte(b',');
        }
        w.json_str(key);
        w.byte(b':');
        let Some(input) = ReceivedInput::from_entry(entry) else { continue };
        if handler.on_input(now, input, w) != InputAnswer::Written {
            refused = Some(input.method());
            w.set_overflowed();
        }
    }
    refused
}

/// Whether the client declared the capability `input` needs.
pub(crate) fn is_declared(input: &ReceivedInput<'_>, declared: &ClientCapabilities) -> bool {
    match input {
        ReceivedInput::ElicitForm { .. } => declared.elicitation_form,
        ReceivedInput::ElicitUrl { .. } => declared.elicitation_url,
        ReceivedInput::Sample { .. } => declared.sampling,
        ReceivedInput::ListRoots => declared.roots.is_some(),
    }
}

/// A `DiscoverResult` this client can use: 2026-07-28 among `supportedVersions`, and
/// `capabilities`.
fn discover_result(result: Value<'_>) -> Option<(ServerCapabilities, Value<'_>)> {
    let versions = result.get("supportedVersions").filter(|v| v.kind() == Kind::Array)?;
    versions.elements().find(|v| v.as_str().is_some_and(|v| v.eq_str(ProtocolVersion::LATEST.as_str())))?;
    let capabilities = result.get("capabilities").filter(|c| c.kind() == Kind::Object)?;
    Some((ServerCapabilities::from_value(capabilities), result))
}

/// Whether `outcome` is a `-32022` (unsupported protocol version) whose `data.supported` lists
/// 2026-07-28, the version the probe was sent at: the client retries ("SHOULD retry with a
/// mutually supported version"), since the server says it speaks it.
fn supports_latest_after_all(outcome: Outcome<'_>) -> bool {
    let Outcome::Error { code, data: Some(data), .. } = outcome else { return false };
    let supported = data.get("supported").filter(|s| s.kind() == Kind::Array);
    code == i64::from(code::UNSUPPORTED_PROTOCOL_VERSION)
        && supported
            .into_iter()
            .flat_map(|s| s.elements())
            .any(|v| v.as_str().is_some_and(|v| v.eq_str(ProtocolVersion::LATEST.as_str())))
}

fn connect_error(outcome: Outcome<'_>) -> ConnectError {
    match outcome {
        Outcome::Error { code, .. } => ConnectError::Refused { code },
        Outcome::TimedOut => ConnectError::TimedOut,
        Outcome::Closed => ConnectError::Closed,
        _ => ConnectError::Invalid,
    }
}

/// Reports the connection, with the server's name and instructions from `result` (an
/// `InitializeResult`'s `serverInfo`, a `DiscoverResult`'s `_meta.serverInfo`).
fn connected<H: Handler>(
    now: Instant,
    version: ProtocolVersion,
    capabilities: ServerCapabilities,
    result: Value<'_>,
    handler: &mut H,
) {
    let info = result
        .get("serverInfo")
        .or_else(|| result.get("_meta").and_then(|m| m.get("serverInfo")))
        .or_else(|| result.get("_meta").and_then(|m| m.get("io.modelcontextprotocol/serverInfo")));
    let server_name = info.and_then(|i| i.get("name")).and_then(|n| n.as_str());
    let instructions = result.get("instructions").and_then(|i| i.as_str());
    handler.on_event(now, Event::Connected { version, capabilities, server_name, instructions });
}
