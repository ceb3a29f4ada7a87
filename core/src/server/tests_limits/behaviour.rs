//! docs/protocol.md "Protocol behaviour": each input, its exact answer, and the engine serving afterwards.

use std::string::String;
use std::vec::Vec;

use serde_json::{Value as Json, json};

use super::support::*;
use crate::endpoint::{Framing, Route, StreamId};
use crate::jsonrpc::code;
use crate::server::{Buffers, Config, Engine, Received};
use crate::time::Instant;

#[test]
fn invalid_json_and_invalid_utf8_are_parse_errors_without_an_id() {
    let mut h = Harness::new();
    for line in [
        &b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\""[..],
        b"not json",
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"p\xffng\"}",
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\x00",
    ] {
        let out = h.feed(&[line, b"\n"].concat());
        assert_eq!(out.len(), 1, "{out:?}");
        assert_eq!(error_code(&out[0]), i64::from(code::PARSE_ERROR), "{}", String::from_utf8_lossy(line));
        assert!(out[0].get("id").is_none(), "{}", out[0]);
        h.assert_serving();
    }
}

#[test]
fn valid_json_that_is_not_json_rpc_is_an_invalid_request_with_its_id_when_readable() {
    let mut h = Harness::new();
    for (line, id) in [
        (r#"{"jsonrpc":"1.0","id":5,"method":"ping"}"#, json!(5)),
        (r#"{"id":"s","method":"ping"}"#, json!("s")),
        (r#"{"jsonrpc":"2.0","id":6,"method":7}"#, json!(6)),
        (r#"{"jsonrpc":"2.0","id":7}"#, json!(7)),
        (r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#, json!(null)),
        (r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#, json!(null)),
        ("42", json!(null)),
        (r#""ping""#, json!(null)),
    ] {
        h.expect_error(line, code::INVALID_REQUEST, id);
        h.assert_serving();
    }
}

#[test]
fn batches_outside_2025_03_26_are_invalid_requests() {
    let batch = r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]"#;
    for version in [None, Some("2024-11-05"), Some("2025-06-18"), Some("2025-11-25")] {
        let mut h = Harness::new();
        if let Some(version) = version {
            h.initialize(version);
        }
        let answer = h.expect_error(batch, code::INVALID_REQUEST, json!(null));
        assert!(answer["error"]["message"].as_str().unwrap().contains("2025-03-26"), "{answer}");
        h.assert_serving();
    }
}

#[test]
fn a_2025_03_26_batch_answers_each_element_as_its_own_message() {
    let mut h = Harness::new();
    h.initialize("2025-03-26");
    let batch = std::format!(
        "[{},{},{},{},{}]\n",
        r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}"#,
        modern(2, "tools/list", ""),
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"b"}}}"#,
        r#"{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{}}}"#,
    );
    let out = h.feed(batch.as_bytes());
    assert_eq!(out.len(), 4, "{out:?}");
    assert_eq!(out[0], json!({"jsonrpc":"2.0","id":1,"result":{}}));
    // A modern (`_meta`) request inside a batch: refused on its own, with its id.
    assert_eq!(out[1]["id"], 2);
    assert_eq!(error_code(&out[1]), i64::from(code::INVALID_REQUEST));
    assert!(out[1]["error"]["message"].as_str().unwrap().contains("2026-07-28"), "{}", out[1]);
    assert_eq!(out[2]["result"]["content"][0]["text"], "b");
    // `initialize` inside a batch: refused, the session stays.
    assert_eq!(out[3]["id"], 4);
    assert_eq!(error_code(&out[3]), i64::from(code::INVALID_REQUEST));
    let empty = h.expect_error("[]", code::INVALID_REQUEST, json!(null));
    assert!(empty["error"]["message"].as_str().unwrap().contains("empty"), "{empty}");
    h.assert_serving();
    assert_eq!(h.server.session_version().map(|v| v.as_str()), Some("2025-03-26"));
}

#[test]
fn a_batch_given_to_handle_message_is_an_invalid_request() {
    let mut app = App::default();
    let mut config = Config::new("b", "1");
    config.limits.max_response = 512;
    let mut engine: Engine<'static> =
        Engine::new(config, Buffers { rx: std::vec![0u8; 1024].leak(), tx: std::vec![0u8; 4096].leak() });
    let init =
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{}}}"#;
    // One HTTP body per stream, each ending with its answer.
    let route = |stream| Route::new(StreamId(stream), Framing::Body).ending_with_response();
    assert_eq!(engine.handle_message(Instant::ZERO, route(1), init.as_bytes(), &mut app), Ok(Received::Request));
    let batch = br#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#;
    assert_eq!(engine.handle_message(Instant::ZERO, route(2), batch, &mut app), Ok(Received::Invalid));
    let ping = br#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#;
    assert_eq!(engine.handle_message(Instant::ZERO, route(3), ping, &mut app), Ok(Received::Request));
    let mut out = Vec::new();
    while let Some(t) = engine.poll_transmit() {
        out.push(serde_json::from_slice::<Json>(t.bytes).unwrap());
        let n = t.bytes.len();
        engine.transmit_done(Instant::ZERO, n, &mut app);
    }
    assert_eq!(out.len(), 3);
    assert_eq!(error_code(&out[1]), i64::from(code::INVALID_REQUEST));
    assert!(out[1].get("id").is_none());
    assert!(out[1]["error"]["message"].as_str().unwrap().contains("batches are not accepted"), "{}", out[1]);
    assert_eq!(out[2], json!({"jsonrpc":"2.0","id":2,"result":{}}), "still serving");
}

