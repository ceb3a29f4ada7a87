//! Every message the server writes in a realistic session validates against the official schema of
//! the session's protocol version.

use std::collections::{BTreeMap, BTreeSet};

use mcp_sansio_tests::driver::{Clock, Driver, Memory, parse_json_line};
use mcp_sansio_tests::schema::{Checked, MODERN, Schema, VERSIONS};
use mcp_sansio_tests::{
    INITIALIZED, META_CAPABILITIES, META_VERSION, initialize_request, legacy_request, modern_request,
};
use serde_json::{Value, json};

/// What a session sends: lines, each with the ids and methods of the requests in it (none for a
/// notification, several for a batch).
struct Session {
    lines: Vec<(String, Vec<(i64, String)>)>,
    next_id: i64,
    modern: bool,
}

impl Session {
    fn new(modern: bool) -> Self {
        Session { lines: Vec::new(), next_id: 1, modern }
    }

    /// A request in the session's era.
    fn request(&mut self, method: &str, params: Option<Value>) {
        let id = self.next_id;
        self.next_id += 1;
        let line = if self.modern { modern_request(id, method, params) } else { legacy_request(id, method, params) };
        self.lines.push((line, vec![(id, method.to_owned())]));
    }

    /// A request spelled out by the caller (`id` and `method` must match the line).
    fn raw_request(&mut self, id: i64, method: &str, line: String) {
        self.lines.push((line, vec![(id, method.to_owned())]));
    }

    fn notification(&mut self, line: &str) {
        self.lines.push((line.to_owned(), Vec::new()));
    }

    fn tool(&mut self, name: &str, arguments: Value) {
        self.request("tools/call", Some(json!({"name": name, "arguments": arguments})));
    }

    /// Tools, resources and prompts: everything the device serves, successfully and not.
    fn features(&mut self) {
        self.request("tools/list", None);
        self.tool("echo", json!({"message": "hello, board"}));
        self.tool("read_temperature", json!({}));
        self.tool("read_temperature", json!({"sensor": "cpu"}));
        self.tool("set_led", json!({"on": true}));
        self.tool("get_uptime", json!({}));
        // Bad arguments: tool errors (`isError` results) the model can see...
        self.tool("echo", json!({}));
        self.tool("read_temperature", json!({"sensor": "gpu"}));
        self.tool("set_led", json!({"on": "yes"}));
        // ...and protocol errors: `arguments` that is not an object, a tool that does not exist.
        self.tool("echo", json!([1]));
        self.tool("self_destruct", json!({}));
        self.request("tools/call", Some(json!({"arguments": {}})));
        self.request("resources/list", None);
        self.request("resources/templates/list", None);
        self.request("resources/read", Some(json!({"uri": "device://status"})));
        self.request("resources/read", Some(json!({"uri": "device://calibration"})));
        self.request("resources/read", Some(json!({"uri": "device://missing"})));
        self.request("prompts/list", None);
        self.request("prompts/get", Some(json!({"name": "diagnose", "arguments": {"symptom": "the LED flickers"}})));
        self.request("prompts/get", Some(json!({"name": "diagnose"})));
        self.request("prompts/get", Some(json!({"name": "no_such_prompt", "arguments": {}})));
        self.request("tools/list", Some(json!({"cursor": "not-a-cursor"})));
        self.request("no/such/method", None);
    }

    /// The rest of the server surface: templates, completion, progress, list changes.
    fn surface(&mut self) {
        self.request("resources/read", Some(json!({"uri": "device://sensor/cpu"})));
        self.request("resources/read", Some(json!({"uri": "device://sensor/gpu"})));
        self.request(
            "completion/complete",
            Some(json!({"ref": {"type": "ref/resource", "uri": "device://sensor/{name}"}, "argument": {"name": "name", "value": "c"}})),
        );
        self.request(
            "completion/complete",
            Some(json!({"ref": {"type": "ref/prompt", "name": "diagnose"}, "argument": {"name": "symptom", "value": ""}})),
        );
        self.request(
            "completion/complete",
            Some(json!({"ref": {"type": "ref/prompt", "name": "nope"}, "argument": {"name": "x", "value": ""}})),
        );
        self.request(
            "tools/call",
            Some(json!({"name": "calibrate", "arguments": {}, "_meta": {"progressToken": "cal-1"}})),
        );
        self.tool("enable_blink", json!({"enabled": true}));
        self.tool("blink_led", json!({"times": 2}));
        self.tool("enable_blink", json!({"enabled": false}));
    }
}

