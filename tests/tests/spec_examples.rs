//! The 2026-07-28 example messages of the specification (`spec/2026-07-28/examples/<Definition>/`)
//! as test vectors: the core's JSON scanner reads each one as serde_json does, each one matches the
//! definition it illustrates, and the example requests are answered as the spec says.

use std::path::{Path, PathBuf};

use mcp_sansio::json::{self, Kind};
use mcp_sansio_tests::driver::{Clock, Driver, Memory, parse_json_line};
use mcp_sansio_tests::schema::{MODERN, Schema, spec_dir};
use serde_json::Value;

/// Every example file: (definition directory, path).
fn examples() -> Vec<(String, PathBuf)> {
    let root = spec_dir().join(MODERN).join("examples");
    let mut found = Vec::new();
    let dirs = std::fs::read_dir(&root).unwrap_or_else(|e| panic!("cannot list {}: {e}", root.display()));
    for dir in dirs {
        let dir = dir.expect("a directory entry").path();
        let definition = dir.file_name().expect("a name").to_string_lossy().into_owned();
        for file in std::fs::read_dir(&dir).expect("an example directory") {
            let file = file.expect("a directory entry").path();
            if file.extension().is_some_and(|e| e == "json") {
                found.push((definition.clone(), file));
            }
        }
    }
    found.sort();
    assert!(found.len() >= 100, "only {} example files under {}", found.len(), root.display());
    found
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// Converts a value of the core's scanner into a serde_json value (numbers through their integer
/// or float reading, strings through the scanner's own unescaping).
fn to_serde(value: json::Value<'_>) -> Value {
    match value.kind() {
        Kind::Null => Value::Null,
        Kind::True => Value::Bool(true),
        Kind::False => Value::Bool(false),
        Kind::String => Value::String(value.as_str().expect("a string").chars().collect()),
        Kind::Number => {
            if let Some(n) = value.as_i64() {
                Value::from(n)
            } else if let Some(n) = value.as_u64() {
                Value::from(n)
            } else {
                let f = value.as_f64().unwrap_or_else(|| panic!("{value} is out of f64 range"));
                Value::Number(serde_json::Number::from_f64(f).expect("a finite number"))
            }
        }
        Kind::Array => Value::Array(value.elements().map(to_serde).collect()),
        Kind::Object => {
            Value::Object(value.members().map(|(key, value)| (key.chars().collect(), to_serde(value))).collect())
        }
    }
}

/// Removes the whitespace between tokens, keeping everything else (member order, escapes) as written.
fn one_line(pretty: &str) -> String {
    let mut out = String::with_capacity(pretty.len());
    let (mut in_string, mut escaped) = (false, false);
    for c in pretty.chars() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
        } else if c == '"' {
            in_string = true;
            out.push(c);
        } else if !matches!(c, ' ' | '\t' | '\n' | '\r') {
            out.push(c);
        }
    }
    out
}

#[test]
fn the_core_scanner_reads_every_example_as_serde_json_does() {
    for (_, path) in examples() {
        let text = read(&path);
        let theirs: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let ours = json::parse(text.as_bytes(), json::MAX_DEPTH_LIMIT)
            .unwrap_or_else(|e| panic!("{}: the core scanner rejects it: {e}", path.display()));
        assert_eq!(to_serde(ours), theirs, "{}: the core scanner reads it differently", path.display());
        // The same on one line, as it travels on stdio.
        let line = one_line(&text);
        assert!(!line.contains('\n'), "{}", path.display());
        let ours = json::parse(line.as_bytes(), json::MAX_DEPTH_LIMIT).expect("the one-line form");
        assert_eq!(to_serde(ours), theirs, "{}: the one-line form differs", path.display());
    }
}

