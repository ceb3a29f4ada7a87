//! MCP data types that both roles use: implementation info, tools, resources, prompts and
//! capabilities. A server describes itself with them; a client reads them from a server.
//!
//! # Building descriptors
//!
//! The descriptors that grow with the specification ([`Implementation`], [`Tool`],
//! [`ToolAnnotations`], [`Resource`], [`ResourceTemplate`], [`Prompt`], [`PromptArgument`], [`Icon`],
//! [`Annotations`], and the server's [`Config`](crate::server::Config) and
//! [`CacheHints`](crate::server::CacheHints)) are `#[non_exhaustive]`: outside this crate they are
//! built with `new`, which takes the fields every value needs, followed by one `with_<field>` call
//! per optional field it sets, so a field a new protocol version adds breaks no caller. Every `new`
//! and `with_*` is a `const fn`, so the same chain builds a `static` or `const` table on a
//! microcontroller. The fields stay public for reading (and for assignment to a `let mut` value).
//!
//! ```
//! use mcp_sansio::mcp::{Icon, Prompt, PromptArgument, Tool, ToolAnnotations};
//!
//! const SCHEMA: &str = r#"{"type":"object","properties":{"text":{"type":"string"}}}"#;
//! const OUT: &str = r#"{"type":"object","properties":{"text":{"type":"string"}}}"#;
//! static ICONS: [Icon<'static>; 1] = [Icon::new("data:,e").with_mime_type("image/png")];
//!
//! static TOOLS: [Tool<'static>; 2] = [
//!     Tool::new("echo", "Echoes its text", SCHEMA)
//!         .with_title("Echo")
//!         .with_output_schema(OUT)
//!         .with_annotations(ToolAnnotations::new().with_read_only(true))
//!         .with_icons(&ICONS),
//!     Tool::new("reset", "Resets the device", "{}"),
//! ];
//! static ARGS: [PromptArgument<'static>; 1] = [PromptArgument::new("topic", true).with_description("What about")];
//! static PROMPTS: [Prompt<'static>; 1] = [Prompt::new("talk", &ARGS).with_description("Talk")];
//!
//! assert_eq!(TOOLS[0].title, Some("Echo"));
//! assert_eq!(TOOLS[1].output_schema, None);
//! assert!(PROMPTS[0].arguments[0].required);
//! ```

use crate::json::JsonWriter;
use crate::version::ProtocolVersion;

mod capabilities;
mod content;
pub mod input;
mod logging;
pub mod meta;
pub mod task;
pub mod uri_template;
pub mod view;

pub use capabilities::{ClientCapabilities, ListCapability, ResourceCapability, ServerCapabilities};
pub(crate) use content::write_icons;
pub use content::{Annotations, Icon, Priority, Role, Theme};
pub use logging::LoggingLevel;
pub use task::{TASKS_EXTENSION, TaskStatus, TaskSupport};
pub use uri_template::{UriTemplate, Variables};
pub use view::{ListPage, PromptView, ResourceTemplateView, ResourceView, ToolView};

/// Name and version of a program (`serverInfo`, `clientInfo`), [built with `new` and `with_*`](crate::mcp#building-descriptors).
///
/// ```
/// use mcp_sansio::mcp::{Icon, Implementation};
///
/// static ICONS: [Icon<'static>; 1] = [Icon::new("https://example.com/icon.png")];
/// const INFO: Implementation<'static> =
///     Implementation::new("thermo", "1.2.0").with_title("Thermometer").with_icons(&ICONS);
/// assert_eq!(INFO.title, Some("Thermometer"));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
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

    /// Sets [`title`](Self::title).
    #[must_use]
    pub const fn with_title(mut self, title: &'a str) -> Self {
        self.title = Some(title);
        self
    }

    /// Sets [`description`](Self::description).
    #[must_use]
    pub const fn with_description(mut self, description: &'a str) -> Self {
        self.description = Some(description);
        self
    }

    /// Sets [`website_url`](Self::website_url).
    #[must_use]
    pub const fn with_website_url(mut self, website_url: &'a str) -> Self {
        self.website_url = Some(website_url);
        self
    }

    /// Sets [`icons`](Self::icons).
    #[must_use]
    pub const fn with_icons(mut self, icons: &'a [Icon<'a>]) -> Self {
        self.icons = icons;
        self
    }

    /// Writes the `Implementation` object (`serverInfo`, `clientInfo`) with the fields `version` has.
    pub(crate) fn write(&self, w: &mut JsonWriter<'_>, version: ProtocolVersion) {
        w.raw(b"{\"name\":");
        w.string(self.name);
        w.member("version");
        w.string(self.version);
        if let (Some(title), true) = (self.title, version.has_titles()) {
            w.member("title");
            w.string(title);
        }
        if version.has_icons() {
            if let Some(description) = self.description {
                w.member("description");
                w.string(description);
            }
            if let Some(url) = self.website_url {
                w.member("websiteUrl");
                w.string(url);
            }
            write_icons(w, self.icons, version);
        }
        w.byte(b'}');
    }
}

