//! Deterministic engine tests: a scripted handler, byte-exact inputs, outputs parsed with serde_json.

use std::string::{String, ToString};
use std::vec::Vec;

use serde_json::{Value as Json, json};

use super::*;
use crate::connection::Connection;
use crate::jsonrpc::code;
pub(super) use crate::server::tests_wire::{error_code, legacy, modern};
use crate::time::Instant;

static TOOLS: [Tool<'static>; 3] = [
    Tool::new("echo", "Echoes text", r#"{"type":"object","properties":{"text":{"type":"string"}}}"#),
    Tool::new("measure", "A slow measurement, answered later", "{\"type\":\"object\"}")
        .with_title("Measure")
        .with_output_schema(r#"{"type":"object","properties":{"value":{"type":"number"}}}"#)
        .with_annotations(ToolAnnotations::new().with_read_only(true)),
    Tool::new("forget", "Drops its reply (a handler bug)", "{\"type\":\"object\"}"),
];

static RESOURCES: [Resource<'static>; 2] =
    [Resource::new("test://text", "text").with_mime_type("text/plain"), Resource::new("test://blob", "blob")];

static PROMPT_ARGS: [PromptArgument<'static>; 1] =
    [PromptArgument::new("topic", true).with_description("What to talk about")];
static PROMPTS: [Prompt<'static>; 1] = [Prompt::new("talk", &PROMPT_ARGS).with_description("Talk")];

#[derive(serde::Serialize)]
struct Measurement {
    value: f32,
}

#[derive(Default)]
pub(super) struct TestHandler {
    pub(super) deferred: Vec<Deferred>,
    pub(super) events: Vec<String>,
}

impl Handler for TestHandler {
    const TOOLS: &'static [Tool<'static>] = &TOOLS;
    const RESOURCES: &'static [Resource<'static>] = &RESOURCES;
    const PROMPTS: &'static [Prompt<'static>] = &PROMPTS;

    fn call_tool(&mut self, call: ToolCall<'_>, reply: ToolReply<'_>) {
        match call.name {
            "echo" if call.argument("structured").is_some() => {
                reply.structured_fmt(format_args!("{{\"v\":1}}")).finish();
            }
            "echo" if call.argument("finish_text").is_some() => reply.finish_text("done"),
            "echo" if call.argument("finish_text_fmt").is_some() => reply.finish_text_fmt(format_args!("do{}", "ne")),
            "echo" => match call.argument("text").and_then(|v| v.as_str()) {
                Some(text) => reply.text_json(text).finish(),
                None => reply.finish_error_text("missing text"),
            },
            "measure" => {
                if let Ok(deferred) = reply.defer() {
                    self.deferred.push(deferred);
                }
            }
            _ => drop(reply),
        }
    }
    fn read_resource(&mut self, read: ResourceRead<'_>, reply: ResourceReply<'_>) {
        match read.uri {
            "test://text" => reply.text(read.uri, Some("text/plain"), "hello\nworld").finish(),
            "test://blob" => reply.blob(read.uri, Some("application/octet-stream"), b"\x00\x01\x02").finish(),
            uri => reply.not_found(uri),
        }
    }
    fn get_prompt(&mut self, get: PromptGet<'_>, reply: PromptReply<'_>) {
        let topic = get.argument("topic");
        match topic {
            Some(topic) => {
                reply.description("A talk").text_fmt(Role::User, format_args!("Talk about {topic}")).finish()
            }
            None => reply.fail(code::INVALID_PARAMS, "no topic"),
        }
    }
    fn on_event(&mut self, _now: Instant, event: Event<'_>) {
        self.events.push(std::format!("{event:?}"));
    }
}

/// A server over heap buffers (tests only), with helpers to exchange lines.
pub(super) struct Harness {
    pub(super) server: Server<'static, TestHandler, 2>,
    pub(super) now: Instant,
}

impl Harness {
    pub(super) fn new() -> Self {
        Self::with(4096, 4096, Limits::default())
    }

    pub(super) fn with(rx: usize, tx: usize, limits: Limits) -> Self {
        let rx = std::vec![0u8; rx].leak();
        let tx = std::vec![0u8; tx].leak();
        let config = Config::new("test-server", "1.2.3")
            .with_limits(limits)
            .with_list_cache(CacheHints::new(60_000, CacheScope::Public));
        Harness { server: Server::new(TestHandler::default(), config, Buffers { rx, tx }), now: Instant::ZERO }
    }

    /// Feeds bytes as the adapter would, transmitting in between, and returns every line written.
    pub(super) fn feed(&mut self, bytes: &[u8]) -> Vec<Json> {
        super::tests_wire::feed_json(&mut self.server, self.now, bytes)
    }

    fn flush_raw(&mut self) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        while let Some(bytes) = self.server.poll_transmit() {
            out.push(bytes.to_vec());
            let n = bytes.len();
            self.server.transmit_done(self.now, n);
        }
        out
    }

    pub(super) fn request(&mut self, line: &str) -> Json {
        let mut out = self.feed(std::format!("{line}\n").as_bytes());
        assert_eq!(out.len(), 1, "expected one answer to {line}, got {out:?}");
        out.remove(0)
    }

    pub(super) fn initialize(&mut self, version: &str) -> Json {
        let init = self.request(&std::format!(
            r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"{version}","capabilities":{{}},"clientInfo":{{"name":"c","version":"1"}}}}}}"#
        ));
        assert!(self.feed(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n").is_empty());
        init
    }
}

