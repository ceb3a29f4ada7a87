//! A dynamic registry of tools, resources and prompts, for servers with an allocator.
//!
//! [`Registry`] implements [`Handler`]: register closures at start-up or while serving, and hand the
//! registry to [`Server::new`](crate::server::Server::new). The order of registration is the listing
//! order. A firmware build uses a `&'static` table instead (see the crate docs); both go through the
//! same [`Handler`] trait.

use alloc::boxed::Box;
use alloc::vec::Vec;

use crate::endpoint::Response;
use crate::mcp::{ListCapability, ResourceCapability, ServerCapabilities};
use crate::server::Event;
use crate::server::handler::{
    CompletionRequest, Handler, Prompt, PromptGet, Resource, ResourceRead, ResourceTemplate, Tool, ToolCall,
};
use crate::server::reply::{CompletionReply, PromptReply, ResourceReply, ToolReply};
use crate::server::subscriptions::ListChanges;
use crate::time::Instant;

mod info;

pub use info::{PromptInfo, ResourceInfo, TemplateInfo, ToolInfo};

// `Send`, so a server over a registry can move between the threads of a multi-threaded runtime.
type ToolFn = Box<dyn FnMut(ToolCall<'_>, ToolReply<'_>) + Send>;
type ResourceFn = Box<dyn FnMut(ResourceRead<'_>, ResourceReply<'_>) + Send>;
type PromptFn = Box<dyn FnMut(PromptGet<'_>, PromptReply<'_>) + Send>;
type CompleteFn = Box<dyn FnMut(CompletionRequest<'_>, CompletionReply<'_>) + Send>;
type EventFn = Box<dyn FnMut(Instant, Event<'_>) + Send>;
type ResponseFn = Box<dyn FnMut(Instant, Response<'_>) + Send>;

/// Tools, resources, resource templates and prompts registered at run time, each answered by a
/// closure, and an optional completion closure. It declares `listChanged` for its lists (they may
/// change) and `completions` once a completion closure is set; changes made while serving a request
/// are announced after it ([`Handler::take_list_changes`]), others with
/// [`Server::list_changed`](crate::server::Server::list_changed).
#[derive(Default)]
pub struct Registry {
    tools: Vec<(ToolInfo, ToolFn)>,
    resources: Vec<(ResourceInfo, ResourceFn)>,
    templates: Vec<(TemplateInfo, ResourceFn)>,
    prompts: Vec<(PromptInfo, PromptFn)>,
    complete: Option<CompleteFn>,
    events: Option<EventFn>,
    responses: Option<ResponseFn>,
    logging: bool,
    changes: ListChanges,
}

impl Registry {
    /// An empty registry.
    pub fn new() -> Self {
        Registry::default()
    }

    /// Registers (or replaces, by name) a tool.
    pub fn add_tool(
        &mut self,
        info: ToolInfo,
        run: impl FnMut(ToolCall<'_>, ToolReply<'_>) + Send + 'static,
    ) -> &mut Self {
        let run: ToolFn = Box::new(run);
        match self.tools.iter_mut().find(|(t, _)| t.name == info.name) {
            Some(slot) => *slot = (info, run),
            None => self.tools.push((info, run)),
        }
        self.changes.tools = true;
        self
    }

    /// Removes a tool; `false` if there was none by that name.
    pub fn remove_tool(&mut self, name: &str) -> bool {
        let before = self.tools.len();
        self.tools.retain(|(t, _)| t.name != name);
        let removed = self.tools.len() != before;
        self.changes.tools |= removed;
        removed
    }

    /// Registers (or replaces, by URI) a resource.
    pub fn add_resource(
        &mut self,
        info: ResourceInfo,
        read: impl FnMut(ResourceRead<'_>, ResourceReply<'_>) + Send + 'static,
    ) -> &mut Self {
        let read: ResourceFn = Box::new(read);
        match self.resources.iter_mut().find(|(r, _)| r.uri == info.uri) {
            Some(slot) => *slot = (info, read),
            None => self.resources.push((info, read)),
        }
        self.changes.resources = true;
        self
    }

    /// Registers (or replaces, by URI template) a resource template; reads of URIs that match it
    /// (and are not registered resources) go to its closure, with the variables in
    /// [`ResourceRead::variables`].
    pub fn add_template(
        &mut self,
        info: TemplateInfo,
        read: impl FnMut(ResourceRead<'_>, ResourceReply<'_>) + Send + 'static,
    ) -> &mut Self {
        let read: ResourceFn = Box::new(read);
        match self.templates.iter_mut().find(|(t, _)| t.uri_template == info.uri_template) {
            Some(slot) => *slot = (info, read),
            None => self.templates.push((info, read)),
        }
        self.changes.resources = true;
        self
    }

    /// Removes a resource (by URI) or a template (by URI template); `false` if there was none.
    pub fn remove_resource(&mut self, uri: &str) -> bool {
        let before = self.resources.len() + self.templates.len();
        self.resources.retain(|(r, _)| r.uri != uri);
        self.templates.retain(|(t, _)| t.uri_template != uri);
        let removed = self.resources.len() + self.templates.len() != before;
        self.changes.resources |= removed;
        removed
    }

    /// Answers `completion/complete` with `complete` (and declares `completions`).
    pub fn set_completion(
        &mut self,
        complete: impl FnMut(CompletionRequest<'_>, CompletionReply<'_>) + Send + 'static,
    ) -> &mut Self {
        self.complete = Some(Box::new(complete));
        self
    }

    /// Calls `events` with every [`Event`] of the engine ([`Handler::on_event`]): a deferred
    /// request cancelled, a session opened, input rejected.
    pub fn set_events(&mut self, events: impl FnMut(Instant, Event<'_>) + Send + 'static) -> &mut Self {
        self.events = Some(Box::new(events));
        self
    }

    /// Calls `responses` with what came of each request the server sent to the client
    /// ([`Handler::on_response`]: its answer, a timeout, or the end of input), e.g. those of
    /// [`Engine::request_input`](crate::server::Engine::request_input).
    pub fn set_responses(&mut self, responses: impl FnMut(Instant, Response<'_>) + Send + 'static) -> &mut Self {
        self.responses = Some(Box::new(responses));
        self
    }

    /// Declares `logging`: the closures log about their requests
    /// ([`Engine::log_for`](crate::server::Engine::log_for)) or to the session.
    pub fn declare_logging(&mut self) -> &mut Self {
        self.logging = true;
        self
    }

    /// Registers (or replaces, by name) a prompt.
    pub fn add_prompt(
        &mut self,
        info: PromptInfo,
        get: impl FnMut(PromptGet<'_>, PromptReply<'_>) + Send + 'static,
    ) -> &mut Self {
        let get: PromptFn = Box::new(get);
        match self.prompts.iter_mut().find(|(p, _)| p.name == info.name) {
            Some(slot) => *slot = (info, get),
            None => self.prompts.push((info, get)),
        }
        self.changes.prompts = true;
        self
    }

    /// Removes a prompt; `false` if there was none by that name.
    pub fn remove_prompt(&mut self, name: &str) -> bool {
        let before = self.prompts.len();
        self.prompts.retain(|(p, _)| p.name != name);
        let removed = self.prompts.len() != before;
        self.changes.prompts |= removed;
        removed
    }
}

impl Handler for Registry {
    fn capabilities(&self) -> ServerCapabilities {
        let list = ListCapability { list_changed: true };
        let mut capabilities = ServerCapabilities::NONE;
        if !self.tools.is_empty() {
            capabilities = capabilities.with_tools(list);
        }
        if !self.resources.is_empty() || !self.templates.is_empty() {
            capabilities = capabilities.with_resources(ResourceCapability { subscribe: false, list_changed: true });
        }
        if !self.prompts.is_empty() {
            capabilities = capabilities.with_prompts(list);
        }
        if self.complete.is_some() {
            capabilities = capabilities.with_completions();
        }
        if self.logging {
            capabilities = capabilities.with_logging();
        }
        capabilities
    }

    fn on_event(&mut self, now: Instant, event: Event<'_>) {
        if let Some(events) = self.events.as_mut() {
            events(now, event);
        }
    }

    fn on_response(&mut self, now: Instant, response: Response<'_>) {
        if let Some(responses) = self.responses.as_mut() {
            responses(now, response);
        }
    }

    fn take_list_changes(&mut self) -> ListChanges {
        core::mem::take(&mut self.changes)
    }

    fn resource_template(&self, index: usize) -> Option<ResourceTemplate<'_>> {
        self.templates.get(index).map(|(info, _)| info.borrow())
    }

    fn complete(&mut self, request: CompletionRequest<'_>, reply: CompletionReply<'_>) {
        match self.complete.as_mut() {
            Some(complete) => complete(request, reply),
            None => reply.finish(),
        }
    }

    fn tool(&self, index: usize) -> Option<Tool<'_>> {
        self.tools.get(index).map(|(info, _)| info.borrow())
    }

    fn resource(&self, index: usize) -> Option<Resource<'_>> {
        self.resources.get(index).map(|(info, _)| info.borrow())
    }

    fn prompt(&self, index: usize) -> Option<Prompt<'_>> {
        self.prompts.get(index).map(|(info, _)| info.borrow())
    }

    fn call_tool(&mut self, call: ToolCall<'_>, reply: ToolReply<'_>) {
        match self.tools.get_mut(call.index) {
            Some((_, run)) => run(call, reply),
            None => reply.finish_error_text("tool removed"),
        }
    }

    fn read_resource(&mut self, read: ResourceRead<'_>, reply: ResourceReply<'_>) {
        if let Some((_, run)) = self.resources.iter_mut().find(|(info, _)| info.uri == read.uri) {
            return run(read, reply);
        }
        match read.template.and_then(|index| self.templates.get_mut(index)) {
            Some((_, run)) => run(read, reply),
            None => reply.not_found(read.uri),
        }
    }

    fn get_prompt(&mut self, get: PromptGet<'_>, reply: PromptReply<'_>) {
        match self.prompts.get_mut(get.index) {
            Some((_, run)) => run(get, reply),
            None => reply.fail(crate::jsonrpc::code::INVALID_PARAMS, "prompt removed"),
        }
    }
}

