//! The requests the handler answers: `tools/call`, `resources/read` and `prompts/get`, their
//! parameters, and the input rounds around them (a retry's `inputResponses` and `requestState`; a
//! legacy input-required answer handed to `legacy_input`).

use crate::json::{JsonStr, Kind, Value};
use crate::jsonrpc::{ErrorMessage, Id, code};
#[cfg(feature = "resources")]
use crate::mcp::UriTemplate;
use crate::num::Decimal;
use crate::server::dispatch::{Parts, plain_or_unescaped};
#[cfg(feature = "prompts")]
use crate::server::handler::PromptGet;
use crate::server::handler::RequestContext;
#[cfg(feature = "resources")]
use crate::server::handler::ResourceRead;
use crate::server::handler::ToolCall;
use crate::server::input::InputScope;
use crate::server::params::Params;
#[cfg(feature = "prompts")]
use crate::server::reply::PromptReply;
#[cfg(feature = "resources")]
use crate::server::reply::ResourceReply;
use crate::server::reply::ToolReply;
use crate::server::seal::StateBinding;
#[cfg(feature = "input")]
use crate::server::seal::{MAX_REQUEST_STATE, MAX_SEALED_STATE, SealError};
use crate::server::{Handler, MAX_ESCAPED_NAME_LEN};
use crate::text::Plain;

