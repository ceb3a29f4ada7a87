//! Deterministic engine tests of error answers and tool replies: spec errors, rejections and their
//! events, structured results written as JSON text, answers that do not fit the transmit window.
//! The scripted handler and harness are those of [`tests`](super::tests).

use core::fmt;
use std::string::String;
use std::vec::Vec;

use serde_json::{Value as Json, json};

use super::tests::{Harness, error_code, format_line, legacy, modern};
use super::*;
use crate::jsonrpc::code;

#[test]
fn tool_errors_follow_the_spec() {
    let mut h = Harness::new();
    let unknown = h.request(&modern(1, "tools/call", r#""name":"nope""#));
    assert_eq!(error_code(&unknown), code::INVALID_PARAMS as i64);
    assert!(unknown["error"]["message"].as_str().unwrap().contains("nope"));
    let bad_args = h.request(&modern(2, "tools/call", r#""name":"echo","arguments":[1]"#));
    assert_eq!(error_code(&bad_args), code::INVALID_PARAMS as i64);
    let failed = h.request(&modern(3, "tools/call", r#""name":"echo","arguments":{}"#));
    assert_eq!(failed["result"]["isError"], true);
    assert_eq!(failed["result"]["content"][0]["text"], "missing text");
    let dropped = h.request(&modern(4, "tools/call", r#""name":"forget""#));
    assert_eq!(error_code(&dropped), code::INTERNAL_ERROR as i64);
    let escaped = h.request(&modern(5, "tools/call", r#""name":"\u0065cho","arguments":{"text":"e"}"#));
    assert_eq!(escaped["result"]["content"][0]["text"], "e");
}

#[test]
fn finish_text_answers_as_a_text_block_then_finish_does() {
    let mut h = Harness::new();
    let chained = h.request(&modern(1, "tools/call", r#""name":"echo","arguments":{"text":"done"}"#));
    for argument in ["finish_text", "finish_text_fmt"] {
        let one_call =
            h.request(&modern(1, "tools/call", &std::format!(r#""name":"echo","arguments":{{"{argument}":true}}"#)));
        assert_eq!(one_call["result"]["content"], json!([{"type": "text", "text": "done"}]), "{argument}");
        assert_eq!(one_call["result"].get("isError"), None, "{argument}");
        assert_eq!(one_call, chained, "{argument}");
    }
}

#[test]
fn a_rejection_is_reported_with_its_fixed_message_or_its_code_name() {
    let mut h = Harness::new();
    h.initialize("2025-11-25");
    let out = h.request(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":5}"#);
    assert_eq!(out["error"]["message"], "Invalid params: \"params\" must be an object");
    let out = h.request(&legacy(2, "tools/call", r#""name":"nope""#));
    assert_eq!(out["error"]["message"], "Unknown tool: nope");
    let events = &h.server.handler().events;
    let rejected: Vec<&String> = events.iter().filter(|e| e.starts_with("Rejected")).collect();
    assert_eq!(
        rejected,
        [
            r#"Rejected { code: -32602, reason: "\"params\" must be an object" }"#,
            r#"Rejected { code: -32602, reason: "Invalid params" }"#,
        ]
    );
    let names = [
        (code::PARSE_ERROR, "Parse error"),
        (code::INVALID_REQUEST, "Invalid Request"),
        (code::METHOD_NOT_FOUND, "Method not found"),
        (code::INVALID_PARAMS, "Invalid params"),
        (code::INTERNAL_ERROR, "Internal error"),
        (code::RESOURCE_NOT_FOUND, "Resource not found"),
        (code::HEADER_MISMATCH, "Header mismatch"),
        (code::MISSING_CLIENT_CAPABILITY, "Missing client capability"),
        (code::UNSUPPORTED_PROTOCOL_VERSION, "Unsupported protocol version"),
        (-32000, "Server error"),
    ];
    for (code, name) in names {
        assert_eq!(code::name(code), name, "{code}");
    }
    // A named message on the wire: the code's name, then the detail.
    let out = h.request(r#"{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"cursor":"x"}}"#);
    assert_eq!(out["error"]["message"], "Invalid params: invalid cursor");
    let out = h.request(r#"[]"#);
    assert_eq!(
        out["error"]["message"],
        "Invalid Request: JSON-RPC batches are only accepted in protocol version 2025-03-26"
    );
}

#[test]
fn structured_results_written_as_json_text_are_checked_for_their_era() {
    // One measure call per case, answered with `structured_fmt`.
    let answer = |version: &str, json: fmt::Arguments<'_>| -> Json {
        let mut h = Harness::new();
        let line = if version == "2026-07-28" {
            modern(7, "tools/call", r#""name":"measure""#)
        } else {
            h.initialize(version);
            legacy(7, "tools/call", r#""name":"measure""#)
        };
        assert!(h.feed(format_line(&line).as_bytes()).is_empty());
        let deferred = h.server.handler_mut().deferred.pop().unwrap();
        h.server.reply_tool(&deferred).unwrap().structured_fmt(json).finish();
        h.feed(b"").remove(0)
    };
    for version in ["2025-06-18", "2026-07-28"] {
        let out = answer(version, format_args!("{{\"value\":{}}}", 1.5));
        assert_eq!(out["result"]["structuredContent"], json!({"value": 1.5}), "{version}");
        assert_eq!(out["result"]["content"][0], json!({"type":"text","text":"{\"value\":1.5}"}), "{version}");
    }
    // Before 2025-06-18: only the text block.
    let out = answer("2025-03-26", format_args!("{{\"value\":{}}}", 2));
    assert!(out["result"].get("structuredContent").is_none());
    assert_eq!(out["result"]["content"][0]["text"], "{\"value\":2}");
    // A `Display` that writes JSON when checked and something else when written: the reply is
    // dropped as if it did not fit, never sent as broken JSON.
    struct Fickle(std::cell::Cell<bool>);
    impl fmt::Display for Fickle {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            let first = self.0.replace(false);
            f.write_str(if first { "{}" } else { "{" })
        }
    }
    let fickle = Fickle(std::cell::Cell::new(true));
    let out = answer("2026-07-28", format_args!("{fickle}"));
    assert_eq!(error_code(&out), code::INTERNAL_ERROR as i64);
    assert!(out["error"]["message"].as_str().unwrap().contains("does not fit"), "{out}");
    // Any JSON value from 2026-07-28, an object before; never anything but JSON.
    let out = answer("2026-07-28", format_args!("[1,\n2]"));
    assert_eq!(out["result"]["structuredContent"], json!([1, 2]));
    for (version, text, expected) in [
        ("2025-11-25", "[1,2]", "Internal error: structured content is not a JSON object"),
        ("2024-11-05", "7", "Internal error: structured content is not a JSON object"),
        ("2026-07-28", "{\"value\":}", "Internal error: structured content is not JSON"),
        ("2025-06-18", "{} {}", "Internal error: structured content is not a JSON object"),
    ] {
        let out = answer(version, format_args!("{text}"));
        assert_eq!(error_code(&out), code::INTERNAL_ERROR as i64, "{version} {text}");
        assert_eq!(out["error"]["message"], expected, "{version} {text}");
        assert_eq!(out["id"], 7);
    }
}

#[test]
fn oversized_results_become_errors() {
    let mut h = Harness::with(8192, 300, Limits::default());
    let text = "y".repeat(400);
    let answer = h.request(&modern(1, "tools/call", &std::format!(r#""name":"echo","arguments":{{"text":"{text}"}}"#)));
    assert_eq!(error_code(&answer), code::INTERNAL_ERROR as i64);
    assert_eq!(answer["id"], 1);
}

#[test]
fn errors_too_large_for_the_window_keep_the_request_id() {
    // Found by the `engine` fuzz target: an error whose message or data did not fit the transmit
    // window was replaced by an error without the id, so the request was never answered.
    let mut h = Harness::with(4096, 256, Limits::default());
    let name = "x".repeat(300);
    let unknown = h.request(&modern(1, "tools/call", &std::format!(r#""name":"{name}""#)));
    assert_eq!(error_code(&unknown), code::INVALID_PARAMS as i64);
    assert_eq!(unknown["id"], 1);
    assert_eq!(unknown["error"]["message"], "error response too large");
    let unsupported = h.request(&std::format!(
        r#"{{"jsonrpc":"2.0","id":"v","method":"tools/list","params":{{"_meta":{{"io.modelcontextprotocol/protocolVersion":"{name}","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#
    ));
    assert_eq!(error_code(&unsupported), code::UNSUPPORTED_PROTOCOL_VERSION as i64);
    assert_eq!(unsupported["id"], "v");
    // An id too long for even the short error is still dropped rather than overflowing.
    let long_id = "i".repeat(300);
    let answer = h.request(&std::format!(r#"{{"jsonrpc":"2.0","id":"{long_id}","method":"no/such"}}"#));
    assert_eq!(error_code(&answer), code::INVALID_PARAMS as i64);
    assert!(answer.get("id").is_none());
}

#[test]
fn a_result_that_fills_the_window_but_its_newline_is_still_answered() {
    // Found by the `engine` fuzz target: a result (or error) that fit its window exactly, leaving no
    // room for the newline, was dropped without any answer. Try every length around the window size.
    for window in [256, 300, 301] {
        let mut h = Harness::with(8192, window, Limits::default());
        for (id, len) in (0..window as u32).enumerate() {
            let text = "t".repeat(len as usize);
            let answer = h.request(&modern(
                id as u32,
                "tools/call",
                &std::format!(r#""name":"echo","arguments":{{"text":"{text}"}}"#),
            ));
            assert_eq!(answer["id"], id, "window {window}, text {len}: {answer}");
        }
    }
    // Errors with a long message keep their id too (here `data.uri` and the message hold the URI),
    // and their code: only the message is shortened (`jsonrpc::write_error`).
    let mut h = Harness::with(8192, 256, Limits::default());
    let uri = "u".repeat(300);
    let missing = h.request(&modern(1, "resources/read", &std::format!(r#""uri":"{uri}""#)));
    assert_eq!(missing["id"], 1);
    assert_eq!(error_code(&missing), code::INVALID_PARAMS as i64);
    assert_eq!(missing["error"]["message"], "error response too large");
    assert!(missing["error"].get("data").is_none());
}

#[test]
fn a_structured_result_whose_head_did_not_fit_is_not_sent_broken() {
    // An id too long for the transmit window: the result's head overflows before the structured
    // result is written, and checking the JSON text must not clear that overflow (the rest of the
    // answer would then be sent without its head).
    let mut h = Harness::with(4096, 300, Limits::default());
    let id = "i".repeat(280);
    let line = std::format!(
        r#"{{"jsonrpc":"2.0","id":"{id}","method":"tools/call","params":{{"name":"echo","arguments":{{"structured":true}},"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#
    );
    // `feed` parses every line it drains as JSON: a broken answer fails there.
    let out = h.feed(format_line(&line).as_bytes());
    assert_eq!(out.len(), 1);
    assert_eq!(error_code(&out[0]), code::INTERNAL_ERROR as i64, "{}", out[0]);
    // With room, the same call is answered.
    let out = h.request(&modern(1, "tools/call", r#""name":"echo","arguments":{"structured":true}"#));
    assert_eq!(out["result"]["structuredContent"], json!({"v": 1}));
}

#[test]
fn a_list_whose_head_did_not_fit_is_not_sent_broken() {
    // The same for a list: measuring the page's tail must not clear the head's overflow.
    let mut h = Harness::with(4096, 300, Limits::default());
    let id = "i".repeat(280);
    let line = std::format!(
        r#"{{"jsonrpc":"2.0","id":"{id}","method":"tools/list","params":{{"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#
    );
    // `feed` parses every line it drains as JSON: a broken answer fails there.
    let out = h.feed(format_line(&line).as_bytes());
    assert_eq!(out.len(), 1);
    assert_eq!(error_code(&out[0]), code::INTERNAL_ERROR as i64, "{}", out[0]);
}

#[test]
fn typed_arguments_that_do_not_match_are_answered_as_the_version_prescribes() {
    static MOVE: [Tool<'static>; 1] = [Tool::new(
        "move",
        "Moves an axis",
        r#"{"type":"object","properties":{"axis":{"type":"string"},"steps":{"type":"integer"}},"required":["axis","steps"]}"#,
    )];
    #[derive(serde::Deserialize)]
    struct Move<'a> {
        axis: &'a str,
        steps: i32,
    }
    struct Typed;
    impl Handler for Typed {
        const TOOLS: &'static [Tool<'static>] = &MOVE;
        fn call_tool(&mut self, call: ToolCall<'_>, reply: ToolReply<'_>) {
            match call.arguments::<Move<'_>>() {
                Ok(m) => reply.text_fmt(format_args!("moved {} by {}", m.axis, m.steps)).finish(),
                Err(error) => reply.invalid_arguments(&error),
            }
        }
    }
    let exchange = |version: &str, arguments: &str| -> Json {
        call_in(Typed, version, &std::format!(r#""name":"move","arguments":{arguments}"#))
    };
    for version in ["2025-06-18", "2025-11-25", "2026-07-28"] {
        let ok = exchange(version, r#"{"axis":"x","steps":-3}"#);
        assert_eq!(ok["result"]["content"][0]["text"], "moved x by -3", "{version}");
        let bad = exchange(version, r#"{"axis":"x","steps":"three"}"#);
        let missing = exchange(version, r#"{"steps":1}"#);
        if version == "2025-06-18" {
            assert_eq!(error_code(&bad), code::INVALID_PARAMS as i64);
            assert_eq!(
                bad["error"]["message"],
                "Invalid arguments: steps: invalid type: string \"three\", expected i32"
            );
            assert_eq!(error_code(&missing), code::INVALID_PARAMS as i64);
        } else {
            assert_eq!(bad["result"]["isError"], true, "{version}: {bad}");
            assert_eq!(
                bad["result"]["content"][0]["text"],
                "Invalid arguments: steps: invalid type: string \"three\", expected i32"
            );
            assert_eq!(missing["result"]["content"][0]["text"], "Invalid arguments: missing field `axis`");
        }
    }
}

/// `tools/call` with `params` (without `_meta`) on a new server over `handler`, in `version` (a
/// legacy session is opened first); the answer.
fn call_in<H: Handler>(handler: H, version: &str, params: &str) -> Json {
    use crate::connection::Connection as _;
    let (rx, tx) = (std::vec![0u8; 4096].leak(), std::vec![0u8; 4096].leak());
    let mut server: Server<'static, H, 2> = Server::new(handler, Config::new("t", "1"), Buffers { rx, tx });
    let mut lines = Vec::new();
    if version != "2026-07-28" {
        lines.push(std::format!(
            r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"{version}","capabilities":{{}},"clientInfo":{{"name":"c","version":"1"}}}}}}"#
        ));
        lines.push(String::from(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#));
        lines.push(legacy(1, "tools/call", params));
    } else {
        lines.push(super::tests::modern(1, "tools/call", params));
    }
    let mut out = Vec::new();
    for line in lines {
        let line = line + "\n";
        assert_eq!(server.handle_input(crate::time::Instant::ZERO, line.as_bytes()), line.len());
        while let Some(transmit) = server.poll_transmit() {
            out.extend_from_slice(transmit);
            let n = transmit.len();
            server.transmit_done(crate::time::Instant::ZERO, n);
        }
    }
    let last = out.split(|&b| b == b'\n').rfind(|l| !l.is_empty()).unwrap().to_vec();
    serde_json::from_slice(&last).unwrap()
}

#[test]
fn a_tool_set_dispatches_each_tool_to_its_function_and_sends_what_it_returns() {
    #[derive(Default)]
    struct Board {
        position: i32,
    }
    #[derive(serde::Deserialize)]
    struct Move {
        steps: i32,
    }
    #[derive(serde::Serialize)]
    struct Position {
        position: i32,
    }
    const OBJECT: &str = r#"{"type":"object"}"#;
    const TOOLS: ToolSet<Board, 4> = ToolSet::new([
        (Tool::new("move", "Moves", OBJECT).with_output_schema(OBJECT), |board, call, reply| {
            call.run(reply, |m: Move| {
                board.position += m.steps;
                Structured(Position { position: board.position })
            })
        }),
        (Tool::new("home", "Homes", OBJECT), |board, _call, reply| {
            board.position = 0;
            reply.send(format_args!("at {}", board.position))
        }),
        (Tool::new("jam", "Fails", OBJECT), |_board, _call, reply| reply.send(Err::<&str, _>("motor jammed"))),
        (Tool::new("nothing", "Returns nothing", OBJECT), |_board, _call, reply| reply.send(())),
    ]);
    impl Handler for Board {
        const TOOLS: &'static [Tool<'static>] = TOOLS.tools();
        fn call_tool(&mut self, call: ToolCall<'_>, reply: ToolReply<'_>) {
            TOOLS.call(self, call, reply)
        }
    }
    assert_eq!(TOOLS.tools().iter().map(|t| t.name).collect::<Vec<_>>(), ["move", "home", "jam", "nothing"]);
    for version in ["2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"] {
        let moved = call_in(Board { position: 1 }, version, r#""name":"move","arguments":{"steps":2}"#);
        assert_eq!(moved["result"]["content"][0]["text"], r#"{"position":3}"#, "{version}: {moved}");
        let structured = version >= "2025-06-18";
        assert_eq!(moved["result"]["structuredContent"]["position"] == 3, structured, "{version}: {moved}");
        let homed = call_in(Board { position: 5 }, version, r#""name":"home""#);
        assert_eq!(homed["result"]["content"][0]["text"], "at 0");
        let jammed = call_in(Board::default(), version, r#""name":"jam""#);
        assert_eq!(
            (jammed["result"]["isError"].clone(), jammed["result"]["content"][0]["text"].clone()),
            (json!(true), json!("motor jammed"))
        );
        let nothing = call_in(Board::default(), version, r#""name":"nothing""#);
        assert_eq!(nothing["result"]["content"], json!([]), "{version}: {nothing}");
        let bad = call_in(Board::default(), version, r#""name":"move","arguments":{}"#);
        let invalid = bad["result"]["content"][0]["text"] == "Invalid arguments: missing field `steps`";
        assert!(invalid || error_code(&bad) == code::INVALID_PARAMS as i64, "{version}: {bad}");
    }
}