#[cfg(all(test, feature = "full"))]
mod tests {
    use std::string::ToString;
    use std::vec::Vec;

    use super::*;
    use crate::connection::Connection;
    use crate::server::{Buffers, Config, Role, Server};
    use crate::time::Instant;

    fn exchange(server: &mut Server<'_, Registry>, line: &str) -> serde_json::Value {
        let input = std::format!("{line}\n");
        assert_eq!(server.handle_input(Instant::ZERO, input.as_bytes()), input.len());
        let mut out = Vec::new();
        while let Some(bytes) = server.poll_transmit() {
            out.extend_from_slice(bytes);
            let n = bytes.len();
            server.transmit_done(Instant::ZERO, n);
        }
        serde_json::from_slice(&out).unwrap()
    }

    #[test]
    fn events_reach_the_hook_and_logging_is_declared() {
        let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let hook = seen.clone();
        let mut registry = Registry::new();
        registry.declare_logging().set_events(move |_, event| hook.lock().unwrap().push(std::format!("{event:?}")));
        assert!(registry.capabilities().logging);
        assert!(!Registry::new().capabilities().logging);
        let (rx, tx) = (std::vec![0u8; 4096].leak(), std::vec![0u8; 4096].leak());
        let mut server: Server<'_, Registry> = Server::new(registry, Config::new("r", "1"), Buffers { rx, tx });
        let init = exchange(
            &mut server,
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#,
        );
        assert_eq!(init["result"]["capabilities"]["logging"], serde_json::json!({}));
        assert!(seen.lock().unwrap().iter().any(|e| e.starts_with("SessionStarted")), "{:?}", seen.lock().unwrap());
    }

