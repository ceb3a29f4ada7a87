//! The server surface beyond tools, resources and prompts: templates, completion, logging,
//! progress, subscriptions and listen streams, in both eras, on byte streams and SSE routes.

use std::string::{String, ToString};
use std::vec::Vec;

use serde_json::{Value as Json, json};

use super::*;
use crate::connection::Connection;
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
        let mut bytes = Vec::new();
        while let Some(pending) = self.server.poll_transmit() {
            bytes.extend_from_slice(pending);
            let n = pending.len();
            self.server.transmit_done(self.now, n);
        }
        bytes.split(|&b| b == b'\n').filter(|l| !l.is_empty()).map(|l| serde_json::from_slice(l).unwrap()).collect()
    }

    fn initialize(&mut self) {
        self.send(r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#);
        self.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    }
}

fn methods(out: &[Json]) -> Vec<String> {
    out.iter().map(|m| m["method"].as_str().map_or_else(|| std::format!("answer {}", m["id"]), String::from)).collect()
}

#[test]
fn legacy_logging_follows_set_level_and_progress_strictly_increases() {
    let mut h = Harness::new();
    h.initialize();
    let call =
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"notes","_meta":{"progressToken":"p"}}}"#;
    let out = h.send(call);
    assert_eq!(
        methods(&out),
        [
            "notifications/message",
            "notifications/message",
            "notifications/progress",
            "notifications/progress",
            "answer 1"
        ]
    );
    assert_eq!(out[1]["params"], json!({"level":"error","logger":"app","data":"error 1"}));
    assert_eq!(out[2]["params"], json!({"progressToken":"p","progress":1,"total":2}));
    assert_eq!(out[3]["params"], json!({"progressToken":"p","progress":2,"total":2,"message":"done"}));
    assert_eq!(out[4]["result"]["content"][0]["text"], "ok");
    // A repeated progress is refused, and none once the answer has started.
    assert_eq!(h.server.handler().results[3], "Err(NotIncreasing)");
    assert_eq!(h.server.handler().results[5], "Err(NotAvailable)");

    let set = h.send(r#"{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"warning"}}"#);
    assert_eq!(set, [json!({"jsonrpc":"2.0","id":2,"result":{}})]);
    // Without a token no progress, and only the error passes the level now.
    let out = h.send(r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"notes"}}"#);
    assert_eq!(methods(&out), ["notifications/message", "answer 3"]);
    assert_eq!(&h.server.handler().results[6..9], ["Ok(false)", "Ok(true)", "Err(NotAvailable)"]);
    let bad = h.send(r#"{"jsonrpc":"2.0","id":4,"method":"logging/setLevel","params":{"level":"LOUD"}}"#);
    assert_eq!(bad[0]["error"]["code"], -32602);
    // The session log reaches the client too, filtered alike.
    assert_eq!(h.server.log(LoggingLevel::Info, None, format_args!("quiet")), Ok(false));
    assert_eq!(h.server.log(LoggingLevel::Critical, None, format_args!("loud")), Ok(true));
    assert_eq!(h.drain()[0]["params"]["data"], "loud");
    // The level itself passes.
    assert_eq!(h.server.log(LoggingLevel::Warning, None, format_args!("at the level")), Ok(true));
    assert_eq!(h.drain()[0]["params"], json!({"level":"warning","data":"at the level"}));
}

#[test]
fn a_legacy_session_hears_of_each_declared_list_change_once() {
    let mut h = Harness::new();
    h.initialize();
    assert_eq!(h.server.list_changed(ListChanged::Tools), Ok(1));
    assert_eq!(methods(&h.drain()), ["notifications/tools/list_changed"]);
    // Prompts do not declare `listChanged` here.
    assert_eq!(h.server.list_changed(ListChanged::Prompts), Ok(0));
    assert!(h.drain().is_empty());
}