/// Behaviour hints for a tool, [built with `new` and `with_*`](crate::mcp#building-descriptors). All fields are optional hints, untrusted by
/// clients.
///
/// ```
/// use mcp_sansio::mcp::ToolAnnotations;
///
/// const HINTS: ToolAnnotations = ToolAnnotations::new().with_read_only(true).with_open_world(false);
/// assert_eq!((HINTS.read_only, HINTS.destructive), (Some(true), None));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
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

impl ToolAnnotations {
    /// No hints.
    pub const fn new() -> Self {
        ToolAnnotations { read_only: None, destructive: None, idempotent: None, open_world: None }
    }

    /// Sets [`read_only`](Self::read_only).
    #[must_use]
    pub const fn with_read_only(mut self, read_only: bool) -> Self {
        self.read_only = Some(read_only);
        self
    }

    /// Sets [`destructive`](Self::destructive).
    #[must_use]
    pub const fn with_destructive(mut self, destructive: bool) -> Self {
        self.destructive = Some(destructive);
        self
    }

    /// Sets [`idempotent`](Self::idempotent).
    #[must_use]
    pub const fn with_idempotent(mut self, idempotent: bool) -> Self {
        self.idempotent = Some(idempotent);
        self
    }

    /// Sets [`open_world`](Self::open_world).
    #[must_use]
    pub const fn with_open_world(mut self, open_world: bool) -> Self {
        self.open_world = Some(open_world);
        self
    }
}

/// A tool, as `tools/list` shows it, [built with `new` and `with_*`](crate::mcp#building-descriptors).
///
/// ```
/// use mcp_sansio::mcp::{Tool, ToolAnnotations};
///
/// const SCHEMA: &str = r#"{"type":"object","properties":{"text":{"type":"string"}}}"#;
/// static TOOLS: [Tool<'static>; 1] = [Tool::new("echo", "Echoes its text", SCHEMA)
///     .with_title("Echo")
///     .with_output_schema(SCHEMA)
///     .with_annotations(ToolAnnotations::new().with_read_only(true))];
/// assert_eq!(TOOLS[0].annotations.read_only, Some(true));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
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
    /// Whether the tool runs as a task ([`server::tasks`](crate::server::tasks), feature `tasks`).
    #[cfg(feature = "tasks")]
    pub task_support: TaskSupport,
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
            annotations: ToolAnnotations::new(),
            icons: &[],
            meta: None,
            #[cfg(feature = "tasks")]
            task_support: TaskSupport::Forbidden,
        }
    }

    /// Sets [`task_support`](Self::task_support).
    #[cfg(feature = "tasks")]
    #[must_use]
    pub const fn with_task_support(mut self, task_support: TaskSupport) -> Self {
        self.task_support = task_support;
        self
    }

    /// Sets [`title`](Self::title).
    #[must_use]
    pub const fn with_title(mut self, title: &'a str) -> Self {
        self.title = Some(title);
        self
    }

    /// Replaces [`description`](Self::description) (which [`new`](Self::new) sets).
    #[must_use]
    pub const fn with_description(mut self, description: &'a str) -> Self {
        self.description = Some(description);
        self
    }

    /// Sets [`output_schema`](Self::output_schema).
    #[must_use]
    pub const fn with_output_schema(mut self, output_schema: &'a str) -> Self {
        self.output_schema = Some(output_schema);
        self
    }

    /// Sets [`annotations`](Self::annotations).
    #[must_use]
    pub const fn with_annotations(mut self, annotations: ToolAnnotations) -> Self {
        self.annotations = annotations;
        self
    }

    /// Sets [`icons`](Self::icons).
    #[must_use]
    pub const fn with_icons(mut self, icons: &'a [Icon<'a>]) -> Self {
        self.icons = icons;
        self
    }

    /// Sets [`meta`](Self::meta), the JSON text of an object.
    #[must_use]
    pub const fn with_meta(mut self, meta: &'a str) -> Self {
        self.meta = Some(meta);
        self
    }
}

