//! Asking the client for input: elicitation, sampling and roots, one API for both eras.
//!
//! A handler that needs input answers with [`ToolReply::input_required`] (or the same on a prompt or
//! resource reply), names each [`InputRequest`] under a key, and may keep state for the next round.
//! In 2026-07-28 the engine answers with an `InputRequiredResult` (`inputRequests` and a sealed
//! `requestState`, see [`StateSealer`](crate::server::StateSealer)); the client retries the request
//! with `inputResponses`, and the handler is called again with the answers in
//! [`RequestContext::input`](crate::server::RequestContext::input) and its state in
//! [`RequestContext::request_state`](crate::server::RequestContext::request_state).
//!
//! A [deferred](crate::server::ToolReply::defer) request asks in the era's own way: in 2026-07-28
//! its answer is the input-required result ([`Engine::reply_input`]; the retry is a new request);
//! in a legacy session the application sends the requests to the client itself while the request
//! waits ([`Engine::request_input`]; the answers reach
//! [`Handler::on_response`](crate::server::Handler::on_response)).
//!
//! [`ToolReply::input_required`]: crate::server::ToolReply::input_required

use crate::endpoint::{Framing, OutboundKey, SendError};
use crate::json::JsonWriter;
use crate::jsonrpc::{ErrorMessage, code};
use crate::mcp::ClientCapabilities;
pub use crate::mcp::input::InputRequest;
use crate::server::legacy_input::LEGACY_INPUT;
use crate::server::reply::{Outgoing, ReplyKind, ResultType};
use crate::server::seal::{MAX_REQUEST_STATE, MAX_SEALED_STATE, StateBinding};
use crate::server::{Deferred, Engine, ReplyError, Session};
use crate::text::Plain;
use crate::time::Instant;
use crate::version::Era;

/// Most input requests one answer may carry.
pub const MAX_INPUT_REQUESTS: usize = 4;

/// Longest key of an input request in a legacy session, in bytes: the engine keeps each key until
/// its answer comes (a 2026-07-28 answer keeps none, and takes any key). A longer one fails the
/// answer with `-32603`.
pub const MAX_INPUT_KEY_LEN: usize = 32;

const NOT_AN_OBJECT: &str = "an input request's params are not a JSON object";

/// What the engine knows about a request when its handler asks for input.
#[derive(Clone, Copy, Debug)]
pub(crate) struct InputScope<'a> {
    pub(crate) binding: StateBinding<'a>,
    pub(crate) client: ClientCapabilities,
    pub(crate) sealer: Option<&'a dyn crate::server::StateSealer>,
}

/// The answer "input required": the requests for the client, and state for the next round. Add the
/// requests first, then the state, then [`finish`](InputReply::finish).
#[must_use = "a reply is sent by finishing it; dropped, it answers with an internal error"]
pub struct InputReply<'a> {
    out: Outgoing<'a>,
    scope: Option<InputScope<'a>>,
    requests: usize,
    needs: ClientCapabilities,
    missing: bool,
    requests_closed: bool,
    state_written: bool,
    invalid: Option<&'static str>,
}

impl<'a> InputReply<'a> {
    pub(crate) fn new(mut out: Outgoing<'a>, scope: Option<InputScope<'a>>) -> Self {
        out.set_result_type(ResultType::InputRequired);
        InputReply {
            out,
            scope,
            requests: 0,
            needs: ClientCapabilities::NONE,
            missing: false,
            requests_closed: false,
            state_written: false,
            invalid: None,
        }
    }

    /// Asks the client for `request`, its answer to come back under `key` (in a legacy session at
    /// most [`MAX_INPUT_KEY_LEN`] bytes).
    #[inline(always)] // By value in the API, in place here: no copy of the reply per step.
    pub fn request(mut self, key: &str, request: InputRequest<'_>) -> Self {
        self.push_request(key, request);
        self
    }

    fn push_request(&mut self, key: &str, request: InputRequest<'_>) {
        if !cfg!(feature = "input") {
            return;
        }
        let version = self.out.version();
        if !request.is_supported_by(&self.client()) {
            request.add_needs(&mut self.needs);
            self.missing = true;
            return;
        }
        if self.open_request(key) && !request.write(self.out.writer(), version) {
            self.invalid = Some(NOT_AN_OBJECT);
        }
    }