impl<'s, 'a, H: Handler, const OUTBOUND: usize> Parts<'s, 'a, H, OUTBOUND> {
    /// The string parameter `key` (its value `found`, looked up by the caller), unescaped into `buf`
    /// when needed; answers `-32602` and returns `None` if it is missing or not a string.
    #[cfg(all(feature = "resources", feature = "subscriptions"))]
    pub(crate) fn string_param<'b>(
        &mut self,
        id: Id<'_>,
        found: Option<Value<'b>>,
        key: &'static str,
        buf: &'b mut [u8],
    ) -> Option<(JsonStr<'b>, &'b str)> {
        let raw = self.json_string(id, found, key)?;
        self.unescaped_param(id, raw, key, buf).map(|text| (raw, text))
    }

    /// The string parameter `key` (its value `found`) as the request has it; answers `-32602` and
    /// returns `None` if it is missing or not a string.
    #[cfg(any(all(feature = "resources", feature = "subscriptions"), feature = "completion"))]
    pub(crate) fn json_string<'b>(
        &mut self,
        id: Id<'_>,
        found: Option<Value<'b>>,
        key: &'static str,
    ) -> Option<JsonStr<'b>> {
        let text = found.and_then(|v| v.as_str());
        if text.is_none() {
            self.reject(Some(&id), code::INVALID_PARAMS, format_args!("\"{key}\" must be a string", key = Plain(key)));
        }
        text
    }

    /// The string parameter `key`'s text `raw`, unescaped into `buf` when needed; answers `-32602`
    /// and returns `None` if it does not fit.
    pub(crate) fn unescaped_param<'b>(
        &mut self,
        id: Id<'_>,
        raw: JsonStr<'b>,
        key: &'static str,
        buf: &'b mut [u8],
    ) -> Option<&'b str> {
        let text = plain_or_unescaped(raw, buf);
        if text.is_none() {
            self.reject(
                Some(&id),
                code::INVALID_PARAMS,
                format_args!(
                    "escaped \"{key}\" longer than {} bytes",
                    Decimal(MAX_ESCAPED_NAME_LEN as u64),
                    key = Plain(key)
                ),
            );
        }
        text
    }

    /// `arguments`, which must be an object when present (`null` counts as absent).
    fn object_param<'b>(
        &mut self,
        id: Id<'_>,
        params: &Params<'b>,
        key: &'static str,
    ) -> Result<Option<Value<'b>>, ()> {
        match params.get(key).filter(|v| !v.is_null()) {
            Some(v) if v.kind() != Kind::Object => {
                self.reject(
                    Some(&id),
                    code::INVALID_PARAMS,
                    format_args!("\"{key}\" must be an object", key = Plain(key)),
                );
                Err(())
            }
            other => Ok(other),
        }
    }

    /// `tools/call`. The tool is found by comparing the request's (possibly escaped) name with each
    /// tool's, without copying it. The name the handler is given is the request's own text when it
    /// has no escape (nearly always), the static table's ([`Handler::TOOLS`]) when it has one, and
    /// only for a tool of a table built at run time an unescaped copy ([`MAX_ESCAPED_NAME_LEN`]
    /// bytes at most, in [`Self::call_escaped_tool`]'s frame: the common path holds no name buffer).
    pub(crate) fn call_tool(&mut self, id: Id<'_>, params: &Params<'_>, context: RequestContext<'_>) {
        let Some(raw) = params.get("name").and_then(|v| v.as_str()) else {
            return self.reject(Some(&id), code::INVALID_PARAMS, format_args!("\"name\" must be a string"));
        };
        let plain = raw.as_plain();
        let index =
            (0..).map_while(|i| self.handler.tool(i).map(|t| raw.is(plain.is_some(), t.name))).position(|hit| hit);
        let Some(index) = index else {
            return self.reject_with_data(
                Some(&id),
                code::INVALID_PARAMS,
                ErrorMessage::Whole(format_args!("Unknown tool: {raw}")),
                None,
            );
        };
        let name = plain.or_else(|| H::TOOLS.get(index).map(|t| t.name).filter(|name| raw.eq_str(name)));
        match name {
            Some(name) => self.call_named_tool(id, params, context, index, name),
            None => self.call_escaped_tool(id, params, context, index, raw),
        }
        // Here, not in the frame that served the call (the deepest of a request's).
        self.after_reply(id, "tools/call", params);
    }

    /// `tools/call` of the tool at `index` of a table built at run time, whose name came escaped.
    #[cold]
    #[inline(never)]
    fn call_escaped_tool(
        &mut self,
        id: Id<'_>,
        params: &Params<'_>,
        context: RequestContext<'_>,
        index: usize,
        raw: JsonStr<'_>,
    ) {
        let mut buf = [0u8; MAX_ESCAPED_NAME_LEN];
        let Some(name) = self.unescaped_param(id, raw, "name", &mut buf) else { return };
        self.call_named_tool(id, params, context, index, name)
    }

    /// `tools/call` of the tool at `index`, named `name`, up to the handler's reply ([`Self::after_reply`]
    /// follows in the caller).
    #[inline(never)]
    fn call_named_tool(
        &mut self,
        id: Id<'_>,
        params: &Params<'_>,
        context: RequestContext<'_>,
        index: usize,
        name: &str,
    ) {
        let Ok(arguments) = self.object_param(id, params, "arguments") else { return };
        #[cfg(feature = "tasks")]
        let support = self.handler.tool(index).map(|t| t.task_support).unwrap_or_default();
        #[cfg(feature = "tasks")]
        if support == crate::mcp::TaskSupport::Required && !self.may_be_task(&context, params) {
            return self.reject_without_tasks(id, context.version);
        }
        #[cfg(feature = "input")]
        let mut state = [0u8; MAX_REQUEST_STATE];
        // A task run again opens its own state as of when it was kept (it never left the server).
        #[cfg(feature = "tasks")]
        let sealed_at = self.task_state_time();
        #[cfg(not(feature = "tasks"))]
        let sealed_at = self.now;
        let binding = StateBinding { method: "tools/call", name, now: sealed_at };
        // The request is built once, and its input read into it in place (no copies in this frame).
        #[cfg_attr(not(feature = "input"), allow(unused_mut))]
        let mut call = ToolCall { index, name, arguments, context };
        #[cfg(feature = "input")]
        if !self.with_input(id, params, &mut call.context, &binding, &mut state) {
            return;
        }
        let notes = self.notes(&call.context);
        let scope = self.input_scope(binding, &call.context);
        #[cfg(feature = "tasks")]
        let (handler, out) = {
            let (handler, out, task) = self.tool_reply_parts(id, params, &call.context, support);
            (handler, out.with_task(task))
        };
        #[cfg(not(feature = "tasks"))]
        let (handler, _, out) = self.reply_parts(id, call.context.version, true);
        handler.call_tool(call, ToolReply::new(out.with_notes(notes).with_input(&scope)));
    }

    /// `resources/read`. The URI the handler is given is the request's own text when it has no
    /// escape (nearly always); an escaped one is unescaped in a cold frame of its own
    /// ([`Self::read_escaped_resource`]), so the common path holds no URI buffer.
    #[cfg(feature = "resources")]
    #[inline(never)] // An arm of `dispatch` in a frame of its own (see docs/firmware.md, "Stack").
    pub(crate) fn read_resource(&mut self, id: Id<'_>, params: &Params<'_>, context: RequestContext<'_>) {
        let Some(raw) = params.get("uri").and_then(|v| v.as_str()) else {
            return self.reject(Some(&id), code::INVALID_PARAMS, format_args!("\"uri\" must be a string"));
        };
        match raw.as_plain() {
            Some(uri) => self.read_named_resource(id, params, context, uri),
            None => self.read_escaped_resource(id, params, context, raw),
        }
        // Here, not in the frame that served the read (the deepest of a request's).
        self.after_reply(id, "resources/read", params);
    }

    /// `resources/read` of a URI that came escaped.
    #[cfg(feature = "resources")]
    #[cold]
    #[inline(never)]
    fn read_escaped_resource(
        &mut self,
        id: Id<'_>,
        params: &Params<'_>,
        context: RequestContext<'_>,
        raw: JsonStr<'_>,
    ) {
        let mut buf = [0u8; MAX_ESCAPED_NAME_LEN];
        let Some(uri) = self.unescaped_param(id, raw, "uri", &mut buf) else { return };
        self.read_named_resource(id, params, context, uri)
    }

    /// `resources/read` of `uri`, up to the handler's reply ([`Self::after_reply`] follows in the
    /// caller).
    #[cfg(feature = "resources")]
    #[inline(never)]
    #[cfg_attr(not(feature = "input"), allow(unused_variables))] // `params`: read for input only
    fn read_named_resource(&mut self, id: Id<'_>, params: &Params<'_>, context: RequestContext<'_>, uri: &str) {
        #[cfg(feature = "input")]
        let mut state = [0u8; MAX_REQUEST_STATE];
        let binding = StateBinding { method: "resources/read", name: uri, now: self.now };
        let template = matching_template(&*self.handler, uri);
        #[cfg_attr(not(feature = "input"), allow(unused_mut))]
        let mut read = ResourceRead { uri, template, context };
        #[cfg(feature = "input")]
        if !self.with_input(id, params, &mut read.context, &binding, &mut state) {
            return;
        }
        let notes = self.notes(&read.context);
        let scope = self.input_scope(binding, &read.context);
        let (handler, config, out) = self.reply_parts(id, read.context.version, true);
        let out = out.with_notes(notes).with_input(&scope);
        handler.read_resource(read, ResourceReply::new(out, config.resource_cache));
    }

    /// `prompts/get`. The prompt is found by comparing the request's (possibly escaped) name with
    /// each prompt's, without copying it; the handler is given the name as [`Self::call_tool`]
    /// gives a tool's (the request's text, the static table's, or a cold unescaped copy). The
    /// lookup is `call_tool`'s written again: one function for both made the Cortex-M3 firmware
    /// larger in each shape tried (docs/firmware.md, "What did not help").
    #[cfg(feature = "prompts")]
    #[inline(never)] // An arm of `dispatch` in a frame of its own (see docs/firmware.md, "Stack").
    pub(crate) fn get_prompt(&mut self, id: Id<'_>, params: &Params<'_>, context: RequestContext<'_>) {
        let Some(raw) = params.get("name").and_then(|v| v.as_str()) else {
            return self.reject(Some(&id), code::INVALID_PARAMS, format_args!("\"name\" must be a string"));
        };
        let plain = raw.as_plain();
        let index =
            (0..).map_while(|i| self.handler.prompt(i).map(|p| raw.is(plain.is_some(), p.name))).position(|hit| hit);
        let Some(index) = index else {
            return self.reject_with_data(
                Some(&id),
                code::INVALID_PARAMS,
                ErrorMessage::Whole(format_args!("Unknown prompt: {raw}")),
                None,
            );
        };
        let name = plain.or_else(|| H::PROMPTS.get(index).map(|p| p.name).filter(|name| raw.eq_str(name)));
        match name {
            Some(name) => self.get_named_prompt(id, params, context, index, name),
            None => self.get_escaped_prompt(id, params, context, index, raw),
        }
        // Here, not in the frame that served the prompt (the deepest of a request's).
        self.after_reply(id, "prompts/get", params);
    }

    /// `prompts/get` of the prompt at `index` of a list built at run time, whose name came escaped.
    #[cfg(feature = "prompts")]
    #[cold]
    #[inline(never)]
    fn get_escaped_prompt(
        &mut self,
        id: Id<'_>,
        params: &Params<'_>,
        context: RequestContext<'_>,
        index: usize,
        raw: JsonStr<'_>,
    ) {
        let mut buf = [0u8; MAX_ESCAPED_NAME_LEN];
        let Some(name) = self.unescaped_param(id, raw, "name", &mut buf) else { return };
        self.get_named_prompt(id, params, context, index, name)
    }

    /// `prompts/get` of the prompt at `index`, named `name`: its arguments checked, up to the
    /// handler's reply ([`Self::after_reply`] follows in the caller).
    #[cfg(feature = "prompts")]
    #[inline(never)]
    fn get_named_prompt(
        &mut self,
        id: Id<'_>,
        params: &Params<'_>,
        context: RequestContext<'_>,
        index: usize,
        name: &str,
    ) {
        let Ok(arguments) = self.object_param(id, params, "arguments") else { return };
        if let Some((key, _)) = arguments.and_then(|a| a.members().find(|(_, v)| v.kind() != Kind::String)) {
            return self.reject(
                Some(&id),
                code::INVALID_PARAMS,
                format_args!("prompt argument \"{key}\" must be a string"),
            );
        }
        let missing = self.handler.prompt(index).and_then(|prompt| {
            prompt
                .arguments
                .iter()
                .find(|arg| arg.required && arguments.and_then(|a| a.get(arg.name)).is_none())
                .map(|arg| arg.name)
        });
        if let Some(missing) = missing {
            // Copy the name out of the handler's table before writing (the handler is borrowed).
            let mut name_buf = heapless::String::<64>::new();
            let _ = name_buf.push_str(missing.get(..missing.len().min(64)).unwrap_or(""));
            return self.reject(
                Some(&id),
                code::INVALID_PARAMS,
                format_args!("missing required argument \"{name_buf}\"", name_buf = Plain(&name_buf)),
            );
        }
        #[cfg(feature = "input")]
        let mut state = [0u8; MAX_REQUEST_STATE];
        let binding = StateBinding { method: "prompts/get", name, now: self.now };
        #[cfg_attr(not(feature = "input"), allow(unused_mut))]
        let mut get = PromptGet { index, name, arguments, context };
        #[cfg(feature = "input")]
        if !self.with_input(id, params, &mut get.context, &binding, &mut state) {
            return;
        }
        let notes = self.notes(&get.context);
        let scope = self.input_scope(binding, &get.context);
        let (handler, _, out) = self.reply_parts(id, get.context.version, true);
        handler.get_prompt(get, PromptReply::new(out.with_notes(notes).with_input(&scope)));
    }

    /// Reads a retry's `inputResponses` and opens its `requestState` (into `state`), into `context`.
    /// A build without input from the client (cargo feature `input`) reads neither. Answers
    /// `-32602` and returns `false` when either is malformed, or the state fails verification.
    #[cfg(feature = "input")]
    fn with_input<'x>(
        &mut self,
        id: Id<'_>,
        params: &Params<'x>,
        context: &mut RequestContext<'x>,
        binding: &StateBinding<'_>,
        state: &'x mut [u8; MAX_REQUEST_STATE],
    ) -> bool {
        let responses = params.get("inputResponses").filter(|v| !v.is_null());
        if responses.is_some_and(|r| r.kind() != Kind::Object) {
            self.reject(Some(&id), code::INVALID_PARAMS, format_args!("\"inputResponses\" must be an object"));
            return false;
        }
        context.input_responses = responses;
        let Some(sealed) = params.get("requestState").filter(|v| !v.is_null()) else {
            return true;
        };
        let mut decoded = [0u8; MAX_SEALED_STATE];
        let opened = match sealed.as_str().and_then(|s| s.as_plain()) {
            Some(text) => match crate::server::seal::decode_base64(text.as_bytes(), &mut decoded) {
                Ok(bytes) => match self.config.state_sealer {
                    Some(sealer) => sealer.open(binding, bytes, state).map(|s| s.len()),
                    None => match state.get_mut(..bytes.len()) {
                        Some(out) => {
                            out.copy_from_slice(bytes);
                            Ok(bytes.len())
                        }
                        None => Err(SealError::TooLong),
                    },
                },
                Err(error) => Err(error),
            },
            None => Err(SealError::Invalid),
        };
        match opened {
            Ok(len) => {
                context.request_state = Some(&state[..len]);
                true
            }
            Err(error) => {
                self.reject(Some(&id), code::INVALID_PARAMS, format_args!("{error}"));
                false
            }
        }
    }

    /// Answers a request that needs tasks the client did not ask for: `-32021` naming the tasks
    /// extension (2026-07-28), `-32601` in 2025-11-25 (a tool that runs only as a task, called
    /// without `params.task`).
    #[cfg(feature = "tasks")]
    #[inline(never)] // Off the request path's frame.
    pub(crate) fn reject_without_tasks(&mut self, id: Id<'_>, version: crate::version::ProtocolVersion) {
        if version.served_era() == crate::version::Era::Legacy {
            let why = crate::server::tasks::TASK_PARAM_REQUIRED;
            return self.reject(Some(&id), code::METHOD_NOT_FOUND, format_args!("{why}", why = Plain(why)));
        }
        self.reject_with_data(
            Some(&id),
            code::MISSING_CLIENT_CAPABILITY,
            ErrorMessage::Whole(format_args!(
                "Missing required client capability: the {} extension",
                crate::mcp::TASKS_EXTENSION
            )),
            Some(&crate::mcp::task::write_requires_tasks),
        );
    }

    /// After the handler answered: a legacy input-required answer becomes requests to the client.
    fn after_reply(&mut self, id: Id<'_>, method: &'static str, params: &Params<'_>) {
        if crate::server::legacy_input::LEGACY_INPUT
            && let Some(len) = self.input.signal.take()
        {
            self.begin_legacy_input(id, method, params.value(), len);
        }
    }

    /// What a reply needs to ask for input.
    fn input_scope<'x>(&self, binding: StateBinding<'x>, context: &RequestContext<'_>) -> InputScope<'x>
    where
        'a: 'x,
    {
        InputScope { binding, client: context.client, sealer: self.config.state_sealer }
    }
}

/// The index of the first template `uri` matches.
#[cfg(feature = "resources")]
fn matching_template<H: Handler>(handler: &H, uri: &str) -> Option<usize> {
    (0..)
        .map_while(|i| handler.resource_template(i).map(|t| (i, UriTemplate(t.uri_template).is_match(uri))))
        .find(|(_, hit)| *hit)
        .map(|(i, _)| i)
}