fn legacy_session(version: &str) -> Session {
    let mut session = Session::new(false);
    session.raw_request(0, "initialize", initialize_request(0, version));
    session.notification(INITIALIZED);
    session.request("ping", None);
    session.features();
    session.request("logging/setLevel", Some(json!({"level": "warning"})));
    // Filtered out now: no log message.
    session.tool("read_temperature", json!({}));
    session.request("logging/setLevel", Some(json!({"level": "loud"})));
    session.surface();
    if version >= "2025-06-18" {
        // The factory reset asks for confirmation: the engine sends `elicitation/create` (the first
        // request to the client: id 1), the client accepts, and the tool is answered.
        session.tool("factory_reset", json!({}));
        session.notification(r#"{"jsonrpc":"2.0","id":1,"result":{"action":"accept","content":{"confirm":true}}}"#);
    }
    if version == "2025-03-26" {
        // A batch of two requests and a notification: each request is answered.
        let (a, b) = (session.next_id, session.next_id + 1);
        session.next_id += 2;
        let batch = format!(
            "[{},{},{}]",
            legacy_request(a, "ping", None),
            legacy_request(b, "tools/call", Some(json!({"name": "get_uptime", "arguments": {}}))),
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}"#
        );
        session.lines.push((batch, vec![(a, "ping".to_owned()), (b, "tools/call".to_owned())]));
    }
    session
}

fn modern_session() -> Session {
    let mut session = Session::new(true);
    session.request("server/discover", None);
    session.features();
    session.surface();
    // A request that opts into log messages gets them, on its own stream.
    let line = json!({"jsonrpc": "2.0", "id": 800, "method": "tools/call", "params": {"name": "read_temperature",
        "arguments": {}, "_meta": {META_VERSION: MODERN, META_CAPABILITIES: {}, "io.modelcontextprotocol/logLevel": "info"}}});
    session.raw_request(800, "tools/call", line.to_string());
    let line = json!({"jsonrpc": "2.0", "id": 801, "method": "tools/call", "params": {"name": "read_temperature",
        "arguments": {}, "_meta": {META_VERSION: MODERN, META_CAPABILITIES: {}, "io.modelcontextprotocol/logLevel": "loud"}}});
    session.raw_request(801, "tools/call", line.to_string());
    // A listen stream, acknowledged, told of the tool list change, answered when input ends.
    let line = json!({"jsonrpc": "2.0", "id": 802, "method": "subscriptions/listen", "params": {
        "_meta": {META_VERSION: MODERN, META_CAPABILITIES: {}},
        "notifications": {"toolsListChanged": true, "promptsListChanged": true}}});
    session.raw_request(802, "subscriptions/listen", line.to_string());
    session.tool("enable_blink", json!({"enabled": true}));
    // The factory reset asks for confirmation (InputRequiredResult), then the retry carries it.
    session.tool("factory_reset", json!({}));
    session.request(
        "tools/call",
        Some(json!({"name": "factory_reset", "arguments": {},
            "inputResponses": {"confirm": {"action": "accept", "content": {"confirm": true}}}})),
    );
    // Legacy-only methods do not exist in 2026-07-28.
    session.request("ping", None);
    // -32022: versions the server does not serve statelessly.
    for (id, version) in [(900, "1900-01-01"), (901, "2025-11-25")] {
        let line = json!({"jsonrpc": "2.0", "id": id, "method": "tools/list", "params": {"_meta": {
            META_VERSION: version, META_CAPABILITIES: {}}}});
        session.raw_request(id, "tools/list", line.to_string());
    }
    // -32602: `_meta` without the client capabilities, and a request without `_meta` at all.
    let line =
        json!({"jsonrpc": "2.0", "id": 902, "method": "tools/list", "params": {"_meta": {META_VERSION: MODERN}}});
    session.raw_request(902, "tools/list", line.to_string());
    session.raw_request(903, "tools/list", legacy_request(903, "tools/list", None));
    session
}

/// What a session produced: the definitions checked, the answers by id, and the notifications in
/// order, each with the line that caused it.
struct Outcome {
    checked: BTreeSet<String>,
    answers: BTreeMap<i64, Value>,
    notifications: Vec<(String, Value)>,
}

