//! Capabilities: what a server offers and what a client supports, declared explicitly.

use crate::json::{JsonWriter, Value};
use crate::version::ProtocolVersion;

/// A capability with a `listChanged` flag (`tools`, `prompts`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ListCapability {
    /// The server sends `notifications/…/list_changed` when the list changes.
    pub list_changed: bool,
}

/// The `resources` capability.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ResourceCapability {
    /// The server accepts `resources/subscribe` and sends `notifications/resources/updated`.
    pub subscribe: bool,
    /// The server sends `notifications/resources/list_changed`.
    pub list_changed: bool,
}

/// What a server declares in `initialize` and `server/discover` results.
///
/// Build it with the `const` methods, starting from [`ServerCapabilities::NONE`]; a server whose
/// configuration sets none takes its handler's (`Handler::capabilities`: declared, or derived from
/// its static tables).
/// The engine only serves the methods of a declared capability.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub struct ServerCapabilities {
    /// `tools`.
    pub tools: Option<ListCapability>,
    /// `resources`.
    pub resources: Option<ResourceCapability>,
    /// `prompts`.
    pub prompts: Option<ListCapability>,
    /// `logging`.
    pub logging: bool,
    /// `completions` (2025-03-26 and later).
    pub completions: bool,
    /// The tasks extension, `extensions["io.modelcontextprotocol/tasks"]` (2026-07-28; set by an
    /// engine that has a task table, see `server::tasks`), written and read in a 2025-11-25
    /// session as its experimental `tasks` with task-augmented `tools/call`
    /// (`tasks.requests.tools.call`).
    pub tasks: bool,
}

impl ServerCapabilities {
    /// No capabilities.
    pub const NONE: ServerCapabilities = ServerCapabilities {
        tools: None,
        resources: None,
        prompts: None,
        logging: false,
        completions: false,
        tasks: false,
    };

    /// With `tools`.
    #[must_use]
    pub const fn with_tools(mut self, tools: ListCapability) -> Self {
        self.tools = Some(tools);
        self
    }

    /// With `resources`.
    #[must_use]
    pub const fn with_resources(mut self, resources: ResourceCapability) -> Self {
        self.resources = Some(resources);
        self
    }

    /// With `prompts`.
    #[must_use]
    pub const fn with_prompts(mut self, prompts: ListCapability) -> Self {
        self.prompts = Some(prompts);
        self
    }

    /// With `logging`.
    #[must_use]
    pub const fn with_logging(mut self) -> Self {
        self.logging = true;
        self
    }

    /// With `completions`.
    #[must_use]
    pub const fn with_completions(mut self) -> Self {
        self.completions = true;
        self
    }

    /// What of these capabilities this build serves: those whose cargo feature is off (`resources`,
    /// `prompts`, `logging`, `completion`; `subscriptions` for `resources.subscribe`) are cleared,
    /// so they are neither declared nor served.
    #[must_use]
    pub const fn served_by_build(mut self) -> Self {
        if !cfg!(feature = "resources") {
            self.resources = None;
        } else if !cfg!(feature = "subscriptions")
            && let Some(resources) = &mut self.resources
        {
            resources.subscribe = false;
        }
        if !cfg!(feature = "prompts") {
            self.prompts = None;
        }
        if !cfg!(feature = "logging") {
            self.logging = false;
        }
        if !cfg!(feature = "completion") {
            self.completions = false;
        }
        self
    }

    /// Reads a server's `capabilities` object (from an `initialize` or `server/discover` result, as
    /// a client does). Members of the wrong kind count as absent; unknown members are ignored.
    pub fn from_value(value: Value<'_>) -> Self {
        let object = |name: &str| value.get(name).filter(|v| v.kind() == crate::json::Kind::Object);
        let flag = |v: Value<'_>, name: &str| v.get(name).and_then(|f| f.as_bool()) == Some(true);
        let list = |v: Value<'_>| ListCapability { list_changed: flag(v, "listChanged") };
        ServerCapabilities {
            tools: object("tools").map(list),
            resources: object("resources")
                .map(|r| ResourceCapability { subscribe: flag(r, "subscribe"), list_changed: flag(r, "listChanged") }),
            prompts: object("prompts").map(list),
            logging: object("logging").is_some(),
            completions: object("completions").is_some(),
            tasks: has_tasks_extension(value) || has_legacy_tool_tasks(value),
        }
    }