/// A resource, as `resources/list` shows it, [built with `new` and `with_*`](crate::mcp#building-descriptors).
///
/// ```
/// use mcp_sansio::mcp::{Annotations, Resource, Role};
///
/// static RESOURCES: [Resource<'static>; 1] = [Resource::new("device://status", "status")
///     .with_description("Current status")
///     .with_mime_type("application/json")
///     .with_annotations(Annotations::new().with_audience(&[Role::Assistant]))];
/// assert_eq!(RESOURCES[0].size, None);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
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
    /// A resource with no fields set (an empty URI and name).
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

    /// Sets [`title`](Self::title).
    #[must_use]
    pub const fn with_title(mut self, title: &'a str) -> Self {
        self.title = Some(title);
        self
    }

    /// Sets [`description`](Self::description).
    #[must_use]
    pub const fn with_description(mut self, description: &'a str) -> Self {
        self.description = Some(description);
        self
    }

    /// Sets [`mime_type`](Self::mime_type).
    #[must_use]
    pub const fn with_mime_type(mut self, mime_type: &'a str) -> Self {
        self.mime_type = Some(mime_type);
        self
    }

    /// Sets [`size`](Self::size), in bytes.
    #[must_use]
    pub const fn with_size(mut self, size: u64) -> Self {
        self.size = Some(size);
        self
    }

    /// Sets [`annotations`](Self::annotations).
    #[must_use]
    pub const fn with_annotations(mut self, annotations: Annotations<'a>) -> Self {
        self.annotations = annotations;
        self
    }

    /// Sets [`icons`](Self::icons).
    #[must_use]
    pub const fn with_icons(mut self, icons: &'a [Icon<'a>]) -> Self {
        self.icons = icons;
        self
    }
}

/// A resource template, as `resources/templates/list` shows it: a family of resources whose URIs
/// match [`uri_template`](ResourceTemplate::uri_template); [built with `new` and `with_*`](crate::mcp#building-descriptors).
///
/// ```
/// use mcp_sansio::mcp::ResourceTemplate;
///
/// static TEMPLATES: [ResourceTemplate<'static>; 1] = [ResourceTemplate::new("device://sensor/{name}", "sensor")
///     .with_title("Sensor reading")
///     .with_mime_type("application/json")];
/// assert_eq!(TEMPLATES[0].description, None);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
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

    /// Sets [`title`](Self::title).
    #[must_use]
    pub const fn with_title(mut self, title: &'a str) -> Self {
        self.title = Some(title);
        self
    }

    /// Sets [`description`](Self::description).
    #[must_use]
    pub const fn with_description(mut self, description: &'a str) -> Self {
        self.description = Some(description);
        self
    }

    /// Sets [`mime_type`](Self::mime_type).
    #[must_use]
    pub const fn with_mime_type(mut self, mime_type: &'a str) -> Self {
        self.mime_type = Some(mime_type);
        self
    }

    /// Sets [`annotations`](Self::annotations).
    #[must_use]
    pub const fn with_annotations(mut self, annotations: Annotations<'a>) -> Self {
        self.annotations = annotations;
        self
    }

    /// Sets [`icons`](Self::icons).
    #[must_use]
    pub const fn with_icons(mut self, icons: &'a [Icon<'a>]) -> Self {
        self.icons = icons;
        self
    }
}

/// One argument of a prompt, [built with `new` and `with_*`](crate::mcp#building-descriptors).
///
/// ```
/// use mcp_sansio::mcp::PromptArgument;
///
/// const TOPIC: PromptArgument<'static> = PromptArgument::new("topic", true).with_description("What to talk about");
/// assert_eq!(TOPIC.title, None);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
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

/// A prompt, as `prompts/list` shows it, [built with `new` and `with_*`](crate::mcp#building-descriptors).
///
/// ```
/// use mcp_sansio::mcp::{Prompt, PromptArgument};
///
/// static ARGS: [PromptArgument<'static>; 1] = [PromptArgument::new("symptom", false)];
/// static PROMPTS: [Prompt<'static>; 1] =
///     [Prompt::new("diagnose", &ARGS).with_title("Diagnose").with_description("Find what is wrong")];
/// assert_eq!(PROMPTS[0].arguments.len(), 1);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
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

    /// Sets [`title`](Self::title).
    #[must_use]
    pub const fn with_title(mut self, title: &'a str) -> Self {
        self.title = Some(title);
        self
    }

    /// Sets [`description`](Self::description).
    #[must_use]
    pub const fn with_description(mut self, description: &'a str) -> Self {
        self.description = Some(description);
        self
    }
}