/// Runs `session` and validates every message the server wrote.
fn run_and_validate(schema: &Schema, session: &Session) -> Outcome {
    let mut memory = Memory::new();
    let mut driver = Driver::new(&mut memory, Clock::DEFAULT);
    let mut methods: BTreeMap<i64, String> = BTreeMap::new();
    let mut answers: BTreeMap<i64, Value> = BTreeMap::new();
    let mut checked = BTreeSet::new();
    let mut messages = Vec::new();
    for (line, requests) in &session.lines {
        for (id, method) in requests {
            assert!(methods.insert(*id, method.clone()).is_none(), "id {id} used twice");
        }
        for out in driver.send_line(line) {
            // A batch's answers may come back as one array: each element is a message.
            match parse_json_line(&out) {
                Value::Array(items) => {
                    assert!(!items.is_empty(), "an empty array was sent");
                    messages.extend(items.into_iter().map(|item| (line.clone(), item)));
                }
                message => messages.push((line.clone(), message)),
            }
        }
    }
    for out in mcp_sansio_tests::driver::split_lines(&driver.finish()) {
        messages.push(("(end of input)".to_owned(), parse_json_line(&out)));
    }
    let mut notifications = Vec::new();
    for (sent, message) in &messages {
        let id = message.get("id").and_then(Value::as_i64);
        let method = id.and_then(|id| methods.get(&id)).map(String::as_str);
        match schema.check_message(method, message) {
            Ok(checks) => checked.extend(checks.into_iter().map(|Checked { definition, .. }| definition)),
            Err(report) => panic!("{report}\n  in answer to: {sent}"),
        }
        if message.get("method").is_some() {
            notifications.push((sent.clone(), message.clone()));
            continue;
        }
        let id = id.unwrap_or_else(|| panic!("{}: an answer without an id: {message}", schema.version()));
        assert!(answers.insert(id, message.clone()).is_none(), "request {id} answered twice");
    }
    let unanswered: Vec<_> = methods.keys().filter(|id| !answers.contains_key(id)).collect();
    assert!(unanswered.is_empty(), "{}: requests never answered: {unanswered:?}", schema.version());
    Outcome { checked, answers, notifications }
}

/// The notifications `sent` caused, by method.
fn caused<'o>(outcome: &'o Outcome, sent: &str) -> Vec<&'o Value> {
    outcome.notifications.iter().filter(|(line, _)| line.contains(sent)).map(|(_, n)| n).collect()
}

/// The notifications every era gets: progress of the calibration, strictly increasing and ahead of
/// its answer.
fn check_surface(version: &str, outcome: &Outcome) {
    let progress: Vec<_> =
        caused(outcome, "cal-1").into_iter().filter(|n| n["method"] == "notifications/progress").collect();
    let steps: Vec<_> = progress.iter().map(|n| n["params"]["progress"].as_u64().unwrap()).collect();
    assert_eq!(steps, [1, 2, 3, 4], "{version}: calibration progress");
    assert!(progress.iter().all(|n| n["params"]["progressToken"] == "cal-1" && n["params"]["total"] == 4));
}

/// `structuredContent` of every successful tool call matches the tool's `outputSchema`, as the spec
/// requires of servers (2025-06-18 and later).
fn check_structured_content(schema: &Schema, session: &Session, answers: &BTreeMap<i64, Value>) {
    let list_id = session.lines.iter().flat_map(|(_, r)| r).find(|(_, m)| m == "tools/list").expect("a tools/list").0;
    let tools = answers[&list_id]["result"]["tools"].as_array().expect("a tool list").clone();
    let mut checked = 0;
    for (line, requests) in &session.lines {
        let [(id, method)] = requests.as_slice() else { continue };
        if method != "tools/call" {
            continue;
        }
        let Some(structured) = answers[id].pointer("/result/structuredContent") else { continue };
        let name = serde_json::from_str::<Value>(line).unwrap()["params"]["name"].clone();
        let tool = tools.iter().find(|t| t["name"] == name).expect("a listed tool");
        let output_schema = tool.get("outputSchema").unwrap_or_else(|| panic!("{name} has no outputSchema"));
        let validator = jsonschema::validator_for(output_schema).expect("a valid output schema");
        let errors: Vec<String> = validator.iter_errors(structured).map(|e| e.to_string()).collect();
        assert!(
            errors.is_empty(),
            "{}: {method} {name}: {structured} does not match {output_schema}: {errors:?}",
            schema.version()
        );
        // The spec also asks for the same JSON as a text block.
        let text = answers[id]["result"]["content"][0]["text"].as_str().expect("a text block");
        assert_eq!(&serde_json::from_str::<Value>(text).expect("JSON text"), structured);
        checked += 1;
    }
    assert!(checked >= 4, "{}: only {checked} structured results", schema.version());
}