fn parse_line(line: &[u8]) -> Json {
    serde_json::from_slice(line)
        .unwrap_or_else(|e| panic!("invalid JSON line {:?}: {e}", String::from_utf8_lossy(line)))
}

#[test]
fn initialize_negotiates_legacy_versions() {
    for (asked, expected) in [
        ("2024-11-05", "2024-11-05"),
        ("2025-03-26", "2025-03-26"),
        ("2025-06-18", "2025-06-18"),
        ("2025-11-25", "2025-11-25"),
        ("2026-07-28", "2025-11-25"),
        ("2099-01-01", "2025-11-25"),
    ] {
        let mut h = Harness::new();
        let init = h.initialize(asked);
        assert_eq!(init["id"], 0);
        assert_eq!(init["result"]["protocolVersion"], expected);
        assert_eq!(init["result"]["serverInfo"]["name"], "test-server");
        assert_eq!(init["result"]["capabilities"], json!({"tools":{},"resources":{},"prompts":{}}));
        assert!(init["result"].get("resultType").is_none(), "legacy results carry no resultType");
        assert_eq!(h.server.session_version().map(|v| v.as_str()), Some(expected));
        assert!(h.server.handler().events.iter().any(|e| e.contains("SessionReady")));
    }
}

#[test]
fn requests_before_initialize_are_refused_but_ping_is_answered() {
    let mut h = Harness::new();
    let answer = h.request(&legacy(1, "tools/list", ""));
    assert_eq!(error_code(&answer), code::INVALID_PARAMS as i64);
    assert!(answer["error"]["message"].as_str().unwrap().contains("initialize"));
    assert_eq!(answer["id"], 1);
    let pong = h.request(r#"{"jsonrpc":"2.0","id":"p","method":"ping"}"#);
    assert_eq!(pong, json!({"jsonrpc":"2.0","id":"p","result":{}}));
}

#[test]
fn legacy_session_serves_lists_and_calls() {
    let mut h = Harness::new();
    h.initialize("2025-06-18");
    let tools = h.request(&legacy(2, "tools/list", ""));
    let list = tools["result"]["tools"].as_array().unwrap();
    assert_eq!(list.iter().map(|t| t["name"].as_str().unwrap()).collect::<Vec<_>>(), ["echo", "measure", "forget"]);
    assert_eq!(list[1]["title"], "Measure");
    assert_eq!(list[1]["annotations"], json!({"readOnlyHint": true}));
    assert!(tools["result"].get("nextCursor").is_none());
    let call = h.request(&legacy(3, "tools/call", r#""name":"echo","arguments":{"text":"a\"b\n"}"#));
    assert_eq!(call["result"], json!({"content":[{"type":"text","text":"a\"b\n"}]}));
}

#[test]
fn old_versions_get_no_fields_they_do_not_know() {
    let mut h = Harness::new();
    h.initialize("2024-11-05");
    let tools = h.request(&legacy(2, "tools/list", ""));
    let measure = &tools["result"]["tools"][1];
    assert!(measure.get("title").is_none());
    assert!(measure.get("annotations").is_none());
    assert!(measure.get("outputSchema").is_none());
}

#[test]
fn modern_requests_are_stateless_and_stamped() {
    let mut h = Harness::new();
    let discover = h.request(&modern(1, "server/discover", ""));
    let result = &discover["result"];
    assert_eq!(result["supportedVersions"], json!(["2026-07-28"]));
    assert_eq!(result["resultType"], "complete");
    assert_eq!(result["ttlMs"], 60_000);
    assert_eq!(result["cacheScope"], "public");
    assert_eq!(result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "test-server");
    assert_eq!(result["capabilities"]["tools"], json!({}));
    let call = h.request(&modern(2, "tools/call", r#""name":"echo","arguments":{"text":"x"}"#));
    assert_eq!(call["result"]["resultType"], "complete");
    assert_eq!(call["result"]["content"][0]["text"], "x");
    let tools = h.request(&modern(3, "tools/list", ""));
    assert_eq!(tools["result"]["cacheScope"], "public");
    assert_eq!(h.server.session_version(), None, "modern requests open no session");
}

#[test]
fn modern_meta_is_validated() {
    let mut h = Harness::new();
    let missing_caps = h.request(
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#,
    );
    assert_eq!(error_code(&missing_caps), code::INVALID_PARAMS as i64);
    let missing_version = h.request(
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{}}}}"#,
    );
    assert_eq!(error_code(&missing_version), code::INVALID_PARAMS as i64);
    for version in ["1900-01-01", "2025-11-25"] {
        let unsupported = h.request(&std::format!(
            r#"{{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{{"_meta":{{"io.modelcontextprotocol/protocolVersion":"{version}","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#
        ));
        assert_eq!(error_code(&unsupported), code::UNSUPPORTED_PROTOCOL_VERSION as i64);
        assert_eq!(unsupported["error"]["data"]["requested"], version);
        // Only what this request can use: legacy versions need `initialize`, so a client retrying
        // with one of `supported` succeeds.
        assert_eq!(unsupported["error"]["data"]["supported"], serde_json::json!(["2026-07-28"]));
    }
}

#[test]
fn methods_removed_in_2026_are_not_found() {
    let mut h = Harness::new();
    for method in ["ping", "initialize", "logging/setLevel", "resources/subscribe", "no/such/method"] {
        let answer = h.request(&modern(1, method, ""));
        assert_eq!(error_code(&answer), code::METHOD_NOT_FOUND as i64, "{method}");
    }
    h.initialize("2025-11-25");
    let answer = h.request(&legacy(9, "server/discover", ""));
    assert_eq!(error_code(&answer), code::METHOD_NOT_FOUND as i64, "discover is modern-only");
}

#[test]
fn escaped_method_names_are_the_methods() {
    let mut h = Harness::new();
    h.initialize("2025-11-25");
    // Every method a legacy session serves here (the longest name a server answers among them),
    // each name with its first character escaped: answered as the name unescaped is.
    let methods = [
        ("ping", ""),
        ("tools/list", ""),
        ("tools/call", r#""name":"echo","arguments":{"text":"x"}"#),
        ("resources/list", ""),
        ("resources/templates/list", ""),
        ("resources/read", r#""uri":"test://text""#),
        ("prompts/list", ""),
        ("prompts/get", r#""name":"talk","arguments":{"topic":"t"}"#),
    ];
    for (method, params) in methods {
        let plain = h.request(&legacy(1, method, params));
        assert!(plain.get("result").is_some(), "{method}: {plain}");
        let first = method.chars().next().unwrap();
        let escaped = std::format!("\\u{:04x}{}", u32::from(first), &method[1..]);
        assert_eq!(h.request(&legacy(1, &escaped, params)), plain, "{escaped}");
    }
    // Escaped names not served, up to longer than any served: not found, named as they read unescaped.
    let long = std::format!("a/{}", "x".repeat(200));
    for name in ["no/such/method", "no/such/method/with/a/long/name", &long] {
        let answer = h.request(&legacy(2, &name.replace('/', r"\/"), ""));
        assert_eq!(error_code(&answer), code::METHOD_NOT_FOUND as i64);
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(message.ends_with(&std::format!(": {name} (protocol version 2025-11-25)")), "{message}");
    }
}

#[test]
fn pagination_walks_every_item_once() {
    let mut h = Harness::with(4096, 4096, Limits { page_size: 2, ..Limits::default() });
    let first = h.request(&modern(1, "tools/list", ""));
    assert_eq!(first["result"]["tools"].as_array().unwrap().len(), 2);
    let cursor = first["result"]["nextCursor"].as_str().unwrap().to_string();
    let second = h.request(&modern(2, "tools/list", &std::format!(r#""cursor":"{cursor}""#)));
    assert_eq!(second["result"]["tools"][0]["name"], "forget");
    assert!(second["result"].get("nextCursor").is_none());
    for bad in [r#""cursor":"x""#, r#""cursor":"3""#, r#""cursor":5"#, r#""cursor":"""#] {
        let answer = h.request(&modern(3, "tools/list", bad));
        assert_eq!(error_code(&answer), code::INVALID_PARAMS as i64, "{bad}");
    }
}

#[test]
fn pages_shrink_to_fit_a_small_transmit_buffer() {
    let mut h = Harness::with(4096, 560, Limits::default());
    let mut names = Vec::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    for id in 1..10 {
        pages += 1;
        let params = cursor.as_ref().map(|c| std::format!(r#""cursor":"{c}""#)).unwrap_or_default();
        let page = h.request(&modern(id, "tools/list", &params));
        assert!(page.get("result").is_some(), "{page}");
        for tool in page["result"]["tools"].as_array().unwrap() {
            names.push(tool["name"].as_str().unwrap().to_string());
        }
        match page["result"].get("nextCursor") {
            Some(next) => cursor = Some(next.as_str().unwrap().to_string()),
            None => break,
        }
    }
    assert_eq!(names, ["echo", "measure", "forget"]);
    assert!(pages > 1, "the list needed more than one page");
}

#[test]
fn resources_are_read_and_not_found_depends_on_the_era() {
    let mut h = Harness::new();
    let text = h.request(&modern(1, "resources/read", r#""uri":"test://text""#));
    assert_eq!(
        text["result"]["contents"][0],
        json!({"uri":"test://text","mimeType":"text/plain","text":"hello\nworld"})
    );
    assert_eq!(text["result"]["cacheScope"], "private");
    let blob = h.request(&modern(2, "resources/read", r#""uri":"test://blob""#));
    assert_eq!(blob["result"]["contents"][0]["blob"], "AAEC");
    let missing = h.request(&modern(3, "resources/read", r#""uri":"test://missing""#));
    assert_eq!(error_code(&missing), code::INVALID_PARAMS as i64);
    assert_eq!(missing["error"]["data"]["uri"], "test://missing");
    h.initialize("2025-11-25");
    let missing = h.request(&legacy(4, "resources/read", r#""uri":"test://missing""#));
    assert_eq!(error_code(&missing), code::RESOURCE_NOT_FOUND as i64);
    let listed = h.request(&legacy(5, "resources/list", ""));
    assert_eq!(listed["result"]["resources"][1]["uri"], "test://blob");
    let templates = h.request(&legacy(6, "resources/templates/list", ""));
    assert_eq!(templates["result"]["resourceTemplates"], json!([]));
}

#[test]
fn prompts_check_their_arguments() {
    let mut h = Harness::new();
    let missing = h.request(&modern(1, "prompts/get", r#""name":"talk""#));
    assert_eq!(error_code(&missing), code::INVALID_PARAMS as i64);
    let not_string = h.request(&modern(2, "prompts/get", r#""name":"talk","arguments":{"topic":3}"#));
    assert_eq!(error_code(&not_string), code::INVALID_PARAMS as i64);
    let unknown = h.request(&modern(3, "prompts/get", r#""name":"sing""#));
    assert_eq!(error_code(&unknown), code::INVALID_PARAMS as i64);
    let ok = h.request(&modern(4, "prompts/get", r#""name":"talk","arguments":{"topic":"rust \"now\""}"#));
    assert_eq!(ok["result"]["description"], "A talk");
    assert_eq!(
        ok["result"]["messages"][0],
        json!({"role":"user","content":{"type":"text","text":"Talk about rust \"now\""}})
    );
    let listed = h.request(&modern(5, "prompts/list", ""));
    assert_eq!(listed["result"]["prompts"][0]["arguments"][0]["required"], true);
}

#[test]
fn malformed_input_is_answered_and_the_stream_carries_on() {
    let mut h = Harness::with(256, 4096, Limits { max_depth: 16, ..Limits::default() });
    let mut input = Vec::new();
    input.extend_from_slice(b"this is not json\n");
    input.extend_from_slice(&[b'x'; 1000]);
    input.extend_from_slice(b"\n");
    input.extend_from_slice(&[b'['; 40]);
    input.extend_from_slice(b"\n");
    input.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"p\xffng\"}\n");
    input.extend_from_slice(b"[{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}]\n");
    input.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":3}\n");
    input.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\"}\n");
    let out = h.feed(&input);
    let codes: Vec<i64> = out.iter().take(6).map(error_code).collect();
    assert_eq!(codes, [-32700, -32600, -32600, -32700, -32600, -32600]);
    assert!(out[..5].iter().all(|a| a.get("id").is_none()));
    assert_eq!(out[5]["id"], 3);
    assert_eq!(out[6], json!({"jsonrpc":"2.0","id":4,"result":{}}));
}

#[test]
fn batches_are_served_only_in_2025_03_26() {
    let batch = b"[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"},{\"jsonrpc\":\"2.0\",\"method\":\"notifications/x\"},{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"b\"}}}]\n";
    let mut h = Harness::new();
    h.initialize("2025-03-26");
    let out = h.feed(batch);
    assert_eq!(out.len(), 2);
    assert_eq!(out[0]["id"], 1);
    assert_eq!(out[1]["result"]["content"][0]["text"], "b");
    let empty = h.feed(b"[]\n");
    assert_eq!(error_code(&empty[0]), -32600);

    let mut h = Harness::new();
    h.initialize("2025-06-18");
    let out = h.feed(batch);
    assert_eq!(out.len(), 1);
    assert_eq!(error_code(&out[0]), -32600);
}

#[test]
fn deferred_requests_are_answered_later_or_cancelled() {
    let mut h = Harness::new();
    assert!(h.feed(format_line(&modern(7, "tools/call", r#""name":"measure""#)).as_bytes()).is_empty());
    assert_eq!(h.server.in_flight(), 1);
    let deferred = h.server.handler_mut().deferred.pop().unwrap();
    h.server.reply_tool(&deferred).unwrap().structured(&Measurement { value: 1.5 }).finish();
    let out = h.feed(b"");
    assert_eq!(out.len(), 1);
    assert_eq!(out[0]["id"], 7);
    assert_eq!(out[0]["result"]["structuredContent"], json!({"value": 1.5}));
    assert_eq!(out[0]["result"]["content"][0]["text"], "{\"value\":1.5}");
    assert_eq!(out[0]["result"]["resultType"], "complete");
    assert!(matches!(h.server.reply_tool(&deferred), Err(ReplyError::Unknown)), "answered once");

    assert!(h.feed(format_line(&modern(8, "tools/call", r#""name":"measure""#)).as_bytes()).is_empty());
    let deferred = h.server.handler_mut().deferred.pop().unwrap();
    let cancel = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":8}}\n";
    assert!(h.feed(cancel.as_bytes()).is_empty());
    assert!(h.server.is_cancelled(&deferred));
    assert!(h.server.handler().events.iter().any(|e| e.contains("Cancelled")));
    assert!(matches!(h.server.reply_tool(&deferred), Err(ReplyError::Cancelled)));
    assert_eq!(h.server.in_flight(), 0);
    assert!(h.feed(b"").is_empty(), "a cancelled request is never answered");
}

#[test]
fn in_flight_limit_is_enforced() {
    let mut h = Harness::new();
    for id in 1..=2 {
        assert!(h.feed(format_line(&modern(id, "tools/call", r#""name":"measure""#)).as_bytes()).is_empty());
    }
    let busy = h.request(&modern(3, "tools/call", r#""name":"measure""#));
    assert_eq!(error_code(&busy), code::INTERNAL_ERROR as i64);
    assert_eq!(h.server.in_flight(), 2);
}

#[test]
fn back_pressure_holds_input_until_output_drains() {
    let mut h = Harness::with(4096, 512, Limits::default());
    let mut input = String::new();
    for id in 0..20 {
        input.push_str(&format_line(&modern(id, "tools/call", r#""name":"echo","arguments":{"text":"z"}"#)));
    }
    let taken = h.server.handle_input(h.now, input.as_bytes());
    assert!(h.server.poll_transmit().is_some());
    let mut out = h.flush_raw().concat();
    let rest = &input.as_bytes()[taken..];
    let answers = h.feed(rest);
    out.extend(answers.iter().flat_map(|a| {
        let mut line = serde_json::to_vec(a).unwrap();
        line.push(b'\n');
        line
    }));
    let ids: Vec<i64> =
        out.split(|&c| c == b'\n').filter(|l| !l.is_empty()).map(|l| parse_line(l)["id"].as_i64().unwrap()).collect();
    assert_eq!(ids, (0..20).collect::<Vec<_>>());
}

#[test]
fn random_fragmentation_does_not_change_the_answers() {
    let mut transcript = String::new();
    transcript.push_str(&format_line(&legacy(0, "initialize", r#""protocolVersion":"2025-11-25","capabilities":{}"#)));
    transcript.push_str("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\r\n");
    transcript.push_str(&format_line(&legacy(1, "tools/list", "")));
    transcript.push_str("garbage\n\n");
    transcript.push_str(&format_line(&modern(2, "resources/read", r#""uri":"test://text""#)));
    transcript.push_str(&format_line(&legacy(3, "prompts/get", r#""name":"talk","arguments":{"topic":"t"}"#)));
    let expected = Harness::new().feed(transcript.as_bytes());
    assert_eq!(expected.len(), 5);
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    for _ in 0..300 {
        let mut h = Harness::new();
        let mut out = Vec::new();
        let mut rest = transcript.as_bytes();
        while !rest.is_empty() {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let n = (seed % 23 + 1) as usize;
            let (chunk, tail) = rest.split_at(n.min(rest.len()));
            out.extend(h.feed(chunk));
            rest = tail;
        }
        assert_eq!(out, expected);
    }
}

#[test]
fn end_of_input_finishes_after_output_drains() {
    let mut h = Harness::new();
    let taken = h.server.handle_input(h.now, b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n{\"jsonrpc\":");
    assert_eq!(taken, 52, "all input is taken");
    h.server.handle_eof(h.now);
    assert!(!h.server.is_finished(), "an answer is still pending");
    assert_eq!(h.flush_raw().len(), 1);
    assert!(h.server.is_finished());
    assert!(h.server.handler().events.iter().any(|e| e.contains("Truncated")));
    assert!(h.server.rx_spare().is_empty());
    assert_eq!(h.server.handle_input(h.now, b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n"), 0);
    assert!(h.server.poll_transmit().is_none(), "input after the end is ignored");
}

/// Each `Config::with_*` sets its field and leaves the others as `Config::new` made them.
#[test]
fn config_builders_set_one_field_each() {
    #[derive(Debug)]
    struct NoSealer;
    impl StateSealer for NoSealer {
        fn seal(&self, _: &StateBinding<'_>, _: &[u8], _: &mut [u8]) -> Option<usize> {
            None
        }
        fn open<'o>(&self, _: &StateBinding<'_>, _: &[u8], _: &'o mut [u8]) -> Result<&'o [u8], SealError> {
            Err(SealError::Invalid)
        }
    }
    static SEALER: NoSealer = NoSealer;
    const LIMITS: Limits = Limits { max_response: 1234, ..Limits::DEFAULT };
    const CAPABILITIES: crate::mcp::ServerCapabilities = crate::mcp::ServerCapabilities::NONE.with_logging();
    let base = Config::new("n", "1");
    let info = Implementation::new("m", "2").with_title("M");
    let hints = CacheHints::new(5, CacheScope::Private);
    let built = Config::new("n", "1")
        .with_server_info(info)
        .with_title("T")
        .with_instructions("I")
        .with_limits(LIMITS)
        .with_list_cache(hints)
        .with_resource_cache(CacheHints::new(7, CacheScope::Public))
        .with_capabilities(CAPABILITIES)
        .with_request_timeout(None)
        .with_state_sealer(&SEALER);
    assert_eq!(built.server_info, info.with_title("T"));
    assert_eq!(built.instructions, Some("I"));
    assert_eq!(built.limits, LIMITS);
    assert_eq!(built.list_cache, hints);
    assert_eq!(built.resource_cache, CacheHints { ttl_ms: 7, scope: CacheScope::Public });
    assert_eq!(built.capabilities, Some(CAPABILITIES));
    assert_eq!(built.request_timeout, None);
    assert!(built.state_sealer.is_some());
    assert_eq!(Config::new("n", "1").with_title("T").server_info, Implementation::new("n", "1").with_title("T"));
    assert_eq!(
        (base.server_info, base.instructions, base.limits, base.capabilities, base.request_timeout),
        (Implementation::new("n", "1"), None, Limits::DEFAULT, None, Some(DEFAULT_REQUEST_TIMEOUT))
    );
    assert_eq!(
        (base.list_cache, base.resource_cache),
        (CacheHints::new(0, CacheScope::Public), CacheHints::new(0, CacheScope::Private))
    );
    assert!(base.state_sealer.is_none());
}

pub(super) fn format_line(line: &str) -> String {
    std::format!("{line}\n")
}