    /// Writes the capabilities object for `version` (`completions` only where it exists).
    pub fn write(&self, w: &mut JsonWriter<'_>, version: ProtocolVersion) {
        let mut object = ObjectWriter::open(w);
        if let Some(tools) = self.tools {
            object.member("tools").flags(&[("listChanged", tools.list_changed)]);
        }
        if let Some(resources) = self.resources {
            object
                .member("resources")
                .flags(&[("subscribe", resources.subscribe), ("listChanged", resources.list_changed)]);
        }
        if let Some(prompts) = self.prompts {
            object.member("prompts").flags(&[("listChanged", prompts.list_changed)]);
        }
        if self.logging {
            object.member("logging").flags(&[]);
        }
        if self.completions && version.has_completions() {
            object.member("completions").flags(&[]);
        }
        #[cfg(feature = "tasks")]
        if self.tasks && version.era() == crate::version::Era::Modern {
            object.member("extensions").w.raw(b"{\"io.modelcontextprotocol/tasks\":{}}");
        } else if self.tasks && version == ProtocolVersion::V2025_11_25 {
            // 2025-11-25's experimental tasks: task-augmented tools/call, tasks/list, tasks/cancel.
            object.member("tasks").w.raw(b"{\"list\":{},\"cancel\":{},\"requests\":{\"tools\":{\"call\":{}}}}");
        }
        object.close();
    }
}

/// What a client declares (`initialize` params, or 2026-07-28 `_meta`), as far as the engine acts on it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub struct ClientCapabilities {
    /// `roots` (with `listChanged` in the legacy era).
    pub roots: Option<ListCapability>,
    /// `sampling`.
    pub sampling: bool,
    /// `sampling.tools`: tool use in sampling requests.
    pub sampling_tools: bool,
    /// `elicitation` in form mode (an empty `elicitation` object means form mode).
    pub elicitation_form: bool,
    /// `elicitation.url`.
    pub elicitation_url: bool,
    /// The tasks extension, `extensions["io.modelcontextprotocol/tasks"]` (2026-07-28, declared per
    /// request).
    pub tasks: bool,
}

impl ClientCapabilities {
    /// No capabilities.
    pub const NONE: ClientCapabilities = ClientCapabilities {
        roots: None,
        sampling: false,
        sampling_tools: false,
        elicitation_form: false,
        elicitation_url: false,
        tasks: false,
    };

    /// With `roots` (and `listChanged` if `list_changed`).
    pub const fn with_roots(mut self, list_changed: bool) -> Self {
        self.roots = Some(ListCapability { list_changed });
        self
    }

    /// With `sampling` (and `sampling.tools` if `tools`).
    pub const fn with_sampling(mut self, tools: bool) -> Self {
        self.sampling = true;
        self.sampling_tools = tools;
        self
    }

    /// With `elicitation` in form mode.
    pub const fn with_elicitation_form(mut self) -> Self {
        self.elicitation_form = true;
        self
    }

    /// With `elicitation` in URL mode.
    pub const fn with_elicitation_url(mut self) -> Self {
        self.elicitation_url = true;
        self
    }

    /// With the tasks extension (2026-07-28).
    pub const fn with_tasks(mut self) -> Self {
        self.tasks = true;
        self
    }

