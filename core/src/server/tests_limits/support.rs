//! The harness the limit and behaviour tests share: an application with tables that can be grown at
//! run time (for names at the escaping limit and long lists), and a server over heap buffers.

use std::string::String;
use std::vec::Vec;

use serde_json::{Value as Json, json};

use crate::endpoint::{OutboundKey, Outcome, Response};
pub(super) use crate::server::tests_wire::{self, MODERN_META, error_code, legacy, lines, modern};
use crate::server::{
    Buffers, Config, Deferred, Event, Handler, Limits, Prompt, PromptArgument, PromptGet, PromptReply, Resource,
    ResourceRead, ResourceReply, Role, Server, Tool, ToolCall, ToolReply,
};
use crate::time::Instant;

static TOPIC: [PromptArgument<'static>; 1] = [PromptArgument::new("topic", true)];

/// Tools `echo`, `defer` (answered later) and `fail` (an `isError` result), one resource `test://r`,
/// one prompt `talk` (required argument `topic`), plus whatever names a test adds (`refuse` answers
/// a JSON-RPC error, `partial` an `isError` result with its text).
pub(super) struct App {
    pub(super) tools: Vec<&'static str>,
    pub(super) prompts: Vec<&'static str>,
    pub(super) deferred: Vec<Deferred>,
    pub(super) responses: Vec<(OutboundKey, String)>,
    pub(super) events: Vec<String>,
}

impl Default for App {
    fn default() -> Self {
        App {
            tools: std::vec!["echo", "defer", "fail"],
            prompts: std::vec!["talk"],
            deferred: Vec::new(),
            responses: Vec::new(),
            events: Vec::new(),
        }
    }
}

impl Handler for App {
    /// A dynamic table: its capabilities are declared.
    fn capabilities(&self) -> crate::mcp::ServerCapabilities {
        crate::mcp::ServerCapabilities::NONE
            .with_tools(Default::default())
            .with_resources(Default::default())
            .with_prompts(Default::default())
    }

    fn tool(&self, index: usize) -> Option<Tool<'_>> {
        self.tools.get(index).map(|name| Tool::new(name, "a test tool", "{\"type\":\"object\"}"))
    }

    fn resource(&self, index: usize) -> Option<Resource<'_>> {
        (index == 0).then_some(Resource::new("test://r", "r").with_mime_type("text/plain"))
    }

    fn prompt(&self, index: usize) -> Option<Prompt<'_>> {
        self.prompts.get(index).map(|name| Prompt::new(name, &TOPIC))
    }

    fn call_tool(&mut self, call: ToolCall<'_>, reply: ToolReply<'_>) {
        match call.name {
            "echo" => match call.argument("text").and_then(|v| v.as_str()) {
                Some(text) => reply.text_json(text).finish(),
                None => reply.finish_error_text("missing text"),
            },
            "defer" => {
                if let Ok(deferred) = reply.defer() {
                    self.deferred.push(deferred);
                }
            }
            "fail" => reply.finish_error_text("it failed"),
            "refuse" => reply.fail(-32602, "refused"),
            "partial" => reply.text("partial").finish_error(),
            name => reply.text_fmt(format_args!("called {}", name.len())).finish(),
        }
    }

    fn read_resource(&mut self, read: ResourceRead<'_>, reply: ResourceReply<'_>) {
        match read.uri {
            "test://r" => reply.text(read.uri, Some("text/plain"), "r").finish(),
            uri if uri.starts_with("long:") => reply.text_fmt(uri, None, format_args!("read {}", uri.len())).finish(),
            uri => reply.not_found(uri),
        }
    }

    fn get_prompt(&mut self, get: PromptGet<'_>, reply: PromptReply<'_>) {
        reply.text_fmt(Role::User, format_args!("prompt {}", get.name.len())).finish()
    }

    fn on_response(&mut self, _now: Instant, response: Response<'_>) {
        let outcome = match response.outcome {
            Outcome::Result(_) => String::from("result"),
            Outcome::Error { code, .. } => std::format!("error {code}"),
            Outcome::TimedOut => String::from("timed out"),
            Outcome::Closed => String::from("closed"),
        };
        self.responses.push((response.request, outcome));
    }

    fn on_event(&mut self, _now: Instant, event: Event<'_>) {
        self.events.push(std::format!("{event:?}"));
    }
}