#[test]
fn legacy_sessions_match_their_schemas() {
    for version in &VERSIONS[..4] {
        let schema = Schema::load(version);
        let session = legacy_session(version);
        let outcome = run_and_validate(&schema, &session);
        let (checked, answers) = (&outcome.checked, &outcome.answers);
        assert_eq!(answers[&0]["result"]["protocolVersion"], *version, "initialize echoes a supported version");
        check_surface(version, &outcome);
        // Log messages until `logging/setLevel` raised the level past `info`; -32602 for a bad level.
        let logs: Vec<_> =
            outcome.notifications.iter().filter(|(_, n)| n["method"] == "notifications/message").collect();
        assert_eq!(logs.len(), 2, "{version}: {logs:?}");
        assert!(logs.iter().all(|(line, _)| !line.contains("logging/setLevel")));
        let bad_level = answers.values().find(|a| a["error"]["message"].as_str().is_some_and(|m| m.contains("level")));
        assert_eq!(bad_level.map(|a| a["error"]["code"].clone()), Some(json!(-32602)), "{version}");
        // The tool list changed twice (blink_led offered, then withdrawn).
        let changes = outcome.notifications.iter().filter(|(_, n)| n["method"] == "notifications/tools/list_changed");
        assert_eq!(changes.count(), 2, "{version}");
        for definition in [
            "InitializeResult",
            "EmptyResult",
            "ListToolsResult",
            "CallToolResult",
            "ListResourcesResult",
            "ListResourceTemplatesResult",
            "ReadResourceResult",
            "ListPromptsResult",
            "GetPromptResult",
            schema.generic_error_response(),
            schema.generic_result_response(),
        ] {
            assert!(checked.contains(definition), "{version}: nothing was checked against {definition}");
        }
        for definition in ["LoggingMessageNotification", "ProgressNotification", "ToolListChangedNotification"] {
            assert!(checked.contains(definition), "{version}: nothing was checked against {definition}");
        }
        if *version != "2024-11-05" {
            assert!(checked.contains("CompleteResult"), "{version}");
        }
        if *version >= "2025-06-18" {
            // The engine asked for the confirmation itself, and the tool was answered after it.
            let asks: Vec<_> =
                outcome.notifications.iter().filter(|(_, n)| n["method"] == "elicitation/create").collect();
            assert_eq!(asks.len(), 1, "{version}");
            assert_eq!(asks[0].1["id"], 1);
            assert!(checked.contains("ElicitRequest"), "{version}");
            let reset = answers.values().filter(|a| a["result"]["content"][0]["text"] == "factory settings restored");
            assert_eq!(reset.count(), 1, "{version}");
        }
        if *version >= "2025-06-18" {
            check_structured_content(&schema, &session, answers);
        }
    }
}