#[test]
fn deferred_requests_get_progress_and_logs_on_their_route_until_answered() {
    let mut h = Harness::new();
    h.initialize();
    h.send(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","_meta":{"progressToken":7}}}"#);
    let deferred = h.server.handler_mut().deferred.pop().unwrap();
    assert_eq!(h.server.progress(&deferred, 10, None, Some("a")), Ok(()));
    assert_eq!(h.server.progress(&deferred, 10, None, None), Err(SendError::NotIncreasing));
    assert_eq!(h.server.log_for(&deferred, LoggingLevel::Notice, Some("x"), format_args!("n")), Ok(true));
    let out = h.drain();
    assert_eq!(out[0]["params"], json!({"progressToken":7,"progress":10,"message":"a"}));
    assert_eq!(out[1]["params"], json!({"level":"notice","logger":"x","data":"n"}));
    // The answer may still report progress first (the count continues), then nothing more.
    let mut reply = h.server.reply_tool(&deferred).unwrap();
    assert_eq!(reply.progress(9, None, None), Err(SendError::NotIncreasing));
    assert_eq!(reply.progress(11, None, None), Ok(()));
    reply.text("done").finish();
    assert_eq!(methods(&h.drain()), ["notifications/progress", "answer 1"]);
    assert_eq!(h.server.progress(&deferred, 12, None, None), Err(SendError::NotAvailable));
    // A request without a token: refused, and nothing at all is written (found by the fuzzer: an
    // empty line was).
    h.send(r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow"}}"#);
    let deferred = h.server.handler_mut().deferred.pop().unwrap();
    assert_eq!(h.server.progress(&deferred, 1, None, None), Err(SendError::NotAvailable));
    assert_eq!(h.drain(), Vec::<Json>::new());
    assert_eq!(h.server.poll_transmit(), None);
    // Two waiting at once: each reports on its own token; a cancelled one reports nothing.
    h.send(
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"slow","_meta":{"progressToken":"three"}}}"#,
    );
    h.send(
        r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"slow","_meta":{"progressToken":"four"}}}"#,
    );
    let fourth = h.server.handler_mut().deferred.pop().unwrap();
    let third = h.server.handler_mut().deferred.pop().unwrap();
    assert_eq!(h.server.progress(&fourth, 1, None, None), Ok(()));
    assert_eq!(h.drain()[0]["params"]["progressToken"], "four");
    assert!(h.send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}"#).is_empty());
    assert_eq!(h.server.progress(&third, 1, None, None), Err(SendError::NotAvailable));
    assert_eq!(h.server.log_for(&third, LoggingLevel::Error, None, format_args!("x")), Err(SendError::NotAvailable));
}