    /// Asks the client's model (`sampling/createMessage`, as [`InputRequest::Sample`]) with params
    /// formatted straight into the answer: no buffer holds them first. `params` must format one
    /// JSON object (`messages`, `maxTokens`, …; checked as [`JsonWriter::json_fmt`] checks), and
    /// one with `tools` needs the client's `sampling.tools`, as for [`request`](Self::request).
    #[inline(always)]
    pub fn sample_fmt(mut self, key: &str, params: core::fmt::Arguments<'_>) -> Self {
        self.push_sample_fmt(key, params);
        self
    }

    #[inline(never)] // Its checks in a frame of their own, not the handler's.
    fn push_sample_fmt(&mut self, key: &str, params: core::fmt::Arguments<'_>) {
        if !cfg!(feature = "input") {
            return;
        }
        // Whether the client samples at all, before anything is written (any params will do).
        let client = self.client();
        let any = InputRequest::Sample { params: "{}" };
        if !any.is_supported_by(&client) {
            any.add_needs(&mut self.needs);
            self.missing = true;
            return;
        }
        if !self.open_request(key) {
            return;
        }
        let w = self.out.writer();
        w.raw(b"{\"method\":\"sampling/createMessage\",\"params\":");
        let start = w.len();
        if !w.json_fmt(params, true) {
            self.invalid = Some(NOT_AN_OBJECT);
            return;
        }
        // Written (or overflowed, which fails the answer anyway): read back as `InputRequest::Sample`
        // reads its params, for the tools they may offer.
        let written = core::str::from_utf8(w.written().get(start..).unwrap_or_default()).unwrap_or_default();
        let request = InputRequest::Sample { params: written };
        if !request.is_supported_by(&client) {
            request.add_needs(&mut self.needs);
            self.missing = true;
        }
        self.out.writer().byte(b'}');
    }

    /// The capabilities of the client being asked (none when input is not available here). Out of
    /// line: both ways of adding a request had a copy.
    #[inline(never)]
    fn client(&self) -> ClientCapabilities {
        self.scope.map(|s| s.client).unwrap_or_default()
    }

    /// Writes the next request's `"key":`, opening `inputRequests` for the first; `false`, with the
    /// answer marked invalid, once the requests are closed or full.
    fn open_request(&mut self, key: &str) -> bool {
        if self.requests_closed {
            self.invalid = Some("input requests must precede the request state");
            return false;
        }
        if self.requests == MAX_INPUT_REQUESTS {
            self.invalid = Some("too many input requests in one answer");
            return false;
        }
        // A legacy session keeps each key until its answer comes (2026-07-28 keeps none).
        if self.out.version().served_era() == Era::Legacy && key.len() > MAX_INPUT_KEY_LEN {
            self.invalid = Some("an input request key is too long");
            return false;
        }
        if self.requests == 0 {
            self.out.field("inputRequests");
            self.out.writer().byte(b'{');
        } else {
            self.out.writer().byte(b',');
        }
        let w = self.out.writer();
        w.string(key);
        w.byte(b':');
        self.requests += 1;
        true
    }

    /// Keeps `state` (at most [`MAX_REQUEST_STATE`] bytes) for the next round, sealed by the
    /// configured [`StateSealer`](crate::server::StateSealer).
    #[inline(always)]
    pub fn state(mut self, state: &[u8]) -> Self {
        self.push_state(state);
        self
    }

    fn push_state(&mut self, state: &[u8]) {
        if !cfg!(feature = "input") {
            return;
        }
        if self.state_written || state.len() > MAX_REQUEST_STATE {
            self.invalid = Some("the request state is written twice or longer than MAX_REQUEST_STATE");
            return;
        }
        self.close_requests();
        let Some(scope) = self.scope else {
            self.invalid = Some("input is not available for this request");
            return;
        };
        let mut sealed = [0u8; MAX_SEALED_STATE];
        let len = match scope.sealer {
            Some(sealer) => sealer.seal(&scope.binding, state, &mut sealed),
            None => sealed.get_mut(..state.len()).map(|out| {
                out.copy_from_slice(state);
                state.len()
            }),
        };
        let Some(len) = len else {
            self.invalid = Some("the sealed request state does not fit");
            return;
        };
        self.out.field("requestState");
        self.out.writer().base64_string(&sealed[..len]);
        self.state_written = true;
    }