/// Each example matches the definition it is filed under (a check of the schema helpers as much
/// as of the examples: a valid message must pass).
#[test]
fn every_example_matches_its_definition() {
    let schema = Schema::load(MODERN);
    let mut failures = Vec::new();
    for (definition, path) in examples() {
        assert!(schema.definition(&definition).is_some(), "{}: no definition {definition}", path.display());
        let example: Value = serde_json::from_str(&read(&path)).expect("JSON");
        if let Err(errors) = schema.validate(&definition, &example) {
            failures.push(format!("{}: not a valid {definition}:\n    {errors}", path.display()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// What the device must answer to an example request.
#[derive(Debug, PartialEq)]
enum Expect {
    /// A result (validated against the method's result definitions).
    Result,
    /// An error with this code.
    Error(i64),
}

fn expectation(request: &Value) -> Expect {
    let method = request["method"].as_str().expect("a method");
    match method {
        "server/discover" | "tools/list" | "resources/list" | "resources/templates/list" | "prompts/list" => {
            Expect::Result
        }
        // The examples name a tool, a prompt and a file the device does not have: -32602 (unknown
        // tool, unknown prompt, and the 2026-07-28 resource-not-found).
        "tools/call" | "prompts/get" | "resources/read" => Expect::Error(-32602),
        // The example completes a prompt the device does not have; a listen stream is answered when
        // it ends.
        "completion/complete" => Expect::Error(-32602),
        "subscriptions/listen" => Expect::Result,
        other => panic!("no expectation for an example {other} request"),
    }
}

#[test]
fn example_requests_are_answered_as_the_spec_says() {
    let schema = Schema::load(MODERN);
    let mut fed = Vec::new();
    for (definition, path) in examples() {
        if !definition.ends_with("Request") {
            continue; // `…RequestParams` hold params, not messages.
        }
        let text = read(&path);
        let request: Value = serde_json::from_str(&text).expect("JSON");
        if request.get("jsonrpc").is_none() {
            // `sampling/createMessage`, `elicitation/create`, `roots/list`: input requests a server
            // embeds in an InputRequiredResult, never sent to a server.
            assert!(
                ["sampling/createMessage", "elicitation/create", "roots/list"]
                    .contains(&request["method"].as_str().unwrap()),
                "{}: an unexpected example without \"jsonrpc\"",
                path.display()
            );
            continue;
        }
        let method = request["method"].as_str().expect("a method").to_owned();
        let mut memory = Memory::new();
        let mut driver = Driver::new(&mut memory, Clock::DEFAULT);
        let mut out = driver.send_line(&one_line(&text));
        if method == "subscriptions/listen" {
            // A listen stream opens with its acknowledgement (of what the device honours: tool list
            // changes and resource subscriptions) and is answered when it ends: here, at the end of
            // input.
            assert_eq!(out.len(), 1, "{}: expected the acknowledgement, got {out:?}", path.display());
            let ack = parse_json_line(&out[0]);
            assert_eq!(ack["method"], "notifications/subscriptions/acknowledged", "{}", path.display());
            assert_eq!(ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], request["id"]);
            assert_eq!(
                ack["params"]["notifications"],
                serde_json::json!({"toolsListChanged": true, "resourceSubscriptions": ["file:///project/config.json"]})
            );
            schema
                .validate("SubscriptionsAcknowledgedNotification", &ack)
                .unwrap_or_else(|errors| panic!("{}: {errors}", path.display()));
            out = mcp_sansio_tests::driver::split_lines(&driver.finish());
        } else {
            assert!(driver.finish().is_empty());
        }
        assert_eq!(out.len(), 1, "{}: expected one answer, got {out:?}", path.display());
        let answer = parse_json_line(&out[0]);
        assert_eq!(answer["jsonrpc"], "2.0", "{}: {answer}", path.display());
        assert_eq!(answer["id"], request["id"], "{}: the id is not echoed: {answer}", path.display());
        let checks = schema
            .check_message(Some(&method), &answer)
            .unwrap_or_else(|report| panic!("{}: {report}", path.display()));
        match expectation(&request) {
            Expect::Result => {
                assert!(answer.get("result").is_some(), "{}: expected a result: {answer}", path.display());
                assert_eq!(answer["result"]["resultType"], "complete", "{}", path.display());
            }
            Expect::Error(code) => {
                assert_eq!(answer["error"]["code"], code, "{}: {answer}", path.display());
                // The specific error definition of the code was among those checked.
                assert!(checks.len() >= 3, "{}: only {checks:?}", path.display());
            }
        }
        match method.as_str() {
            "tools/call" | "prompts/get" => {
                let name = request["params"]["name"].as_str().unwrap();
                let message = answer["error"]["message"].as_str().unwrap();
                assert!(message.contains(name), "{}: the error does not name {name}: {message}", path.display());
            }
            "resources/read" => {
                assert_eq!(answer["error"]["data"]["uri"], request["params"]["uri"], "{}", path.display())
            }
            _ => {}
        }
        fed.push(method);
    }
    fed.sort();
    assert_eq!(
        fed,
        [
            "completion/complete",
            "prompts/get",
            "prompts/list",
            "resources/list",
            "resources/read",
            "resources/templates/list",
            "server/discover",
            "subscriptions/listen",
            "tools/call",
            "tools/list"
        ],
        "the example requests fed"
    );
}

/// Examples of `…RequestParams` become requests once wrapped in an envelope: those of methods the
/// device serves get schema-valid answers too.
#[test]
fn example_params_make_answerable_requests() {
    let schema = Schema::load(MODERN);
    let mut fed = 0;
    for (definition, path) in examples() {
        let method = match definition.as_str() {
            "CallToolRequestParams" => "tools/call",
            "GetPromptRequestParams" => "prompts/get",
            "PaginatedRequestParams" => "tools/list",
            _ => continue,
        };
        let params: Value = serde_json::from_str(&read(&path)).expect("JSON");
        let mut request = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        if request["params"].get("_meta").and_then(|m| m.get(mcp_sansio_tests::META_VERSION)).is_none() {
            request["params"]["_meta"] = serde_json::json!({
                mcp_sansio_tests::META_VERSION: MODERN,
                mcp_sansio_tests::META_CAPABILITIES: {},
            });
        }
        let mut memory = Memory::new();
        let mut driver = Driver::new(&mut memory, Clock::DEFAULT);
        let answer = driver.request(&request.to_string());
        schema.check_message(Some(method), &answer).unwrap_or_else(|report| panic!("{}: {report}", path.display()));
        // Unknown tools and prompts, and a cursor this server never handed out: all -32602.
        assert_eq!(answer["error"]["code"], -32602, "{}: {answer}", path.display());
        fed += 1;
    }
    assert!(fed >= 4, "only {fed} params examples");
}