    /// Reads a `capabilities` object. Members of the wrong kind count as absent.
    pub fn from_value(value: Value<'_>) -> Self {
        let object = |name: &str| value.get(name).filter(|v| v.kind() == crate::json::Kind::Object);
        let flag =
            |v: Option<Value<'_>>, name: &str| v.and_then(|v| v.get(name)).and_then(|f| f.as_bool()) == Some(true);
        let roots = object("roots").map(|r| ListCapability { list_changed: flag(Some(r), "listChanged") });
        let sampling = object("sampling");
        let elicitation = object("elicitation");
        let form = elicitation.and_then(|e| e.get("form")).is_some();
        let url = elicitation.and_then(|e| e.get("url")).is_some();
        ClientCapabilities {
            roots,
            sampling: sampling.is_some(),
            sampling_tools: sampling.and_then(|s| s.get("tools")).is_some(),
            // An `elicitation` object without modes is form mode (2025-06-18 had no modes).
            elicitation_form: form || (elicitation.is_some() && !url),
            elicitation_url: url,
            // What a server reads of its client (a client of this crate declares them itself).
            tasks: cfg!(feature = "tasks") && has_tasks_extension(value),
        }
    }

    /// Writes the capabilities object.
    pub fn write(&self, w: &mut JsonWriter<'_>) {
        let mut object = ObjectWriter::open(w);
        if let Some(roots) = self.roots {
            object.member("roots").flags(&[("listChanged", roots.list_changed)]);
        }
        if self.sampling {
            let sampling = object.member("sampling");
            if self.sampling_tools {
                sampling.w.raw(b"{\"tools\":{}}");
            } else {
                sampling.flags(&[]);
            }
        }
        if self.elicitation_form || self.elicitation_url {
            let w = object.member("elicitation").w;
            w.byte(b'{');
            if self.elicitation_form {
                w.raw(b"\"form\":{}");
            }
            if self.elicitation_url {
                w.raw(if self.elicitation_form { b",\"url\":{}" } else { b"\"url\":{}" });
            }
            w.byte(b'}');
        }
        if self.tasks {
            object.member("extensions").w.raw(b"{\"io.modelcontextprotocol/tasks\":{}}");
        }
        object.close();
    }
}

/// Whether a `capabilities` object declares the tasks extension (an object under
/// `extensions["io.modelcontextprotocol/tasks"]`).
fn has_tasks_extension(capabilities: Value<'_>) -> bool {
    let extensions = capabilities.get("extensions").filter(|v| v.kind() == crate::json::Kind::Object);
    extensions.and_then(|e| e.get(crate::mcp::TASKS_EXTENSION)).is_some_and(|t| t.kind() == crate::json::Kind::Object)
}

/// Whether a server's `capabilities` object declares 2025-11-25's task-augmented `tools/call`
/// (an object at `tasks.requests.tools.call`).
fn has_legacy_tool_tasks(capabilities: Value<'_>) -> bool {
    let call = ["tasks", "requests", "tools", "call"].iter().try_fold(capabilities, |v, key| v.get(key));
    call.is_some_and(|c| c.kind() == crate::json::Kind::Object)
}

/// Writes `{"a":…,"b":…}` member by member.
struct ObjectWriter<'w, 'b> {
    w: &'w mut JsonWriter<'b>,
    first: bool,
}

/// The value position of one member.
struct MemberWriter<'m, 'b> {
    w: &'m mut JsonWriter<'b>,
}

impl<'w, 'b> ObjectWriter<'w, 'b> {
    fn open(w: &'w mut JsonWriter<'b>) -> Self {
        w.byte(b'{');
        ObjectWriter { w, first: true }
    }

    fn member(&mut self, name: &str) -> MemberWriter<'_, 'b> {
        self.w.next_key(&mut self.first, name);
        MemberWriter { w: self.w }
    }

    fn close(self) {
        self.w.byte(b'}');
    }
}

