//! Logging and progress: legacy `logging/setLevel`, 2026-07-28 per-request levels, deferred requests,
//! and the room notes leave an answer.

use super::*;

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

#[cfg(feature = "http")] // SSE framing
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
