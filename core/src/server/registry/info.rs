//! The owned descriptions of what a [`Registry`](super::Registry) lists: [`ToolInfo`],
//! [`ResourceInfo`], [`TemplateInfo`] and [`PromptInfo`], each with a view as the borrowed
//! descriptor the engine writes.

use alloc::string::String;
use alloc::vec::Vec;

use crate::server::handler::{Prompt, PromptArgument, Resource, ResourceTemplate, Tool, ToolAnnotations};

/// An owned resource template description.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TemplateInfo {
    /// The RFC 6570 URI template (see [`UriTemplate`](crate::mcp::UriTemplate)).
    pub uri_template: String,
    /// Programmatic name.
    pub name: String,
    /// Human-readable name.
    pub title: Option<String>,
    /// What the resources contain.
    pub description: Option<String>,
    /// MIME type of the resources.
    pub mime_type: Option<String>,
}

impl TemplateInfo {
    /// A template with a URI template and a name.
    pub fn new(uri_template: impl Into<String>, name: impl Into<String>) -> Self {
        TemplateInfo { uri_template: uri_template.into(), name: name.into(), ..TemplateInfo::default() }
    }

    pub(super) fn borrow(&self) -> ResourceTemplate<'_> {
        ResourceTemplate {
            title: self.title.as_deref(),
            description: self.description.as_deref(),
            mime_type: self.mime_type.as_deref(),
            ..ResourceTemplate::new(&self.uri_template, &self.name)
        }
    }
}

/// An owned tool description.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ToolInfo {
    /// Unique name.
    pub name: String,
    /// Human-readable name.
    pub title: Option<String>,
    /// What the tool does.
    pub description: Option<String>,
    /// JSON Schema of the arguments, as JSON text.
    pub input_schema: String,
    /// JSON Schema of the structured result, as JSON text.
    pub output_schema: Option<String>,
    /// Behaviour hints.
    pub annotations: ToolAnnotations,
    /// Whether the tool runs as a task ([`tasks`](crate::server::tasks)).
    #[cfg(feature = "tasks")]
    pub task_support: crate::mcp::TaskSupport,
}

impl ToolInfo {
    /// A tool with a name, a description and an input schema (JSON text).
    pub fn new(name: impl Into<String>, description: impl Into<String>, input_schema: impl Into<String>) -> Self {
        ToolInfo {
            name: name.into(),
            description: Some(description.into()),
            input_schema: input_schema.into(),
            ..ToolInfo::default()
        }
    }

    pub(super) fn borrow(&self) -> Tool<'_> {
        Tool {
            name: &self.name,
            title: self.title.as_deref(),
            description: self.description.as_deref(),
            input_schema: &self.input_schema,
            output_schema: self.output_schema.as_deref(),
            annotations: self.annotations,
            icons: &[],
            meta: None,
            #[cfg(feature = "tasks")]
            task_support: self.task_support,
        }
    }
}

/// An owned resource description.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ResourceInfo {
    /// The resource's URI; reads of exactly this URI go to its closure.
    pub uri: String,
    /// Programmatic name.
    pub name: String,
    /// Human-readable name.
    pub title: Option<String>,
    /// What it contains.
    pub description: Option<String>,
    /// MIME type.
    pub mime_type: Option<String>,
}

impl ResourceInfo {
    /// A resource with a URI and a name.
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> Self {
        ResourceInfo { uri: uri.into(), name: name.into(), ..ResourceInfo::default() }
    }

    pub(super) fn borrow(&self) -> Resource<'_> {
        Resource {
            uri: &self.uri,
            name: &self.name,
            title: self.title.as_deref(),
            description: self.description.as_deref(),
            mime_type: self.mime_type.as_deref(),
            ..Resource::EMPTY
        }
    }
}

/// An owned prompt description. Argument names and descriptions are `&'static str` (they are almost
/// always literals, and the engine borrows them as a slice).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PromptInfo {
    /// Unique name.
    pub name: String,
    /// Human-readable name.
    pub title: Option<String>,
    /// What the prompt is for.
    pub description: Option<String>,
    /// Its arguments.
    pub arguments: Vec<PromptArgument<'static>>,
}

impl PromptInfo {
    /// A prompt with a name and a description.
    pub fn new(name: impl Into<String>, description: impl Into<String>) -> Self {
        PromptInfo { name: name.into(), description: Some(description.into()), ..PromptInfo::default() }
    }

    /// Adds an argument.
    pub fn argument(mut self, name: &'static str, description: &'static str, required: bool) -> Self {
        self.arguments.push(PromptArgument { name, title: None, description: Some(description), required });
        self
    }

    pub(super) fn borrow(&self) -> Prompt<'_> {
        Prompt {
            name: &self.name,
            title: self.title.as_deref(),
            description: self.description.as_deref(),
            arguments: &self.arguments,
            icons: &[],
        }
    }
}