    /// Closes the `inputRequests` object (once; later requests are refused).
    fn close_requests(&mut self) {
        if self.requests > 0 && !self.requests_closed {
            self.out.writer().byte(b'}');
        }
        self.requests_closed = true;
    }

    /// Sends the answer. The client gets `-32021` (2026-07-28) or `-32603` (legacy) instead if a
    /// request needs a capability it did not declare, and `-32603` if the reply is malformed or the
    /// build has no input from the client (the core's cargo feature `input`).
    #[inline(always)]
    pub fn finish(mut self) {
        self.send();
        self.out.answered();
    }

    /// [`finish`](Self::finish), in place.
    fn send(&mut self) {
        if !cfg!(feature = "input") {
            return self.out.fail(
                code::INTERNAL_ERROR,
                ErrorMessage::Named(format_args!("asking the client for input is not in this build")),
                None,
            );
        }
        if self.missing {
            let needs = self.needs;
            let data = |w: &mut JsonWriter<'_>| {
                w.raw(b"{\"requiredCapabilities\":");
                needs.write(w);
                w.byte(b'}');
            };
            // -32021 in 2026-07-28; a legacy session has no such code.
            let code = match self.out.version().served_era() {
                Era::Modern => code::MISSING_CLIENT_CAPABILITY,
                _ => code::INTERNAL_ERROR,
            };
            let message = format_args!("the request needs a capability the client did not declare");
            return self.out.fail(code, ErrorMessage::Named(message), Some(&data));
        }
        // (The first problem found is the one told.)
        if self.requests == 0 && (!self.state_written || self.out.version().served_era() == Era::Legacy) {
            self.invalid =
                self.invalid.or(Some("an input-required answer needs input requests (or, in 2026-07-28, state)"));
        }
        if let Some(reason) = self.invalid {
            return self.out.fail(
                code::INTERNAL_ERROR,
                ErrorMessage::Named(format_args!("{reason}", reason = Plain(reason))),
                None,
            );
        }
        self.close_requests();
        // A 2025-11-25 task keeps its questions in the task table, as a 2026-07-28 one: they go to
        // the client through `tasks/result` (see `tasks::ask`).
        #[cfg(feature = "tasks")]
        if self.out.answers_a_task() {
            return self.out.finish(None);
        }
        if self.out.version().served_era() == Era::Legacy {
            // The engine asks the client itself (see `legacy_input`). A build without the legacy
            // era serves no legacy session, and links none of that.
            if !LEGACY_INPUT || !self.out.finish_for_legacy_input() {
                self.out.fail(
                    code::INTERNAL_ERROR,
                    ErrorMessage::Named(format_args!("a deferred answer cannot ask for input in a legacy session")),
                    None,
                );
            }
            return;
        }
        self.out.finish(None);
    }
}