impl MemberWriter<'_, '_> {
    /// Writes an object of the flags that are `true` (`{}` when none is).
    fn flags(self, flags: &[(&str, bool)]) {
        self.w.byte(b'{');
        let mut first = true;
        for (name, _) in flags.iter().filter(|(_, on)| *on) {
            self.w.next_key(&mut first, name);
            self.w.raw(b"true");
        }
        self.w.byte(b'}');
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_server_s_capabilities_read_back_as_written() {
        let all = ServerCapabilities::NONE
            .with_tools(ListCapability { list_changed: true })
            .with_resources(ResourceCapability { subscribe: true, list_changed: false })
            .with_prompts(ListCapability { list_changed: false })
            .with_logging()
            .with_completions();
        for caps in [ServerCapabilities::NONE, all, ServerCapabilities::NONE.with_prompts(ListCapability::default())] {
            let mut buf = [0u8; 256];
            let mut w = JsonWriter::new(&mut buf);
            caps.write(&mut w, ProtocolVersion::LATEST_LEGACY);
            let len = w.len();
            let value = crate::json::parse(&buf[..len], 8).unwrap();
            assert_eq!(ServerCapabilities::from_value(value), caps);
        }
        let odd =
            crate::json::parse(br#"{"tools":true,"resources":{"subscribe":"yes"},"experimental":{},"logging":{}}"#, 8)
                .unwrap();
        assert_eq!(
            ServerCapabilities::from_value(odd),
            ServerCapabilities::NONE.with_resources(ResourceCapability::default()).with_logging(),
            "members of the wrong kind are absent, unknown ones ignored"
        );
    }

    use super::*;

    use crate::json::write::written_by as written;

    #[test]
    fn server_capabilities_are_written_as_declared() {
        let caps = ServerCapabilities::NONE
            .with_tools(ListCapability { list_changed: true })
            .with_resources(ResourceCapability { subscribe: true, list_changed: false })
            .with_logging()
            .with_completions();
        assert_eq!(
            written(|w| caps.write(w, ProtocolVersion::V2025_11_25)),
            r#"{"tools":{"listChanged":true},"resources":{"subscribe":true},"logging":{},"completions":{}}"#
        );
        // `completions` did not exist in 2024-11-05.
        assert_eq!(
            written(|w| caps.write(w, ProtocolVersion::V2024_11_05)),
            r#"{"tools":{"listChanged":true},"resources":{"subscribe":true},"logging":{}}"#
        );
        assert_eq!(written(|w| ServerCapabilities::NONE.write(w, ProtocolVersion::LATEST)), "{}");
    }

    #[test]
    fn tasks_are_read_in_both_eras() {
        let read = |text: &str| ServerCapabilities::from_value(crate::json::parse(text.as_bytes(), 8).unwrap()).tasks;
        assert!(read(r#"{"extensions":{"io.modelcontextprotocol/tasks":{}}}"#));
        assert!(read(r#"{"tasks":{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}}"#), "2025-11-25");
        // Tasks without task-augmented tools/call (a server that only lists them) are not the client's to ask for.
        assert!(!read(r#"{"tasks":{"list":{},"cancel":{}}}"#));
        assert!(!read(r#"{"tasks":{"requests":{"tools":{"call":true}}}}"#));
        #[cfg(feature = "tasks")]
        {
            let mut buf = [0u8; 256];
            let mut w = JsonWriter::new(&mut buf);
            ServerCapabilities { tasks: true, ..ServerCapabilities::NONE }.write(&mut w, ProtocolVersion::V2025_11_25);
            let len = w.len();
            assert!(ServerCapabilities::from_value(crate::json::parse(&buf[..len], 8).unwrap()).tasks);
        }
    }

    #[test]
    fn client_capabilities_round_trip() {
        let text = br#"{"roots":{"listChanged":true},"sampling":{"tools":{}},"elicitation":{}}"#;
        let value = crate::json::parse(text, 8).unwrap();
        let caps = ClientCapabilities::from_value(value);
        assert_eq!(caps.roots, Some(ListCapability { list_changed: true }));
        assert!(caps.sampling && caps.sampling_tools && caps.elicitation_form && !caps.elicitation_url);
        assert_eq!(
            written(|w| caps.write(w)),
            r#"{"roots":{"listChanged":true},"sampling":{"tools":{}},"elicitation":{"form":{}}}"#
        );
        let none = ClientCapabilities::from_value(crate::json::parse(br#"{"roots":3}"#, 8).unwrap());
        assert_eq!(none, ClientCapabilities::NONE);
    }
}