    #[test]
    fn a_registry_server_can_move_between_threads() {
        fn assert_send<T: Send>() {}
        assert_send::<Registry>();
        assert_send::<Server<'static, Registry>>();
        let mut registry = Registry::new();
        registry
            .add_tool(ToolInfo::new("t", "T", r#"{"type":"object"}"#), |_, reply| reply.text("from a thread").finish());
        let mut server =
            Server::new_owned(registry, Config::new("dyn", "1"), crate::server::OwnedBuffers::zeroed(1024, 1024, 0));
        let answer = std::thread::spawn(move || {
            exchange(&mut server, r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#)
        })
        .join()
        .unwrap();
        assert_eq!(answer["result"]["content"][0]["text"], "from a thread");
    }

    #[test]
    fn registered_closures_serve_and_can_be_replaced_or_removed() {
        let mut registry = Registry::new();
        let mut calls = 0u32;
        registry.add_tool(ToolInfo::new("count", "Counts calls", r#"{"type":"object"}"#), move |_, reply| {
            calls += 1;
            reply.text_fmt(format_args!("call {calls}")).finish()
        });
        registry
            .add_resource(ResourceInfo::new("mem://a", "a"), |read, reply| reply.text(read.uri, None, "A").finish());
        registry.add_prompt(PromptInfo::new("p", "A prompt").argument("x", "An x", true), |get, reply| {
            let x = get.argument("x").map(|x| x.to_string()).unwrap_or_default();
            reply.text(Role::User, &x).finish()
        });
        let (mut rx, mut tx) = ([0u8; 2048], [0u8; 2048]);
        let mut server: Server<'_, Registry> =
            Server::new(registry, Config::new("dyn", "1"), Buffers { rx: &mut rx, tx: &mut tx });
        let meta = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
        let call =
            std::format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"count",{meta}}}}}"#);
        assert_eq!(exchange(&mut server, &call)["result"]["content"][0]["text"], "call 1");
        assert_eq!(exchange(&mut server, &call)["result"]["content"][0]["text"], "call 2");
        let read =
            std::format!(r#"{{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{{"uri":"mem://a",{meta}}}}}"#);
        assert_eq!(exchange(&mut server, &read)["result"]["contents"][0]["text"], "A");
        let list = std::format!(r#"{{"jsonrpc":"2.0","id":3,"method":"prompts/list","params":{{{meta}}}}}"#);
        assert_eq!(exchange(&mut server, &list)["result"]["prompts"][0]["arguments"][0]["name"], "x");
        let get = std::format!(
            r#"{{"jsonrpc":"2.0","id":4,"method":"prompts/get","params":{{"name":"p","arguments":{{"x":"hi"}},{meta}}}}}"#
        );
        assert_eq!(exchange(&mut server, &get)["result"]["messages"][0]["content"]["text"], "hi");

        server.handler_mut().add_tool(ToolInfo::new("count", "Replaced", r#"{"type":"object"}"#), |_, reply| {
            reply.text("replaced").finish()
        });
        assert_eq!(exchange(&mut server, &call)["result"]["content"][0]["text"], "replaced");
        assert!(server.handler_mut().remove_tool("count"));
        assert!(!server.handler_mut().remove_tool("count"));
        assert_eq!(exchange(&mut server, &call)["error"]["code"], -32601, "no tools left: tools/call is gone");
    }

    #[test]
    fn templates_and_completion_are_registered_too() {
        let mut registry = Registry::new();
        registry.add_template(TemplateInfo::new("mem://{key}", "memory"), |read, reply| {
            let key = read.variables(&ResourceTemplate::new("mem://{key}", "")).and_then(|v| v.get("key"));
            reply.text(read.uri, None, key.unwrap_or("?")).finish()
        });
        registry.set_completion(|request, reply| reply.value(request.value).value("zeta").finish());
        let (mut rx, mut tx) = ([0u8; 2048], [0u8; 2048]);
        let mut server: Server<'_, Registry> =
            Server::new(registry, Config::new("dyn", "1"), Buffers { rx: &mut rx, tx: &mut tx });
        let meta = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
        let discover = std::format!(r#"{{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{{{meta}}}}}"#);
        let caps = exchange(&mut server, &discover)["result"]["capabilities"].clone();
        assert_eq!(caps, serde_json::json!({"resources":{"listChanged":true},"completions":{}}));
        let read = std::format!(
            r#"{{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{{"uri":"mem://k1",{meta}}}}}"#
        );
        assert_eq!(exchange(&mut server, &read)["result"]["contents"][0]["text"], "k1");
        let complete = std::format!(
            r#"{{"jsonrpc":"2.0","id":3,"method":"completion/complete","params":{{"ref":{{"type":"ref/resource","uri":"mem://{{key}}"}},"argument":{{"name":"key","value":"k"}},{meta}}}}}"#
        );
        assert_eq!(
            exchange(&mut server, &complete)["result"]["completion"]["values"],
            serde_json::json!(["k", "zeta"])
        );
        assert!(server.handler_mut().remove_resource("mem://{key}"));
        assert!(server.handler_mut().take_list_changes().resources);
    }

    #[test]
    fn described_items_are_listed_whole_and_replaced_or_removed_by_key() {
        let mut registry = Registry::new();
        let described = |r: ResourceInfo| ResourceInfo {
            title: Some("Title".into()),
            description: Some("What".into()),
            mime_type: Some("text/plain".into()),
            ..r
        };
        let read = |read: ResourceRead<'_>, reply: ResourceReply<'_>| reply.text(read.uri, None, "x").finish();
        registry.add_resource(described(ResourceInfo::new("mem://a", "first")), read);
        registry.add_resource(described(ResourceInfo::new("mem://a", "a")), read);
        registry.add_resource(ResourceInfo::new("mem://b", "b"), read);
        let template = TemplateInfo {
            title: Some("Keys".into()),
            description: Some("By key".into()),
            mime_type: Some("text/plain".into()),
            ..TemplateInfo::new("mem://{key}", "first")
        };
        registry.add_template(template.clone(), read);
        registry.add_template(TemplateInfo { name: "memory".into(), ..template }, read);
        registry.add_tool(ToolInfo::new("t", "T", "{}"), |_, reply| reply.text("t").finish());
        let _ = registry.take_list_changes();
        let (mut rx, mut tx) = ([0u8; 4096], [0u8; 4096]);
        let mut server: Server<'_, Registry> =
            Server::new(registry, Config::new("dyn", "1"), Buffers { rx: &mut rx, tx: &mut tx });
        let meta = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
        let list = std::format!(r#"{{"jsonrpc":"2.0","id":1,"method":"resources/list","params":{{{meta}}}}}"#);
        assert_eq!(
            exchange(&mut server, &list)["result"]["resources"],
            serde_json::json!([
                {"uri":"mem://a","name":"a","title":"Title","description":"What","mimeType":"text/plain"},
                {"uri":"mem://b","name":"b"}
            ])
        );
        let list =
            std::format!(r#"{{"jsonrpc":"2.0","id":2,"method":"resources/templates/list","params":{{{meta}}}}}"#);
        assert_eq!(
            exchange(&mut server, &list)["result"]["resourceTemplates"],
            serde_json::json!([{"uriTemplate":"mem://{key}","name":"memory","title":"Keys","description":"By key","mimeType":"text/plain"}])
        );
        // Removing reports a change only when something went.
        let registry = server.handler_mut();
        assert!(!registry.remove_tool("none") && !registry.take_list_changes().tools);
        assert!(registry.remove_tool("t") && registry.take_list_changes().tools);
        assert!(!registry.remove_resource("mem://none") && !registry.take_list_changes().resources);
        assert!(registry.remove_resource("mem://b") && registry.take_list_changes().resources);
        assert!(registry.remove_resource("mem://{key}"));
        assert_eq!(registry.resource(0).map(|r| r.uri), Some("mem://a"));
        assert!(registry.resource(1).is_none() && registry.resource_template(0).is_none());
        // Prompts: replaced by name, removed by name.
        let get = |_: PromptGet<'_>, reply: PromptReply<'_>| reply.text(Role::User, "p").finish();
        registry.add_prompt(PromptInfo::new("p", "First"), get);
        registry.add_prompt(PromptInfo::new("p", "Second"), get);
        registry.add_prompt(PromptInfo::new("q", "Other"), get);
        let _ = registry.take_list_changes();
        assert_eq!(
            (registry.prompt(0).and_then(|p| p.description), registry.prompt(1).map(|p| p.name)),
            (Some("Second"), Some("q"))
        );
        assert!(!registry.remove_prompt("none") && !registry.take_list_changes().prompts);
        assert!(registry.remove_prompt("p") && registry.take_list_changes().prompts);
        assert_eq!((registry.prompt(0).map(|p| p.name), registry.prompt(1).is_none()), (Some("q"), true));
    }
}
