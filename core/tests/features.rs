//! The surface features: a build without one answers its methods -32601 and does not declare its
//! capability; a build with it serves them. Compiles under any feature set; `scripts/check-features`
//! runs it once with every surface feature and once without each (`cargo test -p mcp-sansio
//! --no-default-features --features … --test features`). Garbled input is answered and the stream
//! goes on in every one of those builds too (the fuzz targets run the `full` build).

use mcp_sansio::connection::Connection;
use mcp_sansio::mcp::{ListCapability, LoggingLevel, ResourceCapability, Role, ServerCapabilities};
use mcp_sansio::server::{
    Buffers, CompletionReply, CompletionRequest, Config, Handler, InputRequest, ListChanges, Prompt, PromptGet,
    PromptReply, Resource, ResourceRead, ResourceReply, ResourceTemplate, Server, Tool, ToolCall, ToolReply,
};
use mcp_sansio::time::Instant;
use serde_json::Value;

#[allow(dead_code)]
#[path = "../src/test_rng.rs"]
mod test_rng;

use test_rng::XorShift;

static TOOLS: [Tool<'static>; 5] = [
    Tool::new("echo", "Echoes", r#"{"type":"object"}"#),
    Tool::new("change", "Changes every list", r#"{"type":"object"}"#),
    Tool::new("log", "Logs a message", r#"{"type":"object"}"#),
    Tool::new("roots", "Asks for roots", r#"{"type":"object"}"#),
    Tool::new("progress", "Reports progress", r#"{"type":"object"}"#),
];
static RESOURCES: [Resource<'static>; 1] = [Resource::new("test://status", "status")];
static TEMPLATES: [ResourceTemplate<'static>; 1] = [ResourceTemplate::new("test://item/{id}", "item")];
static PROMPTS: [Prompt<'static>; 1] = [Prompt::new("greet", &[])];

/// A server that declares everything the protocol has.
struct Everything {
    /// The `change` tool ran: every list changed, and the first resource.
    changed: bool,
}

impl Handler for Everything {
    const TOOLS: &'static [Tool<'static>] = &TOOLS;
    const RESOURCES: &'static [Resource<'static>] = &RESOURCES;
    const RESOURCE_TEMPLATES: &'static [ResourceTemplate<'static>] = &TEMPLATES;
    const PROMPTS: &'static [Prompt<'static>] = &PROMPTS;

    fn capabilities(&self) -> ServerCapabilities {
        let list = ListCapability { list_changed: true };
        ServerCapabilities::NONE
            .with_tools(list)
            .with_resources(ResourceCapability { subscribe: true, list_changed: true })
            .with_prompts(list)
            .with_logging()
            .with_completions()
    }

    fn call_tool(&mut self, call: ToolCall<'_>, reply: ToolReply<'_>) {
        match call.name {
            "roots" if call.context.input("roots").is_none() => {
                reply.input_required().request("roots", InputRequest::ListRoots).finish()
            }
            "progress" => {
                let mut reply = reply;
                let sent = reply.progress(1, Some(2), None).is_ok();
                reply.text(if sent { "sent" } else { "not sent" }).finish()
            }
            "log" => {
                let mut reply = reply;
                let logged = reply.log(LoggingLevel::Info, None, format_args!("hello")) == Ok(true);
                reply.text(if logged { "logged" } else { "not logged" }).finish()
            }
            "change" => {
                self.changed = true;
                reply.text("ok").finish()
            }
            _ => reply.text("ok").finish(),
        }
    }

    fn take_list_changes(&mut self) -> ListChanges {
        match core::mem::take(&mut self.changed) {
            true => ListChanges { tools: true, prompts: true, resources: true, updated: 1 },
            false => ListChanges::NONE,
        }
    }

    fn read_resource(&mut self, read: ResourceRead<'_>, reply: ResourceReply<'_>) {
        reply.text(read.uri, None, "ok").finish()
    }

    fn get_prompt(&mut self, _: PromptGet<'_>, reply: PromptReply<'_>) {
        reply.text(Role::User, "hello").finish()
    }

    fn complete(&mut self, _: CompletionRequest<'_>, reply: CompletionReply<'_>) {
        reply.value("a").finish()
    }
}

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"roots":{}}}"#;

struct Peer {
    rx: Vec<u8>,
    tx: Vec<u8>,
    input: Vec<u8>,
}

impl Peer {
    fn new() -> Self {
        Peer { rx: vec![0; 8192], tx: vec![0; 16384], input: vec![0; 2048] }
    }

    fn server(&mut self) -> Server<'_, Everything> {
        let buffers = Buffers { rx: &mut self.rx, tx: &mut self.tx };
        let mut server = Server::new(Everything { changed: false }, Config::new("features", "1.0.0"), buffers);
        server.parts_mut().0.set_input_buffer(&mut self.input);
        server
    }
}

/// Sends `line`, returns the answers it got.
fn exchange(server: &mut Server<'_, Everything>, line: &str) -> Vec<Value> {
    let now = Instant::from_millis(0);
    let spare = server.rx_spare();
    spare[..line.len()].copy_from_slice(line.as_bytes());
    spare[line.len()] = b'\n';
    server.rx_commit(now, line.len() + 1);
    let mut out = Vec::new();
    while let Some(bytes) = server.poll_transmit() {
        out.extend_from_slice(bytes);
        let n = bytes.len();
        server.transmit_done(now, n);
    }
    out.split(|b| *b == b'\n').filter(|l| !l.is_empty()).map(|l| serde_json::from_slice(l).unwrap()).collect()
}

fn request(id: u32, method: &str, params: &str, modern: bool) -> String {
    let params = match (params.is_empty(), modern) {
        (true, false) => String::new(),
        (true, true) => format!(r#","params":{{{META}}}"#),
        (false, false) => format!(r#","params":{{{params}}}"#),
        (false, true) => format!(r#","params":{{{params},{META}}}"#),
    };
    format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}"{params}}}"#)
}

/// Each feature's requests: (feature on in this build, method, params, era).
fn requests() -> Vec<(bool, &'static str, &'static str, bool)> {
    let resources = cfg!(feature = "resources");
    let subscribe = resources && cfg!(feature = "subscriptions");
    let complete = r#""ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"who","value":"a"}"#;
    vec![
        (true, "tools/list", "", false),
        (true, "tools/call", r#""name":"echo","arguments":{}"#, false),
        (resources, "resources/list", "", false),
        (resources, "resources/templates/list", "", false),
        (resources, "resources/read", r#""uri":"test://status""#, false),
        (resources, "resources/read", r#""uri":"test://status""#, true),
        (cfg!(feature = "prompts"), "prompts/list", "", false),
        (cfg!(feature = "prompts"), "prompts/get", r#""name":"greet""#, true),
        (cfg!(feature = "completion"), "completion/complete", complete, false),
        (cfg!(feature = "completion"), "completion/complete", complete, true),
        (cfg!(feature = "logging"), "logging/setLevel", r#""level":"info""#, false),
        (subscribe, "resources/subscribe", r#""uri":"test://status""#, false),
        (subscribe, "resources/unsubscribe", r#""uri":"test://status""#, false),
        (cfg!(feature = "subscriptions"), "subscriptions/listen", r#""notifications":{"toolsListChanged":true}"#, true),
    ]
}

/// The capabilities declared are those this build serves.
fn check_capabilities(capabilities: &Value, era: &str) {
    let has = |name: &str| capabilities.get(name).is_some();
    assert!(has("tools"), "{era}: {capabilities}");
    assert_eq!(has("resources"), cfg!(feature = "resources"), "{era}: {capabilities}");
    assert_eq!(has("prompts"), cfg!(feature = "prompts"), "{era}: {capabilities}");
    assert_eq!(has("logging"), cfg!(feature = "logging"), "{era}: {capabilities}");
    assert_eq!(has("completions"), cfg!(feature = "completion"), "{era}: {capabilities}");
    if let Some(resources) = capabilities.get("resources") {
        let subscribe = resources.get("subscribe").and_then(Value::as_bool).unwrap_or(false);
        assert_eq!(subscribe, cfg!(feature = "subscriptions"), "{era}: {capabilities}");
    }
}

/// What a request gets: served, -32601 (its feature is off), or refused for want of a session
/// (a legacy request to a build without the legacy era).
#[derive(Debug, PartialEq)]
enum Expected {
    Served,
    MethodNotFound,
    NoSession,
}

fn expected(on: bool, method: &str, modern: bool) -> Expected {
    let (legacy_era, modern_era) = (cfg!(feature = "legacy"), cfg!(feature = "modern"));
    match (modern, modern_era, legacy_era) {
        // Without the modern era, a modern request is a legacy request in the session.
        (true, true, _) | (true, false, true) | (false, _, true) => {
            let modern_only = method == "subscriptions/listen";
            if on && (!modern_only || modern_era) { Expected::Served } else { Expected::MethodNotFound }
        }
        (_, _, false) => Expected::NoSession,
    }
}

#[test]
fn a_method_is_served_exactly_when_its_feature_is_on() {
    let mut peer = Peer::new();
    let mut server = peer.server();
    let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{}},"clientInfo":{"name":"t","version":"1"}}}"#;
    let answer = &exchange(&mut server, init)[0];
    if cfg!(feature = "legacy") {
        check_capabilities(&answer["result"]["capabilities"], "2025-11-25");
        assert!(exchange(&mut server, r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).is_empty());
    } else {
        // A modern-only server names the versions it serves.
        assert_eq!(answer["error"]["code"], -32022, "{answer}");
        let supported: &[&str] = if cfg!(feature = "modern") { &["2026-07-28"] } else { &[] };
        assert_eq!(answer["error"]["data"]["supported"], serde_json::json!(supported), "{answer}");
        assert_eq!(answer["error"]["data"]["requested"], "2025-11-25", "{answer}");
        assert!(answer["error"]["data"].get("legacy").is_none(), "{answer}");
    }
    let discover = &exchange(&mut server, &request(1, "server/discover", "", true))[0];
    match (cfg!(feature = "modern"), cfg!(feature = "legacy")) {
        (true, _) => check_capabilities(&discover["result"]["capabilities"], "2026-07-28"),
        // A legacy server does not know the method.
        (false, true) => assert_eq!(discover["error"]["code"], -32601, "{discover}"),
        (false, false) => assert_eq!(discover["error"]["code"], -32602, "{discover}"),
    }
    if cfg!(feature = "modern") {
        let unsupported = request(2, "tools/list", "", true).replace("2026-07-28", "2099-01-01");
        let answer = &exchange(&mut server, &unsupported)[0];
        assert_eq!(answer["error"]["code"], -32022, "{answer}");
        assert_eq!(answer["error"]["data"]["supported"], serde_json::json!(["2026-07-28"]), "{answer}");
        let legacy = answer["error"]["data"]["legacy"]["versions"].as_array().map(Vec::len);
        assert_eq!(legacy, cfg!(feature = "legacy").then_some(4), "{answer}");
    }

    // Each request twice: as it is, and with its method's name escaped (`\u0074ools/list`), which
    // is the same method (the engine unescapes names up to the longest it serves).
    let escaped = |method: &str| format!("\\u{:04x}{}", u32::from(method.as_bytes()[0]), &method[1..]);
    let requests = requests().into_iter().flat_map(|(on, method, params, modern)| {
        [(on, method, method.to_string(), params, modern), (on, method, escaped(method), params, modern)]
    });
    for (id, (on, method, written, params, modern)) in (10..).zip(requests) {
        let answers = exchange(&mut server, &request(id, &written, params, modern));
        let expected = expected(on, method, modern);
        if expected == Expected::Served && method == "subscriptions/listen" {
            // An open stream: acknowledged, answered when it ends.
            let acknowledged = answers.iter().any(|a| a["method"] == "notifications/subscriptions/acknowledged");
            assert!(acknowledged, "{written}: {answers:?}");
            continue;
        }
        let answer = answers.iter().find(|a| a["id"] == id).unwrap_or_else(|| panic!("{written}: no answer"));
        let code = answer["error"]["code"].as_i64();
        match expected {
            Expected::Served => assert!(answer.get("result").is_some(), "{written} (modern: {modern}): {answer}"),
            Expected::MethodNotFound => assert_eq!(code, Some(-32601), "{written} (modern: {modern}): {answer}"),
            Expected::NoSession => assert_eq!(code, Some(-32602), "{written} (modern: {modern}): {answer}"),
        }
    }
    check_input(&mut server);
    check_progress(&mut server);
}

#[test]
fn a_request_outside_a_session_is_told_what_the_build_serves() {
    let mut peer = Peer::new();
    let mut server = peer.server();
    let answer = &exchange(&mut server, &request(1, "tools/list", "", false))[0];
    assert_eq!(answer["error"]["code"], -32602, "{answer}");
    let message = answer["error"]["message"].as_str().unwrap();
    // `initialize` where the build has the legacy era, per-request `_meta` where it has the modern.
    assert_eq!(message.contains("initialize"), cfg!(feature = "legacy") || !cfg!(feature = "modern"), "{message}");
    assert_eq!(message.contains("_meta"), cfg!(feature = "modern") || !cfg!(feature = "legacy"), "{message}");
}

/// A request's `progressToken` (in `_meta`, in either era) is honoured in every build.
fn check_progress(server: &mut Server<'_, Everything>) {
    let eras: &[bool] = match (cfg!(feature = "legacy"), cfg!(feature = "modern")) {
        (true, true) => &[false, true],
        (true, false) => &[false],
        (false, true) => &[true],
        (false, false) => &[],
    };
    for &modern in eras {
        let meta = match modern {
            true => {
                r#","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}"#
            }
            false => "",
        };
        let line = format!(
            r#"{{"jsonrpc":"2.0","id":40,"method":"tools/call","params":{{"name":"progress","arguments":{{}},"_meta":{{"progressToken":"p-1"{meta}}}}}}}"#
        );
        let answers = exchange(server, &line);
        let progress = answers.iter().find(|a| a["method"] == "notifications/progress");
        let progress = progress.unwrap_or_else(|| panic!("modern: {modern}: {answers:?}"));
        assert_eq!(
            (&progress["params"]["progressToken"], &progress["params"]["progress"]),
            (&Value::from("p-1"), &Value::from(1))
        );
        let answer = answers.iter().find(|a| a["id"] == 40).unwrap();
        assert_eq!(answer["result"]["content"][0]["text"], "sent", "{answer}");
    }
}

/// A tool that asks the client for its roots: asked in the era's way with the `input` feature;
/// without it the call fails with -32603.
fn check_input(server: &mut Server<'_, Everything>) {
    let call = r#""name":"roots","arguments":{}"#;
    for modern in [false, true] {
        let served =
            if modern { cfg!(feature = "modern") || cfg!(feature = "legacy") } else { cfg!(feature = "legacy") };
        if !served {
            continue;
        }
        let answers = exchange(server, &request(100, "tools/call", call, modern));
        let legacy_session = !modern || !cfg!(feature = "modern");
        let answer = answers.iter().find(|a| a["id"] == 100);
        match (cfg!(feature = "input"), legacy_session) {
            (true, true) => {
                // A request to the client, the call waiting for its answer.
                assert!(answers.iter().any(|a| a["method"] == "roots/list"), "{answers:?}");
                assert!(answer.is_none(), "{answers:?}");
                let asked = answers.iter().find(|a| a["method"] == "roots/list").unwrap();
                let id = &asked["id"];
                let roots = format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"roots":[]}}}}"#);
                let answers = exchange(server, &roots);
                let answer = answers.iter().find(|a| a["id"] == 100).expect("the call answered after the roots");
                assert!(answer.get("result").is_some(), "{answer}");
            }
            (true, false) => {
                let answer = answer.expect("an answer");
                assert_eq!(answer["result"]["resultType"], "input_required", "{answer}");
                assert!(answer["result"]["inputRequests"]["roots"].is_object(), "{answer}");
                // The retry with the answer is served, in a build with or without the legacy era
                // (whose input code a build without it leaves out).
                let retry = r#""name":"roots","arguments":{},"inputResponses":{"roots":{"roots":[]}}"#;
                let answers = exchange(server, &request(101, "tools/call", retry, true));
                let answer = answers.iter().find(|a| a["id"] == 101).expect("the retry answered");
                assert_eq!(answer["result"]["resultType"], "complete", "{answer}");
                assert_eq!(answer["result"]["content"][0]["text"], "ok", "{answer}");
            }
            (false, _) => {
                let answer = answer.expect("an answer");
                assert_eq!(answer["error"]["code"], -32603, "{answer}");
                assert!(answers.iter().all(|a| a["method"] != "roots/list"), "{answers:?}");
            }
        }
    }
}

/// A handler's list changes are told for the lists the build serves, an update only to a
/// subscriber; the others are dropped, not kept pending (the session can be suspended after).
#[test]
fn list_changes_are_told_for_the_lists_served() {
    if !cfg!(feature = "legacy") {
        return;
    }
    let mut peer = Peer::new();
    let mut server = peer.server();
    let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    exchange(&mut server, init);
    exchange(&mut server, r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    let subscribe = request(1, "resources/subscribe", r#""uri":"test://status""#, false);
    let subscribed = exchange(&mut server, &subscribe);
    let subscriptions = cfg!(all(feature = "resources", feature = "subscriptions"));
    assert_eq!(subscribed[0].get("result").is_some(), subscriptions, "{subscribed:?}");

    let answers = exchange(&mut server, &request(2, "tools/call", r#""name":"change","arguments":{}"#, false));
    let mut told: Vec<&str> = answers.iter().filter_map(|a| a["method"].as_str()).collect();
    told.sort_unstable();
    let mut expected = vec!["notifications/tools/list_changed"];
    if cfg!(feature = "prompts") {
        expected.push("notifications/prompts/list_changed");
    }
    if cfg!(feature = "resources") {
        expected.push("notifications/resources/list_changed");
    }
    if subscriptions {
        expected.push("notifications/resources/updated");
    }
    expected.sort_unstable();
    assert_eq!(told, expected, "{answers:?}");
    assert!(answers.iter().any(|a| a["id"] == 2 && a["result"].is_object()), "{answers:?}");
    assert!(server.engine().suspend().is_some(), "nothing is left pending");
}

/// A log message about a request is sent exactly when the build has `logging` and the client asked
/// for the level (`logging/setLevel` in a legacy session, `_meta` `logLevel` in 2026-07-28).
#[test]
fn log_messages_are_sent_only_with_logging() {
    let mut peer = Peer::new();
    let mut server = peer.server();
    let logging = cfg!(feature = "logging");
    if cfg!(feature = "legacy") {
        let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
        exchange(&mut server, init);
        exchange(&mut server, r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        let set = &exchange(&mut server, &request(1, "logging/setLevel", r#""level":"debug""#, false))[0];
        assert_eq!(set.get("result").is_some(), logging, "{set}");
        let answers = exchange(&mut server, &request(2, "tools/call", r#""name":"log","arguments":{}"#, false));
        check_logged(&answers, 2, logging);
    }
    if cfg!(feature = "modern") {
        let line = request(3, "tools/call", r#""name":"log","arguments":{}"#, true)
            .replace(r#""_meta":{"#, r#""_meta":{"io.modelcontextprotocol/logLevel":"debug","#);
        let answers = exchange(&mut server, &line);
        check_logged(&answers, 3, logging);
    }
    let (engine, handler) = server.parts_mut();
    assert_eq!(
        engine.log(LoggingLevel::Error, None, format_args!("session"), &*handler),
        match (logging, cfg!(feature = "legacy")) {
            (true, true) => Ok(true),
            _ => Err(mcp_sansio::endpoint::SendError::NotAvailable),
        }
    );
}

fn check_logged(answers: &[Value], id: u32, logging: bool) {
    let logs: Vec<_> = answers.iter().filter(|a| a["method"] == "notifications/message").collect();
    assert_eq!(logs.len(), usize::from(logging), "{answers:?}");
    if let Some(log) = logs.first() {
        assert_eq!((&log["params"]["level"], &log["params"]["data"]), (&Value::from("info"), &Value::from("hello")));
    }
    let answer = answers.iter().find(|a| a["id"] == id).unwrap_or_else(|| panic!("no answer: {answers:?}"));
    assert_eq!(answer["result"]["content"][0]["text"], if logging { "logged" } else { "not logged" }, "{answer}");
}

/// Garbled input, in every build: lines of every feature's requests (both eras, with answers,
/// notifications and a batch among them), each mutated a few times at random, fed in random pieces
/// and drained in random writes. Nothing panics; the output is one JSON-RPC message per line; a
/// request after the garbage is served, and answered once (the stream goes on); the input's end
/// finishes the connection.
#[test]
fn garbled_input_is_answered_and_the_stream_goes_on() {
    const CASES: usize = 4000;
    const PROBE: &str = r#""probe after the garbage""#;
    let mut rng = XorShift::new(26);
    let samples = sample_lines();
    let mut mutations = 0;
    for case in 0..CASES {
        let mut input = Vec::new();
        if rng.below(2) == 0 {
            input.extend_from_slice(INITIALIZE.as_bytes());
            input.extend_from_slice(b"\n{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n");
        }
        for _ in 0..1 + rng.below(6) {
            let mut line = rng.pick(&samples).clone().into_bytes();
            for _ in 0..rng.below(4) {
                rng.mutate(&mut line);
                mutations += 1;
            }
            input.extend_from_slice(&line);
            input.push(b'\n');
        }
        // The probe: `ping`, which 2026-07-28 dropped, so a build with only that era is asked for its
        // tools (every build serves them).
        let probe = match cfg!(feature = "modern") && !cfg!(feature = "legacy") {
            true => format!(r#"{{"jsonrpc":"2.0","id":{PROBE},"method":"tools/list","params":{{{META}}}}}"#),
            false => format!(r#"{{"jsonrpc":"2.0","id":{PROBE},"method":"ping"}}"#),
        };
        input.extend_from_slice(probe.as_bytes());
        input.push(b'\n');

        let mut peer = Peer::new();
        let mut server = peer.server();
        let mut now = 0;
        let mut out = Vec::new();
        let mut at = 0;
        while at < input.len() {
            let spare = server.rx_spare();
            assert!(!spare.is_empty(), "case {case}: no room to read with the output drained");
            let n = (1 + rng.below(96)).min(spare.len()).min(input.len() - at);
            spare[..n].copy_from_slice(&input[at..at + n]);
            at += n;
            now += rng.below(50) as u64;
            server.rx_commit(Instant::from_millis(now), n);
            drain_randomly(&mut server, &mut rng, now, &mut out);
        }
        let shown = String::from_utf8_lossy(&input);
        let messages = check_messages(&out, case, &shown);
        let probe: Value = serde_json::from_str(PROBE).unwrap();
        let answers: Vec<_> = messages.iter().filter(|m| m["id"] == probe && m.get("method").is_none()).collect();
        assert_eq!(answers.len(), 1, "case {case}: the probe is answered once\n{shown}\n{messages:?}");
        // Served in every build, even one without a protocol era (`ping`).
        assert!(answers[0].get("result").is_some(), "case {case}: {}\n{shown}", answers[0]);

        // The end of the input finishes the connection, once what is due has run.
        server.handle_eof(Instant::from_millis(now));
        let mut rounds = 0;
        loop {
            drain_randomly(&mut server, &mut rng, now, &mut out);
            if server.is_finished() {
                break;
            }
            rounds += 1;
            let due = server.poll_timeout();
            assert!(due.is_some() && rounds < 100, "case {case}: not finished after the input's end\n{shown}");
            now = now.max(due.unwrap().as_millis());
            server.handle_timeout(Instant::from_millis(now));
        }
        check_messages(&out, case, &shown);
    }
    assert!(mutations > CASES * 4, "the lines were mutated ({mutations})");
}

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{},"sampling":{},"elicitation":{}},"clientInfo":{"name":"t","version":"1"}}}"#;

/// What the garbled lines are made from: every feature's requests in both eras, and what else a
/// client sends (answers to the server's requests, notifications, a batch, a second initialize).
fn sample_lines() -> Vec<String> {
    let mut lines: Vec<String> =
        (1..).zip(requests()).map(|(id, (_, method, params, modern))| request(id, method, params, modern)).collect();
    for modern in [false, true] {
        lines.push(request(50, "tools/call", r#""name":"roots","arguments":{}"#, modern));
        lines.push(request(51, "tools/call", r#""name":"progress","arguments":{},"_meta":{"progressToken":7}"#, false));
        lines.push(request(
            52,
            "tools/call",
            r#""name":"change","arguments":{"a":[1,2.5e3,"\u00e9\ud83d\ude00"]}"#,
            modern,
        ));
        lines.push(request(53, "server/discover", "", modern));
        lines.push(request(54, "ping", "", modern));
    }
    lines.extend(
        [
            INITIALIZE,
            r#"{"jsonrpc":"2.0","id":0,"result":{"roots":[{"uri":"file:///tmp","name":"tmp"}]}}"#,
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no"}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":50,"reason":"r"}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"[{"jsonrpc":"2.0","id":60,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"}]"#,
            r#"{"jsonrpc":"2.0","id":61,"method":"tools/call","params":{"name":"roots","arguments":{},"inputResponses":{"roots":{"roots":[]}},"requestState":"x"}}"#,
        ]
        .map(String::from),
    );
    lines
}

/// Writes what the server has in pieces of random size, into `out`.
fn drain_randomly(server: &mut Server<'_, Everything>, rng: &mut XorShift, now: u64, out: &mut Vec<u8>) {
    while let Some(bytes) = server.poll_transmit() {
        let n = (1 + rng.below(512)).min(bytes.len());
        out.extend_from_slice(&bytes[..n]);
        server.transmit_done(Instant::from_millis(now), n);
    }
}

/// Every line of `out` is one JSON-RPC 2.0 message: a request or notification (a `method`), or an
/// answer with exactly one of `result` and `error`.
fn check_messages(out: &[u8], case: usize, input: &str) -> Vec<Value> {
    assert!(out.is_empty() || out.ends_with(b"\n"), "case {case}: output ends inside a line\n{input}");
    let lines = out.split(|b| *b == b'\n').filter(|l| !l.is_empty());
    let parse = |line: &[u8]| {
        let message: Value = serde_json::from_slice(line)
            .unwrap_or_else(|e| panic!("case {case}: not JSON ({e}): {}\n{input}", String::from_utf8_lossy(line)));
        assert_eq!(message["jsonrpc"], "2.0", "case {case}: {message}\n{input}");
        let answer = message.get("result").is_some() != message.get("error").is_some();
        assert!(message["method"].is_string() || answer, "case {case}: {message}\n{input}");
        message
    };
    lines.map(parse).collect()
}