#[test]
fn unknown_methods_and_methods_absent_from_the_version_are_not_found() {
    let mut h = Harness::new();
    for method in ["no/such/method", "ping", "initialize", "logging/setLevel", "resources/subscribe"] {
        h.expect_error(&modern(1, method, ""), code::METHOD_NOT_FOUND, json!(1));
        h.assert_serving();
    }
    h.initialize("2025-11-25");
    for method in ["no/such/method", "server/discover"] {
        let answer = h.expect_error(&legacy(2, method, ""), code::METHOD_NOT_FOUND, json!(2));
        assert!(answer["error"]["message"].as_str().unwrap().contains(method), "{answer}");
        h.assert_serving();
    }
}

#[test]
fn a_request_without_initialize_and_without_meta_names_both_ways_in() {
    let mut h = Harness::new();
    for method in ["tools/list", "tools/call", "no/such/method"] {
        let answer = h.expect_error(&legacy(3, method, ""), code::INVALID_PARAMS, json!(3));
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(message.contains("initialize") && message.contains("_meta"), "{message}");
        h.assert_serving();
    }
}

#[test]
fn modern_meta_without_protocol_version_or_client_capabilities_is_invalid_params() {
    let mut h = Harness::new();
    for meta in [
        r#"{"io.modelcontextprotocol/clientCapabilities":{}}"#,
        r#"{"io.modelcontextprotocol/protocolVersion":5,"io.modelcontextprotocol/clientCapabilities":{}}"#,
        r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}"#,
        r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":[]}"#,
        r#"{"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"}}"#,
    ] {
        let line = std::format!(r#"{{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{{"_meta":{meta}}}}}"#);
        h.expect_error(&line, code::INVALID_PARAMS, json!(4));
        h.assert_serving();
    }
}

#[test]
fn an_unsupported_version_in_meta_is_32022_with_supported_and_requested() {
    let mut h = Harness::new();
    for version in ["2025-11-25", "1999-01-01", "x"] {
        let line = std::format!(
            r#"{{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{{"_meta":{{"io.modelcontextprotocol/protocolVersion":"{version}","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#
        );
        let answer = h.expect_error(&line, code::UNSUPPORTED_PROTOCOL_VERSION, json!(5));
        assert_eq!(code::UNSUPPORTED_PROTOCOL_VERSION, -32022);
        assert_eq!(answer["error"]["data"]["requested"], version);
        // What this request can retry with; the legacy versions need `initialize`.
        assert_eq!(answer["error"]["data"]["supported"], json!(["2026-07-28"]));
        assert_eq!(
            answer["error"]["data"]["legacy"],
            json!({"method":"initialize","versions":["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]})
        );
        h.assert_serving();
    }
}

#[test]
fn unknown_tool_or_prompt_missing_prompt_argument_and_bad_cursor_are_invalid_params_in_both_eras() {
    let cases = [
        ("tools/call", r#""name":"nope""#),
        ("tools/call", r#""name":5"#),
        ("tools/call", r#""name":"echo","arguments":[1]"#),
        ("prompts/get", r#""name":"sing""#),
        ("prompts/get", r#""name":"talk""#),
        ("prompts/get", r#""name":"talk","arguments":{"topic":3}"#),
        ("tools/list", r#""cursor":"x""#),
        ("tools/list", r#""cursor":"4""#),
        ("prompts/list", r#""cursor":7"#),
        ("resources/list", r#""cursor":"""#),
        ("resources/templates/list", r#""cursor":"-1""#),
    ];
    let mut h = Harness::new();
    for (method, params) in cases {
        h.expect_error(&modern(6, method, params), code::INVALID_PARAMS, json!(6));
        h.assert_serving();
    }
    h.initialize("2025-11-25");
    for (method, params) in cases {
        h.expect_error(&legacy(7, method, params), code::INVALID_PARAMS, json!(7));
        h.assert_serving();
    }
}

#[test]
fn a_missing_resource_is_32002_in_legacy_and_32602_with_data_uri_in_2026() {
    let mut h = Harness::new();
    let modern_answer =
        h.expect_error(&modern(8, "resources/read", r#""uri":"test://missing""#), code::INVALID_PARAMS, json!(8));
    assert_eq!(modern_answer["error"]["data"]["uri"], "test://missing");
    h.assert_serving();
    h.initialize("2025-06-18");
    assert_eq!(code::RESOURCE_NOT_FOUND, -32002);
    let legacy_answer =
        h.expect_error(&legacy(9, "resources/read", r#""uri":"test://missing""#), code::RESOURCE_NOT_FOUND, json!(9));
    assert_eq!(legacy_answer["error"]["data"]["uri"], "test://missing");
    h.assert_serving();
}

#[test]
fn a_tool_failure_is_a_result_with_is_error() {
    let mut h = Harness::new();
    let failed = h.request(&modern(10, "tools/call", r#""name":"fail""#));
    assert!(failed.get("error").is_none(), "{failed}");
    assert_eq!(failed["result"]["isError"], true);
    assert_eq!(failed["result"]["content"][0]["text"], "it failed");
    h.assert_serving();
    h.initialize("2025-11-25");
    let failed = h.request(&legacy(11, "tools/call", r#""name":"fail""#));
    assert_eq!(failed["result"]["isError"], true);
    h.assert_serving();
}
