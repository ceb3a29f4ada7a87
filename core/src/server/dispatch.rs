//! Routing received messages: era selection, protocol methods, and hand-off to the handler.
//!
//! The era is chosen per request, as a dual-era server must: a request whose `params._meta` carries
//! `io.modelcontextprotocol/…` fields is served statelessly in 2026-07-28; `initialize` opens a legacy
//! session; any other request is served in the legacy session, or refused before one exists.

use crate::text::Plain;
use core::fmt;

use crate::endpoint::{Outbox, Outcome, Response, Route, answer_unparsable};
use crate::json::{JsonStr, JsonWriter, Kind, ScanError, Spans, Value};
use crate::jsonrpc::{EnvelopeError, ErrorMessage, Id, Message, WriteId, classify_spanned, code};
use crate::mcp::meta::{META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION, Meta};
use crate::mcp::{ClientCapabilities, ServerCapabilities};
use crate::server::handler::RequestContext;
use crate::server::params::{Params, Picked};
use crate::server::reply::{DeferSlots, InFlight, Outgoing, ReplyId};
use crate::server::server_info::ServerInfo;
use crate::server::{Config, Event, Handler, Received, Session};
use crate::time::Instant;
use crate::version::{Era, ProtocolVersion};

/// Most elements a JSON-RPC batch (2025-03-26 only) may have; larger batches are refused with `-32600`.
pub const MAX_BATCH_LEN: usize = 64;

/// The engine's state, split so that a received message can be read while answering, with the
/// handler of this call and the route answers go to.
pub(crate) struct Parts<'s, 'a, H, const OUTBOUND: usize> {
    /// The application, for this call.
    pub(crate) handler: &'s mut H,
    pub(crate) config: &'s Config<'a>,
    /// `config.server_info`, with its text for 2026-07-28 results.
    pub(crate) server_info: ServerInfo<'s>,
    /// The endpoint's sending half: answers, requests to the client, errors.
    pub(crate) out: &'s mut Outbox<'a, OUTBOUND>,
    pub(crate) session: &'s mut Session,
    pub(crate) slots: &'s mut [Option<InFlight>],
    pub(crate) next_generation: &'s mut u32,
    pub(crate) input: &'s mut crate::server::legacy_input::InputArea<'a>,
    /// The task table, if the engine has one.
    #[cfg(feature = "tasks")]
    pub(crate) tasks: &'s mut Option<crate::server::tasks::TaskTable<'a>>,
    pub(crate) now: Instant,
    /// Where answers to the message being served go.
    pub(crate) route: Route,
}

/// The capabilities `config` and `handler` declare (the configured ones, or those derived from the
/// handler's tables) that this build serves ([`ServerCapabilities::served_by_build`]). Out of line:
/// the engine asks in three places.
#[inline(never)]
pub(crate) fn served_capabilities<H: Handler + ?Sized>(config: &Config<'_>, handler: &H) -> ServerCapabilities {
    config.capabilities.unwrap_or_else(|| handler.capabilities()).served_by_build()
}

/// The longest name of a method a server answers (`resources/templates/list`). A request's method
/// name with escapes is unescaped into a buffer of this size on the request path; a longer one is
/// no method served here (it is answered `-32601` with its name unescaped as it is written out).
/// `core/tests/features.rs` sends every method with its name escaped, in each feature set.
const MAX_METHOD_LEN: usize = 24;

/// A method name, unescaped into a small buffer when it has escapes.
pub(crate) fn plain_or_unescaped<'b>(s: JsonStr<'b>, buf: &'b mut [u8]) -> Option<&'b str> {
    match s.as_plain() {
        Some(plain) => Some(plain),
        None => s.unescape_into(buf),
    }
}

impl<'s, 'a, H: Handler, const OUTBOUND: usize> Parts<'s, 'a, H, OUTBOUND> {
    /// Writes an error response, `<the code's name>: <detail>`, and reports it.
    pub(crate) fn reject(&mut self, id: Option<&dyn WriteId>, code: i32, detail: fmt::Arguments<'_>) {
        self.reject_with_data(id, code, ErrorMessage::Named(detail), None)
    }

