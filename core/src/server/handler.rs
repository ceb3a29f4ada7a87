//! What the application writes: its tools, resources and prompts.
//!
//! The engine answers every protocol method itself (`initialize`, `ping`, `server/discover`, the list
//! methods with paging, version and capability checks). The application implements [`Handler`]: it
//! describes its tools, resources and prompts by index, and answers calls, reads and prompt requests
//! through the reply it is handed. The same trait serves a `&'static` table on a microcontroller and a
//! dynamic registry with an allocator.

use crate::endpoint::Response;
use crate::json::{JsonStr, Kind, Spans, Value};
use crate::mcp::{ClientCapabilities, ListCapability, ResourceCapability, ServerCapabilities, UriTemplate, Variables};
pub use crate::mcp::{Implementation, Prompt, PromptArgument, Resource, ResourceTemplate, Tool, ToolAnnotations};
use crate::server::Event;
use crate::server::reply::{CompletionReply, PromptReply, ResourceReply, ToolReply};
use crate::time::Instant;
use crate::version::ProtocolVersion;

/// What every application request carries besides its own parameters.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct RequestContext<'a> {
    /// The time the engine was given with the input that carried this request.
    pub now: Instant,
    /// The protocol version the request is served in (negotiated, or from its `_meta`).
    pub version: ProtocolVersion,
    /// The request's `params._meta`, if any.
    pub meta: Option<Value<'a>>,
    /// What the client declared: in `initialize` (legacy) or in the request's `_meta` (2026-07-28).
    /// Ask only for input it supports ([`InputRequest::is_supported_by`]).
    ///
    /// [`InputRequest::is_supported_by`]: crate::server::InputRequest::is_supported_by
    pub client: ClientCapabilities,
    /// `inputResponses`: the client's answers to the input requests of the previous round, by key
    /// (see [`input`](crate::server::input)).
    pub input_responses: Option<Value<'a>>,
    /// The state the handler kept for this round ([`InputReply::state`]), verified by the
    /// configured sealer.
    ///
    /// [`InputReply::state`]: crate::server::InputReply::state
    pub request_state: Option<&'a [u8]>,
    /// `_meta.progressToken` and `_meta["io.modelcontextprotocol/logLevel"]`, read with the rest of
    /// `_meta` in one walk.
    pub(crate) progress_token: Option<Value<'a>>,
    pub(crate) log_level: Option<Value<'a>>,
    /// What the validator recorded of the request's document, for walks of `arguments` that read
    /// the record instead of scanning ([`json::Spans`](crate::json::Spans)).
    pub(crate) spans: &'a Spans,
}

impl<'a> RequestContext<'a> {
    /// The client's answer to the input request `key` of the previous round. Every answer is a
    /// result object (`ElicitResult`, `CreateMessageResult`, `ListRootsResult`); anything else under
    /// `key` is no answer, so a handler that asks again when this is `None` re-requests it.
    pub fn input(&self, key: &str) -> Option<Value<'a>> {
        self.input_responses.and_then(|responses| responses.get(key)).filter(|answer| answer.kind() == Kind::Object)
    }
}

/// A `tools/call` request for a tool the engine found in the table.
#[derive(Clone, Copy, Debug)]
pub struct ToolCall<'a> {
    /// The tool's index in [`Handler::tool`].
    pub index: usize,
    /// The tool's name (unescaped).
    pub name: &'a str,
    /// `arguments`: a JSON object, if the client sent one.
    pub arguments: Option<Value<'a>>,
    /// Time, version and `_meta`.
    pub context: RequestContext<'a>,
}

