//! MCP data types that both roles use: implementation info, tools, resources, prompts and
//! capabilities. A server describes itself with them; a client reads them from a server.

mod capabilities;

pub use capabilities::{ClientCapabilities, ListCapability, ResourceCapability, ServerCapabilities};

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