    pub(crate) fn reject_with_data(
        &mut self,
        id: Option<&dyn WriteId>,
        code: i32,
        message: ErrorMessage<'_>,
        data: Option<&dyn Fn(&mut JsonWriter<'_>)>,
    ) {
        #[cfg(feature = "tasks")]
        if self.route == crate::server::tasks::TASK_ROUTE {
            return self.capture_rejection(id, code, message, data);
        }
        let event = self.out.reject(self.route, id, code, message, data);
        self.handler.on_event(self.now, event.into());
    }

    /// Answers a message that could not be parsed. A message nested too deep is still an object
    /// whose `id` can be read (skipping the deep member), and its error carries that id.
    pub(crate) fn reject_unparsable(&mut self, error: ScanError, text: &[u8]) {
        let max_depth = self.config.limits.max_depth;
        answer_unparsable(error, text, max_depth, |id, code, message| self.reject_with_data(id, code, message, None));
    }

    /// Answers `id` with an empty result (`ping`, `logging/setLevel`, a subscription, …).
    #[inline(never)] // Its reply off the request path's frame (see docs/firmware.md, "Stack").
    pub(crate) fn empty_result(&mut self, id: Id<'_>, version: ProtocolVersion) {
        let (_, _, mut out) = self.reply_parts(id, version, false);
        out.finish(None);
        out.answered();
    }

    /// Opens a result for `id` and hands back the task table beside it.
    #[cfg(feature = "tasks")]
    pub(crate) fn open_beside_tasks<'x>(
        &'x mut self,
        id: Id<'x>,
        version: ProtocolVersion,
    ) -> (Outgoing<'x>, Option<&'x mut crate::server::tasks::TaskTable<'a>>) {
        let Parts { server_info, out, route, tasks, .. } = self;
        let window = out.window_len();
        let slot = out.tx.open(*route, window);
        (Outgoing::open(slot, ReplyId::Borrowed(id), version, *server_info, None), tasks.as_mut())
    }