impl<'a> ToolCall<'a> {
    /// The argument `key`, if present.
    pub fn argument(&self, key: &str) -> Option<Value<'a>> {
        let spans = self.context.spans;
        self.arguments.and_then(|args| args.members_spanned(spans).find_key(key))
    }

    /// The arguments read as a `T` ([`json::from_value`](crate::json::from_value): strings
    /// borrowed from the request, no allocation); absent arguments read as `{}`. On error, answer
    /// with [`ToolReply::invalid_arguments`], which answers as the version prescribes.
    ///
    /// ```
    /// use mcp_sansio::server::{ToolCall, ToolReply};
    ///
    /// #[derive(serde::Deserialize)]
    /// struct Move<'a> {
    ///     axis: &'a str,
    ///     steps: i32,
    /// }
    ///
    /// fn call_tool(call: ToolCall<'_>, reply: ToolReply<'_>) {
    ///     match call.arguments::<Move<'_>>() {
    ///         Ok(m) => reply.text_fmt(format_args!("moved {} by {}", m.axis, m.steps)).finish(),
    ///         Err(error) => reply.invalid_arguments(&error),
    ///     }
    /// }
    /// ```
    #[allow(clippy::result_large_err, reason = "returned once, as `json::from_value`")]
    pub fn arguments<T: serde::Deserialize<'a>>(&self) -> Result<T, crate::json::DeError<'a>> {
        match (self.arguments, crate::json::parse(b"{}", 1)) {
            (Some(arguments), _) => crate::json::de::from_value_in(arguments, Some(self.context.spans)),
            (None, Ok(arguments)) => crate::json::from_value(arguments),
            // `{}` is valid JSON: never taken.
            (None, Err(_)) => Err(crate::json::DeError::of_value("no arguments")),
        }
    }
}

/// A `resources/read` request. The engine does not check the URI against the list (dynamic
/// resources are the handler's business): answer unknown URIs with [`ResourceReply::not_found`].
#[derive(Clone, Copy, Debug)]
pub struct ResourceRead<'a> {
    /// The requested URI (unescaped).
    pub uri: &'a str,
    /// The index in [`Handler::resource_template`] of the first template the URI matches, if any
    /// (read its variables with [`ResourceRead::variables`]).
    pub template: Option<usize>,
    /// Time, version and `_meta`.
    pub context: RequestContext<'a>,
}

impl<'a> ResourceRead<'a> {
    /// The URI's variables under `template` (usually the one [`ResourceRead::template`] names),
    /// still percent-encoded; `None` if it does not match.
    pub fn variables<'t>(&self, template: &ResourceTemplate<'t>) -> Option<Variables<'t, 'a>> {
        UriTemplate(template.uri_template).matches(self.uri)
    }

    /// The URI's variable `name` under `template`, still percent-encoded: one value of
    /// [`ResourceRead::variables`], found without room for all of them.
    pub fn variable(&self, template: &ResourceTemplate<'_>, name: &str) -> Option<&'a str> {
        UriTemplate(template.uri_template).variable(self.uri, name)
    }
}

/// What a `completion/complete` request asks to complete.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum CompletionRef<'a> {
    /// An argument of a prompt (`ref/prompt`).
    Prompt {
        /// The prompt's index in [`Handler::prompt`].
        index: usize,
        /// Its name.
        name: &'a str,
    },
    /// A variable of a resource template (`ref/resource`).
    ResourceTemplate {
        /// The template's index in [`Handler::resource_template`].
        index: usize,
        /// Its URI template.
        uri_template: &'a str,
    },
}

/// A `completion/complete` request for a prompt or template the engine found.
#[derive(Clone, Copy, Debug)]
pub struct CompletionRequest<'a> {
    /// What is being completed.
    pub reference: CompletionRef<'a>,
    /// The argument's (or template variable's) name.
    pub argument: &'a str,
    /// What the user typed so far (unescaped).
    pub value: &'a str,
    /// `context.arguments`: the values of other arguments already chosen (2025-06-18 and later).
    pub arguments: Option<Value<'a>>,
    /// Time, version and `_meta`.
    pub context: RequestContext<'a>,
}

impl<'a> CompletionRequest<'a> {
    /// The already chosen value of another argument (still escaped).
    pub fn resolved(&self, name: &str) -> Option<JsonStr<'a>> {
        self.arguments.and_then(|args| args.get(name)).and_then(|v| v.as_str())
    }
}