/// A server over heap buffers, with [`Server`]'s default numbers of deferred slots and of requests to
/// the client (the limits tests check those defaults).
pub(super) struct Harness {
    pub(super) server: Server<'static, App>,
    pub(super) now: Instant,
    alive: u32,
}

impl Harness {
    pub(super) fn new() -> Self {
        Self::with(8192, 8192, Limits::default(), App::default())
    }

    pub(super) fn with(rx: usize, tx: usize, limits: Limits, app: App) -> Self {
        let mut config = Config::new("limits", "1.0.0");
        config.limits = limits;
        Self::with_config(rx, tx, config, app)
    }

    pub(super) fn with_config(rx: usize, tx: usize, config: Config<'static>, app: App) -> Self {
        let buffers = Buffers { rx: std::vec![0u8; rx].leak(), tx: std::vec![0u8; tx].leak() };
        Harness { server: Server::new(app, config, buffers), now: Instant::ZERO, alive: 0 }
    }

    /// Feeds bytes as an adapter would, transmitting in between, and returns every message written.
    pub(super) fn feed(&mut self, bytes: &[u8]) -> Vec<Json> {
        tests_wire::feed_json(&mut self.server, self.now, bytes)
    }

    /// Transmits everything pending; returns the messages.
    pub(super) fn flush(&mut self) -> Vec<Json> {
        tests_wire::drain_json(&mut self.server, self.now)
    }

    /// Sends one line and expects exactly one answer.
    pub(super) fn request(&mut self, line: &str) -> Json {
        let mut out = self.feed(std::format!("{line}\n").as_bytes());
        assert_eq!(out.len(), 1, "expected one answer to {line}, got {out:?}");
        out.remove(0)
    }

    /// Sends one line and expects an error with `code` and the id `id` (`Json::Null`: no id member).
    pub(super) fn expect_error(&mut self, line: &str, code: i32, id: Json) -> Json {
        let answer = self.request(line);
        assert_eq!(error_code(&answer), i64::from(code), "{line} -> {answer}");
        match id {
            Json::Null => assert!(answer.get("id").is_none(), "{line} -> {answer}: no id expected"),
            id => assert_eq!(answer["id"], id, "{line} -> {answer}"),
        }
        answer
    }

    pub(super) fn initialize(&mut self, version: &str) {
        let init = self.request(&std::format!(
            r#"{{"jsonrpc":"2.0","id":"init","method":"initialize","params":{{"protocolVersion":"{version}","capabilities":{{}},"clientInfo":{{"name":"c","version":"1"}}}}}}"#
        ));
        assert_eq!(init["result"]["protocolVersion"], version);
        assert!(self.feed(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n").is_empty());
    }

    /// The engine still serves: a `ping` and a modern `tools/list` are answered with results.
    pub(super) fn assert_serving(&mut self) {
        let id = self.assert_ping_served();
        let list = self.request(&std::format!(
            r#"{{"jsonrpc":"2.0","id":"{id}","method":"tools/list","params":{{{MODERN_META}}}}}"#
        ));
        assert_eq!(list["id"], id.as_str());
        assert_eq!(list["result"]["tools"][0]["name"], "echo", "{list}");
    }
}

impl Harness {
    /// The engine still answers a `ping` (for windows too small for a `tools/list` page); returns its id.
    pub(super) fn assert_ping_served(&mut self) -> String {
        self.alive += 1;
        let id = std::format!("alive-{}", self.alive);
        let pong = self.request(&std::format!(r#"{{"jsonrpc":"2.0","id":"{id}","method":"ping"}}"#));
        assert_eq!(pong, json!({"jsonrpc":"2.0","id":id,"result":{}}));
        id
    }
}

/// `s`, with its first character written as a `\u00XX` escape.
pub(super) fn escape_first(s: &str) -> String {
    let first = s.as_bytes()[0];
    std::format!("\\u{:04x}{}", first, &s[1..])
}

/// A string of `n` copies of `c`, leaked (for tables of `&'static str`).
pub(super) fn leaked(c: char, n: usize) -> &'static str {
    std::iter::repeat_n(c, n).collect::<String>().leak()
}