    /// Opens a result for `id` and hands back the handler and the configuration beside it, for a
    /// method whose answer the handler (or a table it owns) writes. A `deferrable` result may be kept
    /// open past this frame.
    pub(crate) fn reply_parts<'x>(
        &'x mut self,
        id: Id<'x>,
        version: ProtocolVersion,
        deferrable: bool,
    ) -> (&'x mut H, &'x Config<'a>, Outgoing<'x>) {
        let Parts { handler, config, server_info, out, slots, next_generation, route, input, .. } = self;
        let window = out.window_len();
        let slot = out.tx.open(*route, window);
        let input_signal = &mut input.signal;
        let defer_slots = deferrable.then_some(DeferSlots { slots, next_generation, input_signal });
        let out = Outgoing::open(slot, ReplyId::Borrowed(id), version, *server_info, defer_slots);
        (handler, config, out)
    }

    /// Answers one message (a whole frame, or one element of a batch).
    /// `spans`: what the validator recorded of `value`'s document ([`json::parse_spanned`]).
    pub(crate) fn handle_message<'v>(&mut self, value: Value<'v>, in_batch: bool, spans: &'v Spans) -> Received {
        self.handle_classified(classify_spanned(value, Some(spans)), in_batch, spans, None)
    }

    /// [`Parts::handle_message`] of a message classified already (`message`, what
    /// [`classify_spanned`] makes of it), with what was found in its `params` already (`picked`,
    /// as [`ParsedMessage`](crate::jsonrpc::ParsedMessage) keeps it) if it was.
    pub(crate) fn handle_classified<'v>(
        &mut self,
        message: Result<Message<'v>, EnvelopeError<'v>>,
        in_batch: bool,
        spans: &'v Spans,
        picked: Option<&Picked<'v>>,
    ) -> Received {
        match message {
            Ok(Message::Request { id, method, params }) => {
                self.handle_request(id, method, params, in_batch, spans, picked);
                Received::Request
            }
            Ok(Message::Notification { method, params }) => {
                self.handle_notification(method, params);
                Received::Notification
            }
            Ok(Message::Response { id, result }) => {
                #[cfg(feature = "tasks")]
                if self.task_input_answer(Some(id), Ok(result)) {
                    return Received::Response;
                }
                if !self.legacy_input_answer(Some(id), Ok(result)) {
                    self.route_response(Some(id), Outcome::Result(result));
                }
                Received::Response
            }
            Ok(Message::Error { id, error }) => {
                #[cfg(feature = "tasks")]
                if self.task_input_answer(id, Err(())) {
                    return Received::Response;
                }
                if !self.legacy_input_answer(id, Err(())) {
                    self.route_response(id, Outcome::from_error(error));
                }
                Received::Response
            }
            Err(EnvelopeError { id, reason }) => {
                match id {
                    Some(id) => {
                        self.reject(Some(&id), code::INVALID_REQUEST, format_args!("{reason}", reason = Plain(reason)))
                    }
                    None => self.reject(None, code::INVALID_REQUEST, format_args!("{reason}", reason = Plain(reason))),
                }
                Received::Invalid
            }
        }
    }

    /// Hands an answer to the request it answers (to the handler, whichever part of the server sent
    /// it), or reports it as unexpected.
    #[inline(never)] // Off the request path's frame (see docs/firmware.md, "Stack").
    fn route_response(&mut self, id: Option<Id<'_>>, outcome: Outcome<'_>) {
        match self.out.answer(id) {
            Ok(entry) => self.handler.on_response(self.now, Response { request: entry.key, outcome }),
            Err(event) => self.handler.on_event(self.now, event.into()),
        }
    }

    /// The capabilities served: the configured ones, or those derived from the handler's tables.
    #[inline(never)]
    pub(crate) fn capabilities(&self) -> ServerCapabilities {
        let capabilities = served_capabilities(self.config, &*self.handler);
        #[cfg(feature = "tasks")]
        let capabilities = ServerCapabilities { tasks: capabilities.tasks || self.tasks.is_some(), ..capabilities };
        capabilities
    }

    /// Writes a notification (the closure writes all of it but the framing) on this message's
    /// route; `false` if it does not fit.
    #[cfg(feature = "subscriptions")]
    pub(crate) fn write_notification(&mut self, body: impl FnMut(&mut JsonWriter<'_>)) -> bool {
        self.out.write(self.route, body).is_ok()
    }

    #[inline(never)] // Off the request path's frame (see docs/firmware.md, "Stack").
    fn handle_notification(&mut self, method: JsonStr<'_>, params: Option<Value<'_>>) {
        if method.eq_str("notifications/initialized") {
            if let Session::Legacy { ready, .. } = self.session
                && !*ready
            {
                *ready = true;
                self.handler.on_event(self.now, Event::SessionReady);
            }
        } else if method.eq_str("notifications/cancelled") {
            let Some(request_id) = params.and_then(|p| p.get("requestId")).and_then(Id::from_value) else {
                return;
            };
            if self.cancel_pending_input(request_id) {
                return;
            }
            // A task's deferred request bears the task's id, not one the client sent: only
            // `tasks/cancel` ends a task (this would leave it working, its answer dropped).
            #[cfg(feature = "tasks")]
            let runs_task = |route: Route| route == crate::server::tasks::TASK_ROUTE;
            #[cfg(not(feature = "tasks"))]
            let runs_task = |_: Route| false;
            for (slot, entry) in self.slots.iter_mut().enumerate() {
                if InFlight::live(entry).is_some_and(|e| !e.kind.answered_by_handler() && e.id.matches(request_id)) {
                    // A listen stream (or a `tasks/result`) ends with its cancellation; nothing more
                    // is sent for it.
                    *entry = None;
                    return;
                }
                let ours = |e: &&mut InFlight| !e.cancelled && e.id.matches(request_id) && !runs_task(e.route);
                let Some(entry) = InFlight::live_mut(entry).filter(ours) else {
                    continue;
                };
                let request = entry.cancel(slot);
                self.handler.on_event(self.now, Event::Cancelled { request });
                return;
            }
        }
        // Other notifications (progress, roots changes, unknown ones) need nothing from this server.
    }

    fn handle_request<'v>(
        &mut self,
        id: Id<'v>,
        method: JsonStr<'v>,
        params: Option<Value<'v>>,
        in_batch: bool,
        spans: &'v Spans,
        picked: Option<&Picked<'v>>,
    ) {
        let raw_method = method;
        let mut method_buf = [0u8; MAX_METHOD_LEN];
        let method = plain_or_unescaped(method, &mut method_buf).unwrap_or("");
        if let Some(params) = params.filter(|p| p.kind() != Kind::Object) {
            let _ = params;
            return self.reject(Some(&id), code::INVALID_PARAMS, format_args!("\"params\" must be an object"));
        }
        let params = picked.map_or_else(|| Params::new(params, spans), |p| p.params);
        let meta = params.get("_meta");
        if meta.is_some_and(|m| m.kind() != Kind::Object) {
            return self.reject(Some(&id), code::INVALID_PARAMS, format_args!("\"_meta\" must be an object"));
        }
        let picked = picked.map_or_else(|| Meta::new(meta, spans), |p| p.meta);
        // A build without the modern era serves every request as a legacy server does (modern
        // `_meta` is then just `_meta`): `server/discover` is unknown, and a request before
        // `initialize` is refused below.
        let is_modern = cfg!(feature = "modern") && picked.is_modern();
        let version = if is_modern {
            match self.modern_version(id, &picked) {
                Some(version) if in_batch => {
                    let _ = version;
                    return self.reject(
                        Some(&id),
                        code::INVALID_REQUEST,
                        format_args!("batches are not allowed in 2026-07-28"),
                    );
                }
                Some(version) if self.check_log_level(id, picked.log_level) => version,
                _ => return,
            }
        } else if method == "initialize" {
            if !cfg!(feature = "legacy") {
                // A modern-only server names the versions it supports (-32022).
                let requested = params.get("protocolVersion").and_then(|v| v.as_str());
                return self.reject_version(id, requested);
            }
            if in_batch {
                return self.reject(
                    Some(&id),
                    code::INVALID_REQUEST,
                    format_args!("initialize must not be part of a batch"),
                );
            }
            return self.initialize(id, &params);
        } else {
            match *self.session {
                Session::Legacy { version, .. } => version,
                Session::None if method == "ping" => ProtocolVersion::LATEST_LEGACY,
                Session::None => return self.no_session(id),
            }
        };
        let client = match (is_modern, *self.session) {
            (true, _) => picked.client_capabilities.map(ClientCapabilities::from_value),
            (false, Session::Legacy { client, .. }) => Some(client),
            (false, Session::None) => None,
        };
        let context = RequestContext {
            now: self.now,
            version,
            meta,
            client: client.unwrap_or_default(),
            input_responses: None,
            request_state: None,
            progress_token: picked.progress_token,
            log_level: picked.log_level,
            spans,
        };
        self.dispatch(id, method, raw_method, &params, context);
    }

    /// Refuses a request that is neither in a legacy session nor a modern one, pointing at what the
    /// build serves: `initialize` (legacy), per-request `_meta` (modern), or either.
    fn no_session(&mut self, id: Id<'_>) {
        let version = Plain(META_PROTOCOL_VERSION);
        let detail = match (cfg!(feature = "legacy"), cfg!(feature = "modern")) {
            (true, false) => format_args!("no session: send initialize first"),
            (false, true) => format_args!("missing _meta \"{version}\" (protocol 2026-07-28)"),
            _ => format_args!(
                "missing _meta \"{version}\". Send initialize first (protocol 2025-11-25 and earlier), or add per-request _meta (2026-07-28)"
            ),
        };
        self.reject(Some(&id), code::INVALID_PARAMS, detail)
    }

    /// Validates modern `_meta`; answers and returns `None` when it is invalid or unsupported.
    #[inline(never)] // Off the request path's frame (see docs/firmware.md, "Stack").
    fn modern_version(&mut self, id: Id<'_>, meta: &Meta<'_>) -> Option<ProtocolVersion> {
        let requested = meta.protocol_version.and_then(|v| v.as_str());
        let Some(requested) = requested else {
            self.reject(
                Some(&id),
                code::INVALID_PARAMS,
                format_args!(
                    "_meta \"{META_PROTOCOL_VERSION}\" must be a string",
                    META_PROTOCOL_VERSION = Plain(META_PROTOCOL_VERSION)
                ),
            );
            return None;
        };
        let capabilities = meta.client_capabilities;
        if capabilities.is_none_or(|c| c.kind() != Kind::Object) {
            self.reject(
                Some(&id),
                code::INVALID_PARAMS,
                format_args!(
                    "_meta \"{META_CLIENT_CAPABILITIES}\" must be an object",
                    META_CLIENT_CAPABILITIES = Plain(META_CLIENT_CAPABILITIES)
                ),
            );
            return None;
        }
        let mut buf = [0u8; 32];
        let version = plain_or_unescaped(requested, &mut buf).and_then(ProtocolVersion::from_wire);
        let version = version.filter(|v| v.era() == Era::Modern);
        if version.is_none() {
            self.reject_version(id, Some(requested));
        }
        version
    }

    /// Answers a request for a version this server does not serve with `-32022` and what it
    /// serves: `supported` holds what the request can retry with ("choose a mutually supported
    /// version from this list and retry", the modern versions), `legacy` the versions that need
    /// `initialize` (in a build with the legacy era).
    fn reject_version(&mut self, id: Id<'_>, requested: Option<JsonStr<'_>>) {
        let data = |w: &mut JsonWriter<'_>| {
            let versions = |w: &mut JsonWriter<'_>, era: Era| {
                w.byte(b'[');
                for (i, v) in ProtocolVersion::ALL.iter().rev().filter(|v| v.era() == era).enumerate() {
                    if i > 0 {
                        w.byte(b',');
                    }
                    w.string(v.as_str());
                }
                w.byte(b']');
            };
            w.raw(b"{\"supported\":");
            if cfg!(feature = "modern") {
                versions(w, Era::Modern);
            } else {
                w.raw(b"[]");
            }
            if let Some(requested) = requested {
                w.member("requested");
                w.json_str(requested);
            }
            if cfg!(feature = "legacy") {
                w.raw(b",\"legacy\":{\"method\":\"initialize\",\"versions\":");
                versions(w, Era::Legacy);
                w.byte(b'}');
            }
            w.byte(b'}');
        };
        self.reject_with_data(
            Some(&id),
            code::UNSUPPORTED_PROTOCOL_VERSION,
            ErrorMessage::Whole(format_args!("Unsupported protocol version")),
            Some(&data),
        );
    }

    /// `method`: as the request wrote it (shown unescaped).
    fn method_not_found(&mut self, id: Id<'_>, method: JsonStr<'_>, version: ProtocolVersion) {
        self.reject(Some(&id), code::METHOD_NOT_FOUND, format_args!("{method} (protocol version {version})"));
    }

    /// `method`: the method's name unescaped (empty if it is longer than any served), `raw_method`
    /// as the request wrote it.
    fn dispatch(
        &mut self,
        id: Id<'_>,
        method: &str,
        raw_method: JsonStr<'_>,
        params: &Params<'_>,
        context: RequestContext<'_>,
    ) {
        let version = context.version;
        let modern = version.served_era() == Era::Modern;
        let capabilities = self.capabilities();
        let has_tools = capabilities.tools.is_some();
        #[cfg(feature = "resources")]
        let has_resources = capabilities.resources.is_some();
        #[cfg(feature = "prompts")]
        let has_prompts = capabilities.prompts.is_some();
        #[cfg(all(feature = "resources", feature = "subscriptions"))]
        let subscribe = capabilities.resources.is_some_and(|r| r.subscribe);
        // A method whose cargo feature is off has no arm: it is answered -32601, and the code
        // serving it is not in the build.
        match method {
            #[cfg(feature = "modern")]
            "server/discover" if modern => self.discover(id),
            "ping" if !modern => self.empty_result(id, version),
            #[cfg(feature = "completion")]
            "completion/complete" if capabilities.completions => self.complete(id, params, context),
            #[cfg(feature = "logging")]
            "logging/setLevel" if !modern && capabilities.logging => self.set_level(id, params, context),
            #[cfg(all(feature = "resources", feature = "subscriptions"))]
            "resources/subscribe" if !modern && subscribe => self.subscribe(id, params, context, true),
            #[cfg(all(feature = "resources", feature = "subscriptions"))]
            "resources/unsubscribe" if !modern && subscribe => self.subscribe(id, params, context, false),
            #[cfg(feature = "subscriptions")]
            "subscriptions/listen" if modern => self.listen(id, params, context),
            "tools/list" if has_tools => self.list_tools(id, params, version),
            "tools/call" if has_tools => self.call_tool(id, params, context),
            #[cfg(feature = "resources")]
            "resources/list" if has_resources => self.list_resources(id, params, version),
            #[cfg(feature = "resources")]
            "resources/templates/list" if has_resources => self.list_resource_templates(id, params, version),
            #[cfg(feature = "resources")]
            "resources/read" if has_resources => self.read_resource(id, params, context),
            #[cfg(feature = "prompts")]
            "prompts/list" if has_prompts => self.list_prompts(id, params, version),
            #[cfg(feature = "prompts")]
            "prompts/get" if has_prompts => self.get_prompt(id, params, context),
            #[cfg(feature = "tasks")]
            "tasks/get" | "tasks/update" | "tasks/cancel" if modern && capabilities.tasks => {
                self.tasks_request(id, method, params, context)
            }
            // 2025-11-25's experimental tasks.
            #[cfg(feature = "tasks")]
            "tasks/get" | "tasks/result" | "tasks/list" | "tasks/cancel"
                if version == ProtocolVersion::V2025_11_25 && capabilities.tasks =>
            {
                self.tasks_request(id, method, params, context)
            }
            _ => self.method_not_found(id, raw_method, version),
        }
    }
}