#[test]
fn modern_exchanges_match_the_2026_schema() {
    let schema = Schema::load(MODERN);
    let session = modern_session();
    let outcome = run_and_validate(&schema, &session);
    let (checked, answers) = (&outcome.checked, &outcome.answers);
    check_surface(MODERN, &outcome);
    // Log messages only for the request that asked for them; -32602 for a bad level.
    let logs: Vec<_> = outcome.notifications.iter().filter(|(_, n)| n["method"] == "notifications/message").collect();
    assert_eq!(logs.len(), 1, "{logs:?}");
    assert!(logs[0].0.contains("\"id\":800"));
    assert_eq!(answers[&801]["error"]["code"], -32602);
    // The listen stream: acknowledged with what the device honours (tools), told of the change,
    // answered at the end of input with its subscription id.
    let listen = caused(&outcome, "\"id\":802");
    assert_eq!(listen.len(), 1);
    assert_eq!(listen[0]["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(listen[0]["params"]["notifications"], json!({"toolsListChanged": true}));
    let changed = caused(&outcome, "\"enabled\":true");
    let tagged: Vec<_> = changed.iter().filter(|n| n["method"] == "notifications/tools/list_changed").collect();
    assert_eq!(tagged.len(), 1, "{changed:?}");
    assert_eq!(tagged[0]["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 802);
    assert_eq!(answers[&802]["result"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 802);
    // The factory reset: input required first, done on the retry with the confirmation.
    let resets: Vec<_> = answers
        .values()
        .filter(|a| {
            a["result"]["resultType"] == "input_required"
                || a["result"]["content"][0]["text"] == "factory settings restored"
        })
        .collect();
    assert_eq!(resets.len(), 2, "{resets:?}");
    assert_eq!(resets[0]["result"]["inputRequests"]["confirm"]["method"], "elicitation/create");
    for definition in [
        "InputRequiredResult",
        "SubscriptionsAcknowledgedNotification",
        "SubscriptionsListenResult",
        "CompleteResult",
        "LoggingMessageNotification",
        "ProgressNotification",
        "ToolListChangedNotification",
        "DiscoverResult",
        "DiscoverResultResponse",
        "ListToolsResult",
        "ListToolsResultResponse",
        "CallToolResult",
        "CallToolResultResponse",
        "ListResourcesResultResponse",
        "ListResourceTemplatesResultResponse",
        "ReadResourceResultResponse",
        "ListPromptsResultResponse",
        "GetPromptResultResponse",
        "JSONRPCErrorResponse",
        "UnsupportedProtocolVersionError",
        "InvalidParamsError",
        "MethodNotFoundError",
    ] {
        assert!(checked.contains(definition), "nothing was checked against {definition}");
    }
    for id in [900, 901] {
        assert_eq!(answers[&id]["error"]["code"], -32022, "{}", answers[&id]);
    }
    for id in [902, 903] {
        assert_eq!(answers[&id]["error"]["code"], -32602, "{}", answers[&id]);
    }
    check_structured_content(&schema, &session, answers);
}

/// The validators reject real answers with one defect each, so the tests above can fail.
#[test]
fn validators_catch_defects() {
    let modern = Schema::load(MODERN);
    let mut memory = Memory::new();
    let mut driver = Driver::new(&mut memory, Clock::DEFAULT);
    let list = driver.request(&modern_request(1, "tools/list", None));
    assert!(modern.check_message(Some("tools/list"), &list).is_ok());
    let unsupported = driver.request(
        &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": {
            META_VERSION: "1900-01-01", META_CAPABILITIES: {}}}})
        .to_string(),
    );
    assert!(modern.check_message(Some("tools/list"), &unsupported).is_ok());
    let legacy = Schema::load("2024-11-05");
    let init = driver.request(&initialize_request(3, "2024-11-05"));
    assert!(legacy.check_message(Some("initialize"), &init).is_ok());

    type Defect = fn(&mut Value);
    let defects: [(&Schema, &str, &Value, Defect); 7] = [
        (&modern, "tools/list", &list, |m| drop(m["result"].as_object_mut().unwrap().remove("resultType"))),
        (&modern, "tools/list", &list, |m| m["result"]["cacheScope"] = json!("everyone")),
        (&modern, "tools/list", &list, |m| m["result"]["tools"][0]["inputSchema"] = json!("object")),
        (&modern, "tools/list", &list, |m| m["jsonrpc"] = json!("1.0")),
        (&modern, "tools/list", &unsupported, |m| {
            drop(m["error"]["data"].as_object_mut().unwrap().remove("supported"))
        }),
        (&legacy, "initialize", &init, |m| drop(m["result"].as_object_mut().unwrap().remove("serverInfo"))),
        (&legacy, "initialize", &init, |m| m["id"] = Value::Null),
    ];
    for (schema, method, message, defect) in defects {
        let mut broken = message.clone();
        defect(&mut broken);
        assert!(schema.check_message(Some(method), &broken).is_err(), "{}: accepted {broken}", schema.version());
    }
}

/// Definitions are found under `definitions` (draft-07) or `$defs` (2020-12).
#[test]
fn definitions_are_found_in_every_version() {
    for version in VERSIONS {
        let schema = Schema::load(version);
        let expected = if version >= "2025-11-25" { "$defs" } else { "definitions" };
        assert_eq!(schema.defs_key(), expected, "{version}");
        assert_eq!(schema.result_definition("tools/call"), Some("CallToolResult"));
        assert_eq!(schema.result_definition("server/discover").is_some(), version == MODERN, "{version}");
        assert_eq!(schema.result_definition("ping").is_some(), version != MODERN, "{version}");
    }
    let modern = Schema::load(MODERN);
    let names = |code| modern.specific_error_definitions(code).into_iter().map(|c| c.definition).collect::<Vec<_>>();
    assert_eq!(names(-32022), ["UnsupportedProtocolVersionError"]);
    assert_eq!(names(-32602), ["InvalidParamsError"]);
    assert!(Schema::load("2024-11-05").specific_error_definitions(-32602).is_empty());
}
