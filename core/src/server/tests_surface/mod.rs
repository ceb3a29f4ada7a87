//! The server surface beyond tools, resources and prompts: templates, completion, logging,
//! progress, subscriptions and listen streams, in both eras, on byte streams and SSE routes.

use std::string::{String, ToString};
use std::vec::Vec;

use serde_json::{Value as Json, json};

use super::*;
use crate::connection::Connection;
// Framing, Route and StreamId only in the SSE tests (`http`).
#[cfg_attr(not(feature = "http"), allow(unused_imports))]
use crate::endpoint::{Framing, Route, SendError, StreamId};
use crate::mcp::{ListCapability, LoggingLevel, ResourceCapability, ServerCapabilities};
use crate::time::Instant;

static TOOLS: [Tool<'static>; 4] = [
    Tool::new("notes", "Logs, reports progress, answers", r#"{"type":"object"}"#),
    Tool::new("values", "Logs values until the window is full", r#"{"type":"object"}"#),
    Tool::new("slow", "Answered later", r#"{"type":"object"}"#),
    Tool::new("grow", "Adds a tool", r#"{"type":"object"}"#),
];
static TEMPLATES: [ResourceTemplate<'static>; 2] =
    [ResourceTemplate::new("file:///{+path}", "file"), ResourceTemplate::new("db://{table}/{row}", "row")];
static ARGS: [PromptArgument<'static>; 1] = [PromptArgument::new("language", true)];
static PROMPTS: [Prompt<'static>; 1] = [Prompt::new("review", &ARGS)];

const ALL: ServerCapabilities = ServerCapabilities::NONE
    .with_tools(ListCapability { list_changed: true })
    .with_resources(ResourceCapability { subscribe: true, list_changed: true })
    .with_prompts(ListCapability { list_changed: false })
    .with_logging()
    .with_completions();

#[derive(Default)]
struct Surface {
    deferred: Vec<Deferred>,
    /// What `notes` got back from `log` and `progress`.
    results: Vec<String>,
    grown: bool,
    changes: ListChanges,
}

static RESOURCES: [Resource<'static>; 3] =
    [Resource::new("file:///a", "a"), Resource::new("file:///b", "b"), Resource::new("file:///c", "c")];

impl Handler for Surface {
    const PROMPTS: &'static [Prompt<'static>] = &PROMPTS;
    const RESOURCES: &'static [Resource<'static>] = &RESOURCES;
    const RESOURCE_TEMPLATES: &'static [ResourceTemplate<'static>] = &TEMPLATES;

    fn capabilities(&self) -> ServerCapabilities {
        ALL
    }

    fn tool(&self, index: usize) -> Option<Tool<'_>> {
        TOOLS.get(index).copied().or((self.grown && index == TOOLS.len()).then(|| Tool::new("new", "New", "{}")))
    }

    fn take_list_changes(&mut self) -> ListChanges {
        core::mem::take(&mut self.changes)
    }

    fn call_tool(&mut self, call: ToolCall<'_>, reply: ToolReply<'_>) {
        let mut reply = reply;
        match call.name {
            "notes" => {
                let results = [
                    std::format!("{:?}", reply.log(LoggingLevel::Debug, None, format_args!("debug"))),
                    std::format!("{:?}", reply.log(LoggingLevel::Error, Some("app"), format_args!("error {}", 1))),
                    std::format!("{:?}", reply.progress(1, Some(2), None)),
                    std::format!("{:?}", reply.progress(1, Some(2), None)),
                    std::format!("{:?}", reply.progress(2, Some(2), Some("done"))),
                ];
                self.results.extend(results);
                let reply = reply.text("ok");
                let mut reply = reply;
                self.results.push(std::format!("{:?}", reply.progress(3, None, None)));
                reply.finish()
            }
            "values" => {
                let mut results = std::vec![
                    std::format!("{:?}", reply.log_value(LoggingLevel::Debug, None, "filtered")),
                    std::format!("{:?}", reply.log_value(LoggingLevel::Error, Some("app"), &json!({"code":7}))),
                    std::format!("{:?}", reply.log_value(LoggingLevel::Error, None, &"y".repeat(2000))),
                ];
                // Notes until the window keeps no more than the room for an error answer.
                let line = "x".repeat(100);
                let mut sent = 0;
                let last = loop {
                    match reply.log_value(LoggingLevel::Error, None, &line) {
                        Ok(true) => sent += 1,
                        other => break other,
                    }
                };
                results.push(std::format!("{sent} then {last:?}"));
                let mut reply = reply.text("ok");
                results.push(std::format!("{:?}", reply.log_value(LoggingLevel::Error, None, "late")));
                self.results.extend(results);
                reply.finish()
            }
            "slow" => {
                if let Ok(deferred) = reply.defer() {
                    self.deferred.push(deferred);
                }
            }
            _ => {
                self.grown = true;
                self.changes.tools = true;
                reply.text("grown").finish()
            }
        }
    }

    fn read_resource(&mut self, read: ResourceRead<'_>, reply: ResourceReply<'_>) {
        let Some(index) = read.template else { return reply.not_found(read.uri) };
        if read.uri == "file:///fail" {
            return reply.fail(-32603, "cannot read");
        }
        let vars = read.variables(&TEMPLATES[index]).unwrap();
        let text: String = vars.iter().map(|(k, v)| std::format!("{k}={v};")).collect();
        reply.text(read.uri, None, &text).finish()
    }

    fn complete(&mut self, request: CompletionRequest<'_>, reply: CompletionReply<'_>) {
        match request.reference {
            CompletionRef::Prompt { .. } if request.argument == "unknown" => reply.fail(-32602, "no such argument"),
            CompletionRef::Prompt { .. } => {
                // `value` "x" offers the limit, any other 150 values.
                let n = if request.value == "x" { MAX_COMPLETION_VALUES } else { 150 };
                let all = (0..n).map(|i| std::format!("{}{i}", request.value)).collect::<Vec<_>>();
                reply.values(all.iter().map(String::as_str)).finish()
            }
            CompletionRef::ResourceTemplate { uri_template, .. } => {
                let picked = request.resolved("table").map(|t| t.to_string()).unwrap_or_default();
                reply.value(uri_template).value(&picked).total(7).has_more(true).finish()
            }
        }
    }
}

const META: &str =
    r#""io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}"#;

fn modern(id: u32, method: &str, params: &str, extra_meta: &str) -> String {
    let sep = if params.is_empty() { "" } else { "," };
    std::format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{{{params}{sep}"_meta":{{{META}{extra_meta}}}}}}}"#
    )
}

struct Harness {
    server: Server<'static, Surface, 3>,
    now: Instant,
}

impl Harness {
    fn new() -> Self {
        let mut config = Config::new("surface", "1");
        config.limits.max_response = 1024;
        let buffers = Buffers { rx: std::vec![0u8; 4096].leak(), tx: std::vec![0u8; 8192].leak() };
        Harness { server: Server::new(Surface::default(), config, buffers), now: Instant::ZERO }
    }

    fn send(&mut self, line: &str) -> Vec<Json> {
        let data = std::format!("{line}\n");
        let mut rest = data.as_bytes();
        let mut out = Vec::new();
        loop {
            let n = self.server.handle_input(self.now, rest);
            rest = &rest[n..];
            out.extend(self.drain());
            if rest.is_empty() {
                return out;
            }
        }
    }

    fn drain(&mut self) -> Vec<Json> {
        crate::server::tests_wire::drain_json(&mut self.server, self.now)
    }

    fn initialize(&mut self) {
        self.send(r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#);
        self.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    }
}

fn methods(out: &[Json]) -> Vec<String> {
    out.iter().map(|m| m["method"].as_str().map_or_else(|| std::format!("answer {}", m["id"]), String::from)).collect()
}

mod changes;
mod logging;

#[test]
fn templates_are_listed_and_matched_with_their_variables() {
    let mut h = Harness::new();
    h.initialize();
    let list = h.send(r#"{"jsonrpc":"2.0","id":1,"method":"resources/templates/list"}"#);
    assert_eq!(
        list[0]["result"]["resourceTemplates"],
        json!([{"uriTemplate":"file:///{+path}","name":"file"},{"uriTemplate":"db://{table}/{row}","name":"row"}])
    );
    let read = h.send(r#"{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"db://users/42"}}"#);
    assert_eq!(read[0]["result"]["contents"][0]["text"], "table=users;row=42;");
    let read = h.send(r#"{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"file:///etc/hosts"}}"#);
    assert_eq!(read[0]["result"]["contents"][0]["text"], "path=etc/hosts;");
    let read = h.send(r#"{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"db://users"}}"#);
    assert_eq!(read[0]["error"]["code"], -32002);
}

/// A 2026-07-28 `completion/complete` of argument `name` of the prompt `review`.
fn prompt_completion(h: &mut Harness, name: &str, value: &str) -> Vec<Json> {
    let params = std::format!(
        r#""ref":{{"type":"ref/prompt","name":"review"}},"argument":{{"name":"{name}","value":"{value}"}}"#
    );
    h.send(&modern(1, "completion/complete", &params, ""))
}

#[test]
fn completion_caps_values_and_resolves_references() {
    let mut h = Harness::new();
    let out = prompt_completion(&mut h, "language", "py");
    let completion = &out[0]["result"]["completion"];
    assert_eq!(completion["values"].as_array().unwrap().len(), MAX_COMPLETION_VALUES);
    assert_eq!(completion["values"][0], "py0");
    assert_eq!((completion["total"].clone(), completion["hasMore"].clone()), (json!(150), json!(true)));
    assert_eq!(out[0]["result"]["resultType"], "complete");
    // At the limit nothing is left out.
    let out = prompt_completion(&mut h, "language", "x");
    let completion = &out[0]["result"]["completion"];
    assert_eq!(completion["values"].as_array().unwrap().len(), MAX_COMPLETION_VALUES);
    assert!(completion.get("total").is_none() && completion.get("hasMore").is_none(), "{completion}");
    // The handler may refuse.
    let out = prompt_completion(&mut h, "unknown", "");
    assert_eq!(out[0]["error"], json!({"code":-32602,"message":"no such argument"}));
    let out = h.send(&modern(2, "completion/complete", r#""ref":{"type":"ref/resource","uri":"db://{table}/{row}"},"argument":{"name":"row","value":""},"context":{"arguments":{"table":"users"}}"#, ""));
    assert_eq!(
        out[0]["result"]["completion"],
        json!({"values":["db://{table}/{row}","users"],"total":7,"hasMore":true})
    );
    for bad in [
        r#""ref":{"type":"ref/prompt","name":"nope"},"argument":{"name":"x","value":""}"#,
        r#""ref":{"type":"ref/resource","uri":"file:///x"},"argument":{"name":"x","value":""}"#,
        r#""ref":{"type":"ref/tool","name":"x"},"argument":{"name":"x","value":""}"#,
        r#""ref":{"type":"ref/tool","uri":"db://{table}/{row}"},"argument":{"name":"row","value":""}"#,
        r#""ref":{"type":"ref/prompt","name":"review"},"argument":{"name":"x"}"#,
    ] {
        let out = h.send(&modern(3, "completion/complete", bad, ""));
        assert_eq!(out[0]["error"]["code"], -32602, "{bad}");
    }
}

#[test]
fn a_request_nested_too_deep_is_refused_with_its_id() {
    let mut h = Harness::new();
    h.initialize();
    let deep = std::format!(
        r#"{{"jsonrpc":"2.0","id":"deep-1","method":"tools/call","params":{{"name":"notes","arguments":{{"x":{}1{}}}}}}}"#,
        "[".repeat(10_000),
        "]".repeat(10_000)
    );
    // Longer than the harness's receive buffer: make it fit by using a server with a larger one.
    let mut config = Config::new("surface", "1");
    config.limits.max_response = 1024;
    let buffers = Buffers { rx: std::vec![0u8; 32 * 1024].leak(), tx: std::vec![0u8; 8192].leak() };
    h.server = Server::new(Surface::default(), config, buffers);
    let out = h.send(&deep);
    assert_eq!(out.len(), 1, "{out:?}");
    assert_eq!((out[0]["id"].clone(), out[0]["error"]["code"].clone()), (json!("deep-1"), json!(-32600)));
    // The id after the deep member is found too; without an id the error has none.
    let after =
        std::format!(r#"{{"jsonrpc":"2.0","params":{}{},"id":7,"method":"ping"}}"#, "[".repeat(100), "]".repeat(100));
    assert_eq!(h.send(&after)[0]["id"], 7);
    let none = std::format!(r#"{{"jsonrpc":"2.0","params":{}{},"method":"ping"}}"#, "[".repeat(100), "]".repeat(100));
    assert_eq!(h.send(&none)[0]["id"], Json::Null);
}

#[test]
fn a_2025_03_26_batch_is_answered_with_one_array_where_it_fits() {
    let mut h = Harness::new();
    h.send(r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#);
    let batch = r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":"b","method":"nope"}]"#;
    let out = h.send(batch);
    assert_eq!(
        out,
        [json!([{"jsonrpc":"2.0","id":1,"result":{}},
            {"jsonrpc":"2.0","id":"b","error":{"code":-32601,"message":"Method not found: nope (protocol version 2025-03-26)"}}])]
    );
    // A batch whose elements also make the server speak (log messages here) keeps separate messages.
    let batch = r#"[{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"notes"}},{"jsonrpc":"2.0","id":3,"method":"ping"}]"#;
    let out = h.send(batch);
    assert_eq!(methods(&out), ["notifications/message", "notifications/message", "answer 2", "answer 3"]);
    // Only notifications: nothing is sent back.
    assert!(h.send(r#"[{"jsonrpc":"2.0","method":"notifications/initialized"}]"#).is_empty());
}

#[test]
fn results_carry_the_applications_meta_beside_the_engines() {
    struct Meta;
    impl Handler for Meta {
        const TOOLS: &'static [Tool<'static>] = &TOOLS;
        fn call_tool(&mut self, call: ToolCall<'_>, reply: ToolReply<'_>) {
            match call.name {
                "slow" => reply.text("ok").meta("{}").finish(),
                _ => reply.text("ok").meta("{\"app/trace\":\n\"t-1\",\"app/n\":2}").finish(),
            }
        }
    }
    let buffers = Buffers { rx: std::vec![0u8; 4096].leak(), tx: std::vec![0u8; 4096].leak() };
    let mut server: Server<'static, Meta> = Server::new(Meta, Config::new("m", "1"), buffers);
    let line = std::format!("{}\n", modern(1, "tools/call", r#""name":"notes""#, ""));
    server.handle_input(Instant::ZERO, line.as_bytes());
    let out = server.poll_transmit().unwrap().to_vec();
    let answer: Json = serde_json::from_slice(&out).unwrap();
    assert_eq!(answer["result"]["_meta"]["app/trace"], "t-1");
    assert_eq!(answer["result"]["_meta"]["app/n"], 2);
    assert_eq!(answer["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "m");
    let n = out.len();
    server.transmit_done(Instant::ZERO, n);
    // Legacy results carry it alone.
    server.handle_input(Instant::ZERO, br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}
"#);
    let n = server.poll_transmit().unwrap().len();
    server.transmit_done(Instant::ZERO, n);
    server.handle_input(
        Instant::ZERO,
        b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"notes\"}}\n",
    );
    let answer: Json = serde_json::from_slice(server.poll_transmit().unwrap()).unwrap();
    assert_eq!(answer["result"]["_meta"], json!({"app/trace":"t-1","app/n":2}));
    let n = server.poll_transmit().unwrap().len();
    server.transmit_done(Instant::ZERO, n);
    // An empty object stays one.
    server.handle_input(
        Instant::ZERO,
        b"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"slow\"}}\n",
    );
    let answer: Json = serde_json::from_slice(server.poll_transmit().unwrap()).unwrap();
    assert_eq!(answer["result"]["_meta"], json!({}));
}
