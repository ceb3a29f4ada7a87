//! MCP data types that both roles use: implementation info, tools, resources, prompts and
//! capabilities. A server describes itself with them; a client reads them from a server.

use crate::json::JsonWriter;
use crate::version::ProtocolVersion;

mod capabilities;
mod content;
pub mod input;
mod logging;
pub mod meta;
pub mod uri_template;

pub use capabilities::{ClientCapabilities, ListCapability, ResourceCapability, ServerCapabilities};
pub(crate) use content::write_icons;
pub use content::{Annotations, Icon, Priority, Role, Theme};
pub use logging::LoggingLevel;
pub use uri_template::{UriTemplate, Variables};

/// Name and version of a program (`serverInfo`, `clientInfo`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Implementation<'a> {
    /// Programmatic name.
    pub name: &'a str,
    /// Version string.
    pub version: &'a str,
    /// Human-readable name (2025-06-18 and later).
    pub title: Option<&'a str>,
    /// What it is (2025-11-25 and later).
    pub description: Option<&'a str>,
    /// Its web site (2025-11-25 and later).
    pub website_url: Option<&'a str>,
    /// Its icons (2025-11-25 and later).
    pub icons: &'a [Icon<'a>],
}

impl<'a> Implementation<'a> {
    /// A name and a version; other fields empty.
    pub const fn new(name: &'a str, version: &'a str) -> Self {
        Implementation { name, version, title: None, description: None, website_url: None, icons: &[] }
    }

    /// Writes the `Implementation` object (`serverInfo`, `clientInfo`) with the fields `version` has.
    pub(crate) fn write(&self, w: &mut JsonWriter<'_>, version: ProtocolVersion) {
        w.raw(b"{\"name\":");
        w.string(self.name);
        w.raw(b",\"version\":");
        w.string(self.version);
        if let (Some(title), true) = (self.title, version.has_titles()) {
            w.raw(b",\"title\":");
            w.string(title);
        }
        if version.has_icons() {
            for (key, value) in [(&b",\"description\":"[..], self.description), (b",\"websiteUrl\":", self.website_url)]
            {
                if let Some(value) = value {
                    w.raw(key);
                    w.string(value);
                }
            }
            write_icons(w, self.icons, version);
        }
        w.raw(b"}");
    }
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
    /// Icons (2025-11-25 and later).
    pub icons: &'a [Icon<'a>],
    /// `_meta`, as the JSON text of an object (2025-06-18 and later); checked when listed like the
    /// schemas.
    pub meta: Option<&'a str>,
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
            icons: &[],
            meta: None,
        }
    }
}

/// A resource, as `resources/list` shows it. Build a static table with struct update syntax from
/// [`Resource::new`] or [`Resource::EMPTY`].
#[derive(Clone, Copy, Debug, PartialEq)]
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
    /// Size in bytes, if known.
    pub size: Option<u64>,
    /// Hints for the client.
    pub annotations: Annotations<'a>,
    /// Icons (2025-11-25 and later).
    pub icons: &'a [Icon<'a>],
}

impl<'a> Resource<'a> {
    /// A resource with no fields set, for struct update syntax.
    pub const EMPTY: Resource<'static> = Resource::new("", "");

    /// A resource with a URI and a name; other fields empty.
    pub const fn new(uri: &'a str, name: &'a str) -> Self {
        Resource {
            uri,
            name,
            title: None,
            description: None,
            mime_type: None,
            size: None,
            annotations: Annotations::NONE,
            icons: &[],
        }
    }
}

/// A resource template, as `resources/templates/list` shows it: a family of resources whose URIs
/// match [`uri_template`](ResourceTemplate::uri_template).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ResourceTemplate<'a> {
    /// An RFC 6570 URI template, e.g. `device://sensor/{name}` (see [`UriTemplate`] for what the
    /// engine matches).
    pub uri_template: &'a str,
    /// Programmatic name.
    pub name: &'a str,
    /// Human-readable name.
    pub title: Option<&'a str>,
    /// What the resources contain.
    pub description: Option<&'a str>,
    /// MIME type of all matching resources, if they share one.
    pub mime_type: Option<&'a str>,
    /// Hints for the client.
    pub annotations: Annotations<'a>,
    /// Icons (2025-11-25 and later).
    pub icons: &'a [Icon<'a>],
}

impl<'a> ResourceTemplate<'a> {
    /// A template with a URI template and a name; other fields empty.
    pub const fn new(uri_template: &'a str, name: &'a str) -> Self {
        ResourceTemplate {
            uri_template,
            name,
            title: None,
            description: None,
            mime_type: None,
            annotations: Annotations::NONE,
            icons: &[],
        }
    }
}

/// One argument of a prompt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PromptArgument<'a> {
    /// Argument name.
    pub name: &'a str,
    /// Human-readable name (2025-06-18 and later).
    pub title: Option<&'a str>,
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
    /// Icons (2025-11-25 and later).
    pub icons: &'a [Icon<'a>],
}

impl<'a> PromptArgument<'a> {
    /// An argument with a name; `required` as given, other fields empty.
    pub const fn new(name: &'a str, required: bool) -> Self {
        PromptArgument { name, title: None, description: None, required }
    }
}

impl<'a> Prompt<'a> {
    /// A prompt with a name and arguments; other fields empty.
    pub const fn new(name: &'a str, arguments: &'a [PromptArgument<'a>]) -> Self {
        Prompt { name, title: None, description: None, arguments, icons: &[] }
    }
}
