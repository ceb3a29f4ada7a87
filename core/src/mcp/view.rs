//! What a client reads of a server's lists: pages of `tools/list`, `resources/list`,
//! `resources/templates/list` and `prompts/list`, and each item on them, borrowed from the
//! received message without copying. Strings are [`JsonStr`]s (they may hold escapes: compare with
//! [`JsonStr::eq_str`], copy out with [`JsonStr::unescape_into`]); schemas and other objects are
//! [`Value`]s. The server's own descriptors ([`Tool`](crate::mcp::Tool) and the others) hold plain
//! `&str`s and cannot borrow escaped text, hence these views.
//!
//! An item that lacks a member the spec requires (a tool without `name` or `inputSchema`) is
//! skipped by the page's iterators and `None` from `from_value`.

use crate::json::{JsonStr, Kind, Value};

/// One page of a list result: its items and the cursor of the next page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ListPage<'a> {
    items: Option<Value<'a>>,
    /// `nextCursor`: pass it as `cursor` to get the next page; `None` on the last page.
    pub next_cursor: Option<JsonStr<'a>>,
}

impl<'a> ListPage<'a> {
    /// Reads a list `result` whose items are the array member `key` (`"tools"`, `"resources"`,
    /// `"resourceTemplates"`, `"prompts"`). `None` if `result` is not an object or the member is
    /// not an array.
    pub fn read(result: Value<'a>, key: &str) -> Option<Self> {
        if result.kind() != Kind::Object {
            return None;
        }
        let items = result.get(key).filter(|items| items.kind() == Kind::Array)?;
        let next_cursor = result.get("nextCursor").and_then(|cursor| cursor.as_str());
        Some(ListPage { items: Some(items), next_cursor })
    }

    /// Every item of the page, as it is.
    pub fn items(&self) -> impl Iterator<Item = Value<'a>> + 'a {
        self.items.into_iter().flat_map(|items| items.elements())
    }

    /// The page's tools (a `tools/list` page).
    pub fn tools(&self) -> impl Iterator<Item = ToolView<'a>> + 'a {
        self.items().filter_map(ToolView::from_value)
    }

    /// The page's resources (a `resources/list` page).
    pub fn resources(&self) -> impl Iterator<Item = ResourceView<'a>> + 'a {
        self.items().filter_map(ResourceView::from_value)
    }

    /// The page's resource templates (a `resources/templates/list` page).
    pub fn resource_templates(&self) -> impl Iterator<Item = ResourceTemplateView<'a>> + 'a {
        self.items().filter_map(ResourceTemplateView::from_value)
    }

    /// The page's prompts (a `prompts/list` page).
    pub fn prompts(&self) -> impl Iterator<Item = PromptView<'a>> + 'a {
        self.items().filter_map(PromptView::from_value)
    }
}

fn text<'a>(item: Value<'a>, key: &str) -> Option<JsonStr<'a>> {
    item.get(key).and_then(|v| v.as_str())
}

fn object<'a>(item: Value<'a>, key: &str) -> Option<Value<'a>> {
    item.get(key).filter(|v| v.kind() == Kind::Object)
}

/// A tool on a `tools/list` page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ToolView<'a> {
    /// `name`: what `tools/call` names.
    pub name: JsonStr<'a>,
    /// `title` (2025-06-18 and later).
    pub title: Option<JsonStr<'a>>,
    /// `description`.
    pub description: Option<JsonStr<'a>>,
    /// `inputSchema`: the JSON Schema of the arguments.
    pub input_schema: Value<'a>,
    /// `outputSchema` (2025-06-18 and later).
    pub output_schema: Option<Value<'a>>,
    /// `annotations`: behaviour hints (untrusted).
    pub annotations: Option<Value<'a>>,
    /// `icons` (2025-11-25 and later).
    pub icons: Option<Value<'a>>,
    /// `_meta`.
    pub meta: Option<Value<'a>>,
}