#[test]
fn modern_requests_log_only_when_they_ask_and_on_their_own_sse_stream() {
    let mut h = Harness::new();
    let route = Route::new(StreamId(9), Framing::Sse).ending_with_response();
    let body = modern(
        5,
        "tools/call",
        r#""name":"notes""#,
        r#","io.modelcontextprotocol/logLevel":"debug","progressToken":1"#,
    );
    let (engine, handler) = h.server.parts_mut();
    assert_eq!(engine.handle_message(Instant::ZERO, route, body.as_bytes(), handler), Ok(Received::Request));
    let t = engine.poll_transmit().unwrap();
    assert_eq!(t.stream, StreamId(9));
    assert!(t.end_of_stream);
    let text = String::from_utf8(t.bytes.to_vec()).unwrap();
    let events: Vec<&str> = text.split("\n\n").filter(|e| !e.is_empty()).collect();
    assert_eq!(events.len(), 5, "{text}");
    for (i, event) in events.iter().enumerate() {
        assert!(event.starts_with(&std::format!("id: 9-{}\ndata: {{", i + 1)), "{event}");
    }
    assert!(events[0].contains("\"level\":\"debug\"") && events[4].contains("\"id\":5"));
    let n = t.bytes.len();
    engine.transmit_done(Instant::ZERO, n, handler);
    // Without `logLevel` a modern request gets no log message; an invalid one is refused.
    let out = h.send(&modern(6, "tools/call", r#""name":"notes""#, ""));
    assert_eq!(methods(&out), ["answer 6"]);
    let out = h.send(&modern(7, "tools/call", r#""name":"notes""#, r#","io.modelcontextprotocol/logLevel":3"#));
    assert_eq!(out[0]["error"]["code"], -32602);
}

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

#[test]
fn completion_caps_values_and_resolves_references() {
    let mut h = Harness::new();
    let out = h.send(&modern(
        1,
        "completion/complete",
        r#""ref":{"type":"ref/prompt","name":"review"},"argument":{"name":"language","value":"py"}"#,
        "",
    ));
    let completion = &out[0]["result"]["completion"];
    assert_eq!(completion["values"].as_array().unwrap().len(), MAX_COMPLETION_VALUES);
    assert_eq!(completion["values"][0], "py0");
    assert_eq!((completion["total"].clone(), completion["hasMore"].clone()), (json!(150), json!(true)));
    assert_eq!(out[0]["result"]["resultType"], "complete");
    // At the limit nothing is left out.
    let out = h.send(&modern(
        1,
        "completion/complete",
        r#""ref":{"type":"ref/prompt","name":"review"},"argument":{"name":"language","value":"x"}"#,
        "",
    ));
    let completion = &out[0]["result"]["completion"];
    assert_eq!(completion["values"].as_array().unwrap().len(), MAX_COMPLETION_VALUES);
    assert!(completion.get("total").is_none() && completion.get("hasMore").is_none(), "{completion}");
    // The handler may refuse.
    let out = h.send(&modern(
        1,
        "completion/complete",
        r#""ref":{"type":"ref/prompt","name":"review"},"argument":{"name":"unknown","value":""}"#,
        "",
    ));
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
fn legacy_subscriptions_are_bounded_and_drive_resource_updates() {
    let mut h = Harness::new();
    h.initialize();
    let sub = |h: &mut Harness, id: usize, method: &str, uri: &str| {
        h.send(&std::format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{{"uri":"{uri}"}}}}"#))
    };
    assert_eq!(sub(&mut h, 1, "resources/subscribe", "file:///a")[0]["result"], json!({}));
    assert_eq!(h.server.resource_updated("file:///a"), Ok(1));
    assert_eq!(h.server.resource_updated("file:///b"), Ok(0));
    assert_eq!(
        h.drain(),
        [json!({"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"file:///a"}})]
    );
    for i in 1..MAX_SUBSCRIPTIONS {
        sub(&mut h, 10 + i, "resources/subscribe", &std::format!("file:///{i}"));
    }
    assert_eq!(sub(&mut h, 99, "resources/subscribe", "file:///full")[0]["error"]["code"], -32603);
    sub(&mut h, 100, "resources/unsubscribe", "file:///a");
    assert_eq!(h.server.resource_updated("file:///a"), Ok(0));
    assert_eq!(sub(&mut h, 101, "resources/subscribe", "file:///full")[0]["result"], json!({}));
}

#[test]
fn listen_streams_are_acknowledged_tagged_and_ended() {
    let mut h = Harness::new();
    let ack = h.send(&modern(1, "subscriptions/listen", r#""notifications":{"toolsListChanged":true,"promptsListChanged":true,"resourceSubscriptions":["file:///x","file:///y"]}"#, ""));
    assert_eq!(
        ack,
        [json!({"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{
            "_meta":{"io.modelcontextprotocol/subscriptionId":1},
            "notifications":{"toolsListChanged":true,"resourceSubscriptions":["file:///x","file:///y"]}}})]
    );
    let second = h.send(&modern(2, "subscriptions/listen", r#""notifications":{"resourcesListChanged":true}"#, ""));
    assert_eq!(second[0]["params"]["notifications"], json!({"resourcesListChanged":true}));
    assert_eq!((h.server.engine().listens(), h.server.in_flight()), (2, 0));
    // A handler's change reaches the listen that asked for it, after the answer that caused it.
    let out = h.send(&modern(3, "tools/call", r#""name":"grow""#, ""));
    assert_eq!(methods(&out), ["answer 3", "notifications/tools/list_changed"]);
    assert_eq!(out[1]["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 1);
    assert_eq!(h.server.list_changed(ListChanged::Resources), Ok(1));
    assert_eq!(h.server.resource_updated("file:///y"), Ok(1));
    let out = h.drain();
    assert_eq!(out[0]["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 2);
    assert_eq!(out[1]["params"], json!({"_meta":{"io.modelcontextprotocol/subscriptionId":1},"uri":"file:///y"}));
    // The client cancels the first; the server ends the rest with their result.
    assert!(h.send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#).is_empty());
    assert_eq!(h.server.resource_updated("file:///y"), Ok(0));
    assert_eq!(h.server.end_listens(), Ok(1));
    assert_eq!(
        h.drain(),
        [
            json!({"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/subscriptionId":2}}})
        ]
    );
    assert_eq!(h.server.engine().listens(), 0);
}

#[test]
fn listens_share_the_in_flight_slots_and_end_with_the_input() {
    let mut h = Harness::new();
    for id in 1..=3 {
        assert_eq!(h.send(&modern(id, "subscriptions/listen", r#""notifications":{}"#, "")).len(), 1);
    }
    let full = h.send(&modern(4, "subscriptions/listen", r#""notifications":{}"#, ""));
    assert_eq!(full[0]["error"]["code"], -32603);
    let bad = h.send(&modern(5, "subscriptions/listen", "", ""));
    assert_eq!(bad[0]["error"]["code"], -32602);
    // Legacy sessions have no listen; modern requests have no setLevel or subscribe.
    h.initialize();
    let legacy = h.send(r#"{"jsonrpc":"2.0","id":6,"method":"subscriptions/listen","params":{"notifications":{}}}"#);
    assert_eq!(legacy[0]["error"]["code"], -32601);
    for method in ["logging/setLevel", "resources/subscribe"] {
        assert_eq!(h.send(&modern(7, method, r#""level":"info","uri":"x""#, ""))[0]["error"]["code"], -32601);
    }
    h.server.handle_eof(h.now);
    let ends = h.drain();
    assert_eq!(ends.iter().map(|m| m["id"].as_i64().unwrap()).collect::<Vec<_>>(), [1, 2, 3]);
    assert!(h.server.is_finished());
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

#[test]
fn a_list_change_that_finds_the_buffer_full_is_announced_once_output_drains() {
    let complete = "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"completion/complete\",\"params\":{\"ref\":{\"type\":\"ref/prompt\",\"name\":\"review\"},\"argument\":{\"name\":\"language\",\"value\":\"\"}}}\n";
    let answer_len = {
        let mut roomy = Harness::new();
        roomy.initialize();
        assert_eq!(roomy.server.handle_input(roomy.now, complete.as_bytes()), complete.len());
        roomy.server.poll_transmit().unwrap().len()
    };
    // A window and transmit buffer 20 bytes longer than the answer: no room is left for the
    // notification, which waits for the answer to be written, without any more input.
    let room = answer_len + 20;
    let mut config = Config::new("surface", "1");
    config.limits.max_response = room;
    let buffers = Buffers { rx: std::vec![0u8; 4096].leak(), tx: std::vec![0u8; room].leak() };
    let mut h = Harness { server: Server::new(Surface::default(), config, buffers), now: Instant::ZERO };
    h.initialize();
    h.server.handler_mut().changes.tools = true;
    assert_eq!(h.server.handle_input(h.now, complete.as_bytes()), complete.len());
    let answer = h.server.poll_transmit().unwrap().to_vec();
    assert_eq!(answer.len(), answer_len, "the answer alone: {}", String::from_utf8_lossy(&answer));
    h.server.transmit_done(h.now, answer.len());
    assert_eq!(methods(&h.drain()), ["notifications/tools/list_changed"]);
}

#[test]
fn every_change_a_handler_reports_is_announced_once() {
    let mut config = Config::new("surface", "1");
    config.limits.max_response = 1024;
    config.capabilities = Some(ALL.with_prompts(ListCapability { list_changed: true }));
    let buffers = Buffers { rx: std::vec![0u8; 4096].leak(), tx: std::vec![0u8; 8192].leak() };
    let mut h = Harness { server: Server::new(Surface::default(), config, buffers), now: Instant::ZERO };
    h.initialize();
    for (id, uri) in [(1, "file:///a"), (2, "file:///c")] {
        let sub =
            std::format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"resources/subscribe","params":{{"uri":"{uri}"}}}}"#);
        assert_eq!(h.send(&sub)[0]["result"], json!({}));
    }
    // Resources 0 and 2 changed (both subscribed), and every list.
    h.server.handler_mut().changes = ListChanges { tools: true, prompts: true, resources: true, updated: 0b101 };
    let out = h.send(r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#);
    assert_eq!(
        methods(&out),
        [
            "answer 3",
            "notifications/tools/list_changed",
            "notifications/prompts/list_changed",
            "notifications/resources/list_changed",
            "notifications/resources/updated",
            "notifications/resources/updated"
        ]
    );
    assert_eq!(
        (out[4]["params"]["uri"].clone(), out[5]["params"]["uri"].clone()),
        (json!("file:///a"), json!("file:///c"))
    );
    // Announced once: nothing is left pending.
    assert_eq!(methods(&h.send(r#"{"jsonrpc":"2.0","id":4,"method":"ping"}"#)), ["answer 4"]);
}

#[test]
fn values_are_logged_while_the_answer_keeps_its_room() {
    let mut h = Harness::new();
    h.initialize();
    h.send(r#"{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"info"}}"#);
    let out = h.send(r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"values"}}"#);
    let results = &h.server.handler().results;
    assert_eq!(results[..3], ["Ok(false)", "Ok(true)", "Err(TooLarge)"], "{results:?}");
    let (sent, last) = results[3].split_once(" then ").unwrap();
    let sent: usize = sent.parse().unwrap();
    assert!(sent > 0 && last == "Err(Full)", "{}", results[3]);
    assert_eq!(results[4], "Err(NotAvailable)", "nothing once the answer has started");
    assert_eq!(out.len(), 1 + sent + 1, "{out:?}");
    assert_eq!(out[0]["params"], json!({"level":"error","logger":"app","data":{"code":7}}));
    assert!(out[1..=sent].iter().all(|m| m["params"]["data"].as_str().is_some_and(|d| d.len() == 100)));
    assert_eq!(out[sent + 1]["result"]["content"][0]["text"], "ok");
    // The notes leave the answer at least MIN_RESPONSE_WINDOW of its 1024-byte window, and one more
    // would not have (the wire form of each note: its compact JSON and the newline).
    let wire = |m: &Json| serde_json::to_string(m).unwrap().len() + 1;
    let used: usize = out[..=sent].iter().map(wire).sum();
    let room = 1024 - MIN_RESPONSE_WINDOW;
    assert!(used <= room && used + wire(&out[sent]) > room, "{used} bytes of notes");
    // A handler's refusal of a resource or a prompt is its own error.
    let read = h.send(r#"{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"file:///fail"}}"#);
    assert_eq!(read[0]["error"], json!({"code":-32603,"message":"cannot read"}));
}