/// A `prompts/get` request for a prompt the engine found, with every required argument present.
#[derive(Clone, Copy, Debug)]
pub struct PromptGet<'a> {
    /// The prompt's index in [`Handler::prompt`].
    pub index: usize,
    /// The prompt's name (unescaped).
    pub name: &'a str,
    /// `arguments`: an object of strings, if the client sent one.
    pub arguments: Option<Value<'a>>,
    /// Time, version and `_meta`.
    pub context: RequestContext<'a>,
}

impl<'a> PromptGet<'a> {
    /// The string argument `key`, if present (still escaped; write it with
    /// `format_args!`, since [`JsonStr`] displays unescaped).
    pub fn argument(&self, key: &str) -> Option<JsonStr<'a>> {
        self.arguments.and_then(|args| args.get(key)).and_then(|v| v.as_str())
    }
}

/// The application side of a server.
///
/// Listing methods are called by index, from 0 until they return `None`; the order must be stable
/// (pagination cursors are indexes). Each answering method receives a reply that writes straight into
/// the transmit buffer. The handler must either finish it, or [`defer`](ToolReply::defer) it and answer
/// later through [`Engine::reply_tool`](crate::server::Engine::reply_tool) (through a `Server` too) and friends. A reply dropped
/// without either is answered with an internal error, so every request gets exactly one answer.
///
/// The trait is the same in every build; a method whose cargo feature is off (`resources`,
/// `prompts`, `completion`; see the crate's "Features") is never called, and the capabilities it
/// declares are served only as far as the build has them.
pub trait Handler {
    /// A fixed table of tools. A handler whose tools never change sets this and leaves
    /// [`Handler::tool`] to its default; a dynamic handler overrides [`Handler::tool`] instead.
    ///
    /// A handler that overrides [`Handler::tool`] may still set this to the fixed tools it lists
    /// first (at the same indexes): a `tools/call` whose name came escaped (`"ech\u006f"`) is then
    /// given the table's name. Any other escaped name is unescaped into a buffer of
    /// [`MAX_ESCAPED_NAME_LEN`](crate::server::MAX_ESCAPED_NAME_LEN) bytes on the stack, in a frame
    /// only that case uses (a longer one is answered `-32602`).
    const TOOLS: &'static [Tool<'static>] = &[];
    /// A fixed table of resources; see [`Handler::TOOLS`].
    const RESOURCES: &'static [Resource<'static>] = &[];
    /// A fixed table of prompts; see [`Handler::TOOLS`].
    const PROMPTS: &'static [Prompt<'static>] = &[];
    /// A fixed table of resource templates; see [`Handler::TOOLS`].
    const RESOURCE_TEMPLATES: &'static [ResourceTemplate<'static>] = &[];

    /// The capabilities this application offers, when [`Config::capabilities`] does not set them.
    ///
    /// The default declares what the static tables hold ([`table_capabilities`]): `tools` when
    /// [`Handler::TOOLS`] is not empty, `resources` for [`Handler::RESOURCES`] or
    /// [`Handler::RESOURCE_TEMPLATES`], `prompts` for [`Handler::PROMPTS`]. A handler whose tables
    /// are dynamic (it overrides [`Handler::tool`] and the like) declares its capabilities here, so
    /// that they hold from the first request on, whatever its tables hold at that moment (a list
    /// that starts empty and fills later is still served). Override it as well to add
    /// `completions`, `logging`, `listChanged` or `subscribe`.
    ///
    /// [`Config::capabilities`]: crate::server::Config::capabilities
    fn capabilities(&self) -> ServerCapabilities {
        table_capabilities::<Self>()
    }

    /// The tool at `index`, or `None` past the end. Defaults to [`Handler::TOOLS`].
    fn tool(&self, index: usize) -> Option<Tool<'_>> {
        Self::TOOLS.get(index).copied()
    }

    /// The resource at `index`, or `None` past the end. Defaults to [`Handler::RESOURCES`].
    fn resource(&self, index: usize) -> Option<Resource<'_>> {
        Self::RESOURCES.get(index).copied()
    }

    /// The prompt at `index`, or `None` past the end. Defaults to [`Handler::PROMPTS`].
    fn prompt(&self, index: usize) -> Option<Prompt<'_>> {
        Self::PROMPTS.get(index).copied()
    }

    /// The resource template at `index`, or `None` past the end. Defaults to
    /// [`Handler::RESOURCE_TEMPLATES`].
    fn resource_template(&self, index: usize) -> Option<ResourceTemplate<'_>> {
        Self::RESOURCE_TEMPLATES.get(index).copied()
    }

    /// Runs a tool. Report tool failures with [`ToolReply::finish_error`] (an `isError` result the
    /// model can see), not as protocol errors.
    fn call_tool(&mut self, call: ToolCall<'_>, reply: ToolReply<'_>) {
        let _ = call;
        reply.finish_error_text("this server has no tools");
    }

    /// Reads a resource.
    fn read_resource(&mut self, read: ResourceRead<'_>, reply: ResourceReply<'_>) {
        reply.not_found(read.uri);
    }

    /// Renders a prompt.
    fn get_prompt(&mut self, get: PromptGet<'_>, reply: PromptReply<'_>) {
        let _ = get;
        reply.fail(crate::jsonrpc::code::INTERNAL_ERROR, "this server has no prompts");
    }

    /// Suggests values for a prompt argument or a template variable (served when the capabilities
    /// include `completions`). The default suggests nothing.
    fn complete(&mut self, request: CompletionRequest<'_>, reply: CompletionReply<'_>) {
        let _ = request;
        reply.finish();
    }

    /// Which lists changed while the handler served the last request (a tool appeared, a prompt
    /// went away). Called by the engine after each request the handler served; the engine then sends
    /// `notifications/…/list_changed` to the legacy session and to the listen streams that asked for
    /// them, where the capabilities declare `listChanged`. Changes made outside a request are
    /// announced with [`Engine::list_changed`](crate::server::Engine::list_changed).
    fn take_list_changes(&mut self) -> crate::server::ListChanges {
        crate::server::ListChanges::NONE
    }

    /// What came of a request this server sent ([`Engine::ping`], [`Engine::send_request`]): the
    /// client's answer, a timeout, or the end of input. Called once per request sent, except for
    /// requests the application cancelled itself ([`Engine::cancel_request`]).
    ///
    /// [`Engine::ping`]: crate::server::Engine::ping
    /// [`Engine::send_request`]: crate::server::Engine::send_request
    /// [`Engine::cancel_request`]: crate::server::Engine::cancel_request
    fn on_response(&mut self, now: Instant, response: Response<'_>) {
        let _ = (now, response);
    }

    /// Something happened that the application may want to know or log (a legacy session opened, a
    /// deferred request was cancelled, malformed input was rejected). Called synchronously from the
    /// engine method that caused it, so nothing is queued and nothing is lost.
    fn on_event(&mut self, now: Instant, event: Event<'_>) {
        let _ = (now, event);
    }
}