impl<'a> ToolView<'a> {
    /// Reads one tool; `None` without a string `name` and an object `inputSchema`.
    pub fn from_value(item: Value<'a>) -> Option<Self> {
        Some(ToolView {
            name: text(item, "name")?,
            title: text(item, "title"),
            description: text(item, "description"),
            input_schema: object(item, "inputSchema")?,
            output_schema: object(item, "outputSchema"),
            annotations: object(item, "annotations"),
            icons: item.get("icons").filter(|v| v.kind() == Kind::Array),
            meta: object(item, "_meta"),
        })
    }
}

/// A resource on a `resources/list` page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ResourceView<'a> {
    /// `uri`: what `resources/read` names.
    pub uri: JsonStr<'a>,
    /// `name`.
    pub name: JsonStr<'a>,
    /// `title` (2025-06-18 and later).
    pub title: Option<JsonStr<'a>>,
    /// `description`.
    pub description: Option<JsonStr<'a>>,
    /// `mimeType`.
    pub mime_type: Option<JsonStr<'a>>,
    /// `size` in bytes.
    pub size: Option<u64>,
    /// `annotations`.
    pub annotations: Option<Value<'a>>,
}

impl<'a> ResourceView<'a> {
    /// Reads one resource; `None` without string `uri` and `name`.
    pub fn from_value(item: Value<'a>) -> Option<Self> {
        Some(ResourceView {
            uri: text(item, "uri")?,
            name: text(item, "name")?,
            title: text(item, "title"),
            description: text(item, "description"),
            mime_type: text(item, "mimeType"),
            size: item.get("size").and_then(|v| v.as_u64()),
            annotations: object(item, "annotations"),
        })
    }
}

/// A resource template on a `resources/templates/list` page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ResourceTemplateView<'a> {
    /// `uriTemplate` (RFC 6570).
    pub uri_template: JsonStr<'a>,
    /// `name`.
    pub name: JsonStr<'a>,
    /// `title` (2025-06-18 and later).
    pub title: Option<JsonStr<'a>>,
    /// `description`.
    pub description: Option<JsonStr<'a>>,
    /// `mimeType`.
    pub mime_type: Option<JsonStr<'a>>,
}

impl<'a> ResourceTemplateView<'a> {
    /// Reads one template; `None` without string `uriTemplate` and `name`.
    pub fn from_value(item: Value<'a>) -> Option<Self> {
        Some(ResourceTemplateView {
            uri_template: text(item, "uriTemplate")?,
            name: text(item, "name")?,
            title: text(item, "title"),
            description: text(item, "description"),
            mime_type: text(item, "mimeType"),
        })
    }
}

/// A prompt on a `prompts/list` page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct PromptView<'a> {
    /// `name`: what `prompts/get` names.
    pub name: JsonStr<'a>,
    /// `title` (2025-06-18 and later).
    pub title: Option<JsonStr<'a>>,
    /// `description`.
    pub description: Option<JsonStr<'a>>,
    /// `arguments`: an array of `{name, description, required}`.
    pub arguments: Option<Value<'a>>,
}

impl<'a> PromptView<'a> {
    /// Reads one prompt; `None` without a string `name`.
    pub fn from_value(item: Value<'a>) -> Option<Self> {
        Some(PromptView {
            name: text(item, "name")?,
            title: text(item, "title"),
            description: text(item, "description"),
            arguments: item.get("arguments").filter(|v| v.kind() == Kind::Array),
        })
    }
}

// A server lists every kind, in the modern era.
#[cfg(all(test, feature = "modern", feature = "resources", feature = "prompts"))]
mod tests {
    use super::*;
    use crate::connection::Connection;
    use crate::json::parse;
    use crate::mcp::{Prompt, PromptArgument, Resource, ResourceTemplate, Tool};
    use crate::server::{Buffers, Config, Handler, Server};
    use crate::time::Instant;