impl<'a> Prompt<'a> {
    /// A prompt with a name and arguments; other fields empty.
    pub const fn new(name: &'a str, arguments: &'a [PromptArgument<'a>]) -> Self {
        Prompt { name, title: None, description: None, arguments, icons: &[] }
    }

    /// Sets [`title`](Self::title).
    #[must_use]
    pub const fn with_title(mut self, title: &'a str) -> Self {
        self.title = Some(title);
        self
    }

    /// Sets [`description`](Self::description).
    #[must_use]
    pub const fn with_description(mut self, description: &'a str) -> Self {
        self.description = Some(description);
        self
    }

    /// Sets [`icons`](Self::icons).
    #[must_use]
    pub const fn with_icons(mut self, icons: &'a [Icon<'a>]) -> Self {
        self.icons = icons;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each `with_*` sets its field and nothing else: the chains equal the literals they replace.
    #[test]
    fn builders_equal_literals() {
        static ICONS: [Icon<'static>; 1] = [Icon::new("a").with_mime_type("image/png").with_sizes(&["any"])];
        const HINTS: ToolAnnotations = ToolAnnotations::new()
            .with_read_only(true)
            .with_destructive(false)
            .with_idempotent(true)
            .with_open_world(false);
        assert_eq!(
            HINTS,
            ToolAnnotations {
                read_only: Some(true),
                destructive: Some(false),
                idempotent: Some(true),
                open_world: Some(false)
            }
        );
        assert_eq!(ToolAnnotations::new(), ToolAnnotations::default());
        assert_eq!(Annotations::new(), Annotations::NONE);
        assert_eq!(
            Icon::new("a").with_mime_type("image/png").with_sizes(&["any"]).with_theme(Theme::Light),
            Icon { src: "a", mime_type: Some("image/png"), sizes: &["any"], theme: Some(Theme::Light) }
        );
        assert_eq!(
            Implementation::new("n", "1")
                .with_title("T")
                .with_description("D")
                .with_website_url("W")
                .with_icons(&ICONS),
            Implementation {
                name: "n",
                version: "1",
                title: Some("T"),
                description: Some("D"),
                website_url: Some("W"),
                icons: &ICONS
            }
        );
        assert_eq!(
            Tool::new("t", "d", "{}")
                .with_title("T")
                .with_description("D")
                .with_output_schema("{\"type\":\"object\"}")
                .with_annotations(HINTS)
                .with_icons(&ICONS)
                .with_meta("{}"),
            Tool {
                name: "t",
                title: Some("T"),
                description: Some("D"),
                input_schema: "{}",
                output_schema: Some("{\"type\":\"object\"}"),
                annotations: HINTS,
                icons: &ICONS,
                meta: Some("{}"),
                #[cfg(feature = "tasks")]
                task_support: TaskSupport::Forbidden,
            }
        );
        let annotations =
            Annotations::new().with_audience(&[Role::User]).with_priority(Priority::LOWEST).with_last_modified("t");
        assert_eq!(
            annotations,
            Annotations { audience: &[Role::User], priority: Some(Priority::LOWEST), last_modified: Some("t") }
        );
        assert_eq!(
            Resource::new("u", "n")
                .with_title("T")
                .with_description("D")
                .with_mime_type("text/plain")
                .with_size(3)
                .with_annotations(annotations)
                .with_icons(&ICONS),
            Resource {
                uri: "u",
                name: "n",
                title: Some("T"),
                description: Some("D"),
                mime_type: Some("text/plain"),
                size: Some(3),
                annotations,
                icons: &ICONS,
            }
        );
        assert_eq!(
            ResourceTemplate::new("u/{x}", "n")
                .with_title("T")
                .with_description("D")
                .with_mime_type("text/plain")
                .with_annotations(annotations)
                .with_icons(&ICONS),
            ResourceTemplate {
                uri_template: "u/{x}",
                name: "n",
                title: Some("T"),
                description: Some("D"),
                mime_type: Some("text/plain"),
                annotations,
                icons: &ICONS,
            }
        );
        static ARGS: [PromptArgument<'static>; 1] =
            [PromptArgument::new("a", true).with_title("A").with_description("D")];
        assert_eq!(ARGS[0], PromptArgument { name: "a", title: Some("A"), description: Some("D"), required: true });
        assert_eq!(
            Prompt::new("p", &ARGS).with_title("T").with_description("D").with_icons(&ICONS),
            Prompt { name: "p", title: Some("T"), description: Some("D"), arguments: &ARGS, icons: &ICONS }
        );
    }
}