/// A handler's tool table is what the Streamable HTTP rules check `Mcp-Param-*` headers against.
#[cfg(feature = "http")]
impl<H: Handler + ?Sized> crate::http::ToolSchemas for H {
    fn tool_schema(&self, index: usize) -> Option<(&str, &str)> {
        self.tool(index).map(|tool| (tool.name, tool.input_schema))
    }
}

/// The capabilities of `H`'s static tables: `tools` when [`Handler::TOOLS`] is not empty,
/// `resources` when [`Handler::RESOURCES`] or [`Handler::RESOURCE_TEMPLATES`] is, `prompts` when
/// [`Handler::PROMPTS`] is (the default of [`Handler::capabilities`]).
pub const fn table_capabilities<H: Handler + ?Sized>() -> ServerCapabilities {
    let mut capabilities = ServerCapabilities::NONE;
    if !H::TOOLS.is_empty() {
        capabilities = capabilities.with_tools(ListCapability { list_changed: false });
    }
    if !H::RESOURCES.is_empty() || !H::RESOURCE_TEMPLATES.is_empty() {
        capabilities = capabilities.with_resources(ResourceCapability { subscribe: false, list_changed: false });
    }
    if !H::PROMPTS.is_empty() {
        capabilities = capabilities.with_prompts(ListCapability { list_changed: false });
    }
    capabilities
}