    static TOOLS: [Tool<'static>; 2] = [
        Tool::new("echo", "Says \"hi\"\nback", r#"{"type":"object"}"#).with_title("Écho"),
        Tool::new("sum", "", r#"{"type":"object","properties":{"a":{"type":"number"}}}"#)
            .with_output_schema(r#"{"type":"object"}"#),
    ];
    static RESOURCES: [Resource<'static>; 1] = [Resource::new("file:///a b", "a").with_mime_type("text/plain")];
    static TEMPLATES: [ResourceTemplate<'static>; 1] = [ResourceTemplate::new("file:///{path}", "files")];
    static ARGUMENTS: [PromptArgument<'static>; 1] = [PromptArgument::new("code", true)];
    static PROMPTS: [Prompt<'static>; 1] = [Prompt::new("review", &ARGUMENTS).with_description("Reviews")];

    struct App;
    impl Handler for App {
        const TOOLS: &'static [Tool<'static>] = &TOOLS;
        const RESOURCES: &'static [Resource<'static>] = &RESOURCES;
        const RESOURCE_TEMPLATES: &'static [ResourceTemplate<'static>] = &TEMPLATES;
        const PROMPTS: &'static [Prompt<'static>] = &PROMPTS;
    }

    /// The result of `method` as the server writes it (2026-07-28).
    fn listed(method: &str) -> std::vec::Vec<u8> {
        let (mut rx, mut tx) = ([0u8; 2048], [0u8; 4096]);
        let mut server: Server<'_, App> = Server::new(App, Config::new("s", "1"), Buffers { rx: &mut rx, tx: &mut tx });
        let request = crate::server::tests_wire::modern(1, method, "") + "\n";
        assert_eq!(server.handle_input(Instant::ZERO, request.as_bytes()), request.len());
        Connection::poll_transmit(&server).expect("an answer").to_vec()
    }

    #[test]
    fn a_client_reads_back_what_the_server_lists() {
        let message = listed("tools/list");
        let result = parse(&message, 32).unwrap().get("result").unwrap();
        let page = ListPage::read(result, "tools").unwrap();
        let tools: std::vec::Vec<_> = page.tools().collect();
        assert_eq!(tools.len(), 2);
        assert!(tools[0].name.eq_str("echo") && tools[0].title.unwrap().eq_str("Écho"));
        assert!(tools[0].description.unwrap().eq_str("Says \"hi\"\nback"), "escaped text is read");
        assert_eq!(tools[0].input_schema.as_bytes(), br#"{"type":"object"}"#);
        assert!(tools[1].output_schema.is_some() && tools[0].output_schema.is_none());
        assert_eq!(page.next_cursor, None);

        let message = listed("resources/list");
        let page = ListPage::read(parse(&message, 32).unwrap().get("result").unwrap(), "resources").unwrap();
        let resource = page.resources().next().unwrap();
        assert!(resource.uri.eq_str("file:///a b") && resource.mime_type.unwrap().eq_str("text/plain"));

        let message = listed("resources/templates/list");
        let page = ListPage::read(parse(&message, 32).unwrap().get("result").unwrap(), "resourceTemplates").unwrap();
        assert!(page.resource_templates().next().unwrap().uri_template.eq_str("file:///{path}"));

        let message = listed("prompts/list");
        let page = ListPage::read(parse(&message, 32).unwrap().get("result").unwrap(), "prompts").unwrap();
        let prompt = page.prompts().next().unwrap();
        assert!(prompt.name.eq_str("review") && prompt.description.unwrap().eq_str("Reviews"));
        assert_eq!(prompt.arguments.map(|a| a.elements().count()), Some(1));
    }

    #[test]
    fn incomplete_items_are_skipped_and_the_cursor_is_read() {
        let result = parse(
            br#"{"tools":[{"name":"ok","inputSchema":{}},{"name":"no schema"},{"inputSchema":{}},7],"nextCursor":"c2"}"#,
            8,
        )
        .unwrap();
        let page = ListPage::read(result, "tools").unwrap();
        assert_eq!(page.items().count(), 4);
        assert_eq!(page.tools().count(), 1);
        assert!(page.next_cursor.unwrap().eq_str("c2"));
        assert_eq!(ListPage::read(result, "prompts"), None, "no such list");
        assert_eq!(ListPage::read(parse(b"[]", 8).unwrap(), "tools"), None);
    }
}
