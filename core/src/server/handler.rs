//! What the application writes: its tools, resources and prompts.
//!
//! The engine answers every protocol method itself (`initialize`, `ping`, `server/discover`, the list
//! methods with paging, version and capability checks). The application implements [`Handler`]: it
//! describes its tools, resources and prompts by index, and answers calls, reads and prompt requests
//! through the reply it is handed. The same trait serves a `&'static` table on a microcontroller and a
//! dynamic registry with an allocator.

use crate::json::{JsonStr, Value};
use crate::server::Event;
use crate::server::reply::{PromptReply, ResourceReply, ToolReply};
use crate::time::Instant;
use crate::version::ProtocolVersion;

/// Name and version of a program (`serverInfo`, `clientInfo`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Implementation<'a> {
    /// Programmatic name.
    pub name: &'a str,
    /// Version string.
    pub version: &'a str,
    /// Human-readable name (2025-06-18 and later).
    pub title: Option<&'a str>,
}

/// Behaviour hints for a tool. All fields are optional hints, untrusted by clients.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ToolAnnotations {
    /// The tool does not modify its environment.
    pub read_only: Option<bool>,
    /// The tool may perform destructive updates.
    pub destructive: Option<bool>,
    /// Calling it twice with the same arguments has no further effect.
    pub idempotent: Option<bool>,
    /// The tool interacts with an open world of external entities.
    pub open_world: Option<bool>,
}

/// A tool, as `tools/list` shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tool<'a> {
    /// Unique name (1–128 characters of `[A-Za-z0-9_.-]` recommended).
    pub name: &'a str,
    /// Human-readable name.
    pub title: Option<&'a str>,
    /// What the tool does, for the model.
    pub description: Option<&'a str>,
    /// JSON Schema of the arguments, as JSON text (an object schema). Checked when listed: an invalid
    /// schema makes `tools/list` fail with an internal error naming the tool.
    pub input_schema: &'a str,
    /// JSON Schema of `structuredContent`, as JSON text (2025-06-18 and later).
    pub output_schema: Option<&'a str>,
    /// Behaviour hints (2025-03-26 and later).
    pub annotations: ToolAnnotations,
}

impl<'a> Tool<'a> {
    /// A tool with a name, a description and an input schema; other fields empty.
    pub const fn new(name: &'a str, description: &'a str, input_schema: &'a str) -> Self {
        Tool {
            name,
            title: None,
            description: Some(description),
            input_schema,
            output_schema: None,
            annotations: ToolAnnotations { read_only: None, destructive: None, idempotent: None, open_world: None },
        }
    }
}

/// A resource, as `resources/list` shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Resource<'a> {
    /// The resource's URI.
    pub uri: &'a str,
    /// Programmatic name.
    pub name: &'a str,
    /// Human-readable name.
    pub title: Option<&'a str>,
    /// What it contains.
    pub description: Option<&'a str>,
    /// MIME type of its contents.
    pub mime_type: Option<&'a str>,
}

/// One argument of a prompt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PromptArgument<'a> {
    /// Argument name.
    pub name: &'a str,
    /// What it means.
    pub description: Option<&'a str>,
    /// Whether `prompts/get` must supply it (the engine checks this).
    pub required: bool,
}

/// A prompt, as `prompts/list` shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Prompt<'a> {
    /// Unique name.
    pub name: &'a str,
    /// Human-readable name.
    pub title: Option<&'a str>,
    /// What the prompt is for.
    pub description: Option<&'a str>,
    /// Its arguments.
    pub arguments: &'a [PromptArgument<'a>],
}

/// What every application request carries besides its own parameters.
#[derive(Clone, Copy, Debug)]
pub struct RequestContext<'a> {
    /// The time the engine was given with the input that carried this request.
    pub now: Instant,
    /// The protocol version the request is served in (negotiated, or from its `_meta`).
    pub version: ProtocolVersion,
    /// The request's `params._meta`, if any.
    pub meta: Option<Value<'a>>,
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
        self.arguments.and_then(|args| args.get(key))
    }
}

/// A `resources/read` request. The engine does not check the URI against the list (templates and
/// dynamic resources are the handler's business): answer unknown URIs with [`ResourceReply::not_found`].
#[derive(Clone, Copy, Debug)]
pub struct ResourceRead<'a> {
    /// The requested URI (unescaped).
    pub uri: &'a str,
    /// Time, version and `_meta`.
    pub context: RequestContext<'a>,
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
/// later through [`Server::reply_tool`](crate::server::Server::reply_tool) and friends. A reply dropped
/// without either is answered with an internal error, so every request gets exactly one answer.
pub trait Handler {
    /// A fixed table of tools. A handler whose tools never change sets this and leaves
    /// [`Handler::tool`] to its default; a dynamic handler overrides [`Handler::tool`] instead.
    const TOOLS: &'static [Tool<'static>] = &[];
    /// A fixed table of resources; see [`Handler::TOOLS`].
    const RESOURCES: &'static [Resource<'static>] = &[];
    /// A fixed table of prompts; see [`Handler::TOOLS`].
    const PROMPTS: &'static [Prompt<'static>] = &[];

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

    /// Something happened that the application may want to know or log (a legacy session opened, a
    /// deferred request was cancelled, malformed input was rejected). Called synchronously from the
    /// engine method that caused it, so nothing is queued and nothing is lost.
    fn on_event(&mut self, now: Instant, event: Event<'_>) {
        let _ = (now, event);
    }
}