impl<'a, const IN_FLIGHT: usize, const OUTBOUND: usize> Engine<'a, IN_FLIGHT, OUTBOUND> {
    /// Starts the input-required answer to a deferred 2026-07-28 request (a tool call, a prompt, a
    /// resource read): the client's capabilities are those the request declared, and its state is
    /// sealed for `name` (the tool or prompt name, or the resource URI, as the retry will carry it)
    /// at `now`. The client retries with a new request, served from the start. Errors as for
    /// [`Engine::reply_tool`], and [`ReplyError::NotAvailable`] for a legacy request (ask with
    /// [`Engine::request_input`] there).
    pub fn reply_input<'r>(
        &'r mut self,
        now: Instant,
        deferred: &Deferred,
        name: &'r str,
    ) -> Result<InputReply<'r>, ReplyError> {
        let entry = self.slot(deferred).ok_or(ReplyError::Unknown)?;
        let asks = matches!(deferred.kind, ReplyKind::Tool | ReplyKind::Resource | ReplyKind::Prompt);
        // A 2025-11-25 task asks through `tasks/result` (see `tasks::ask`).
        #[cfg(feature = "tasks")]
        let modern = entry.version.served_era() == Era::Modern || entry.route == crate::server::tasks::TASK_ROUTE;
        #[cfg(not(feature = "tasks"))]
        let modern = entry.version.served_era() == Era::Modern;
        if !cfg!(feature = "input") || !modern || !asks {
            return Err(ReplyError::NotAvailable);
        }
        let client = entry.client;
        let sealer = self.config.state_sealer;
        let binding = StateBinding { method: deferred.kind.method(), name, now };
        let out = self.reopen(deferred, deferred.kind)?;
        Ok(InputReply::new(out, Some(InputScope { binding, client, sealer })))
    }

    /// Asks the client of a legacy session for `request` (elicitation, sampling, roots) on behalf of
    /// a deferred request, on that request's stream (the session's notification route when the
    /// request is answered as a bare HTTP body). The answer, a timeout
    /// ([`Config::request_timeout`](crate::server::Config::request_timeout)) or the end of input
    /// reaches [`Handler::on_response`](crate::server::Handler::on_response) with the returned key.
    /// Errors: [`SendError::NotAvailable`] for a 2026-07-28 request (answer with
    /// [`Engine::reply_input`] there), a legacy task's, or one that is over, [`SendError::MissingCapability`] if the
    /// client did not declare what `request` needs, [`SendError::Malformed`] for params that are not
    /// well-formed, and those of [`Engine::send_request`](crate::server::Engine::send_request).
    pub fn request_input(
        &mut self,
        now: Instant,
        deferred: &Deferred,
        request: InputRequest<'_>,
    ) -> Result<OutboundKey, SendError> {
        let slot = self.live_slot(deferred)?;
        let Some(entry) = self.in_flight[slot].as_ref() else { return Err(SendError::NotAvailable) };
        let version = entry.version;
        let legacy = matches!(self.session, Session::Legacy { .. });
        if !LEGACY_INPUT || version.served_era() != Era::Legacy || !legacy {
            return Err(SendError::NotAvailable);
        }
        // A 2025-11-25 task would ask through `tasks/result` (not served yet).
        #[cfg(feature = "tasks")]
        if entry.route == crate::server::tasks::TASK_ROUTE {
            return Err(SendError::NotAvailable);
        }
        if !request.is_supported_by(&entry.client) {
            return Err(SendError::MissingCapability);
        }
        if !request.is_well_formed() {
            return Err(SendError::Malformed);
        }
        // A bare-body answer carries one message, the answer: the request goes on the session's
        // own stream then, as any other request to the client.
        let route = if entry.route.framing == Framing::Body { self.ep.out.notify_route } else { entry.route };
        let deadline = self.config.request_timeout.map(|timeout| now + timeout);
        let params = |w: &mut JsonWriter<'_>| {
            // Cannot fail: checked above.
            let _ = request.write_params(w, version);
        };
        self.ep.out.request(route, request.method(), Some(&params), deadline)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::version::ProtocolVersion;

    fn written(request: InputRequest<'_>, version: ProtocolVersion) -> Option<std::string::String> {
        let mut buf = [0u8; 512];
        let mut w = JsonWriter::new(&mut buf);
        let ok = request.write(&mut w, version);
        ok.then(|| std::string::String::from_utf8(w.written().to_vec()).unwrap())
    }

    #[test]
    fn url_elicitations_carry_their_id_in_the_legacy_era_only() {
        let url = InputRequest::ElicitUrl { message: "m", url: "https://x", elicitation_id: "e1" };
        assert_eq!(
            written(url, ProtocolVersion::V2025_11_25).unwrap(),
            r#"{"method":"elicitation/create","params":{"mode":"url","message":"m","url":"https://x","elicitationId":"e1"}}"#
        );
        assert_eq!(
            written(url, ProtocolVersion::V2026_07_28).unwrap(),
            r#"{"method":"elicitation/create","params":{"mode":"url","message":"m","url":"https://x"}}"#
        );
    }

    #[test]
    fn sampling_params_must_be_an_object_and_tools_need_their_capability() {
        assert_eq!(written(InputRequest::Sample { params: "[1]" }, ProtocolVersion::LATEST), None);
        assert_eq!(written(InputRequest::Sample { params: "{" }, ProtocolVersion::LATEST), None);
        let plain = InputRequest::Sample { params: r#"{"messages":[],"maxTokens":1}"# };
        let tools = InputRequest::Sample { params: r#"{"messages":[],"maxTokens":1,"tools":[]}"# };
        let sampling = ClientCapabilities { sampling: true, ..ClientCapabilities::NONE };
        assert!(plain.is_supported_by(&sampling));
        assert!(!tools.is_supported_by(&sampling));
        assert!(tools.is_supported_by(&ClientCapabilities { sampling_tools: true, ..sampling }));
        assert!(!plain.is_supported_by(&ClientCapabilities::NONE));
    }
}
