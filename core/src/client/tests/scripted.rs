//! The client engine against scripted servers: what ours never sends.

use super::*;
use crate::endpoint::SendError;

#[test]
fn any_error_to_the_probe_falls_back_to_initialize() {
    for code in [-32601, -32600, -32602, -32022, 7] {
        let mut s = Scripted::new(EraPolicy::Auto);
        assert_eq!(s.take()[0]["method"], "server/discover");
        s.feed(&json!({"jsonrpc":"2.0","id":1,"error":{"code":code,"message":"no"}}).to_string());
        let sent = s.take();
        assert_eq!(sent[0]["method"], "initialize", "after {code}");
        s.initialize_result(2);
        assert_eq!(s.take()[0]["method"], "notifications/initialized");
        assert_eq!(s.client.era(), Some(ProtocolVersion::V2025_06_18));
        assert!(s.host.events.iter().any(|e| e == "FellBack"));
    }
}

#[test]
fn a_version_rejection_that_lists_the_probed_version_is_retried_once() {
    let rejection = |id: i64, supported: Json| {
        json!({"jsonrpc":"2.0","id":id,"error":{"code":-32022,"message":"Unsupported protocol version",
            "data":{"supported":supported,"requested":"2026-07-28"}}})
        .to_string()
    };
    for policy in [EraPolicy::Auto, EraPolicy::Modern] {
        let mut s = Scripted::new(policy);
        let first = s.take();
        assert_eq!(first[0]["method"], "server/discover");
        s.feed(&rejection(1, json!(["2026-07-28"])));
        let again = s.take();
        assert_eq!(again.len(), 1);
        assert_eq!(again[0]["method"], "server/discover", "{policy:?}");
        assert_eq!(again[0]["id"], 2, "a new id");
        assert_eq!(again[0]["params"], first[0]["params"], "the same version and _meta");
        s.feed(r#"{"jsonrpc":"2.0","id":2,"result":{"supportedVersions":["2026-07-28"],"capabilities":{}}}"#);
        assert_eq!(s.client.era(), Some(ProtocolVersion::V2026_07_28), "{policy:?}");
    }
    // Once only: a second rejection falls back (or fails when pinned modern).
    let mut s = Scripted::new(EraPolicy::Auto);
    let _ = s.take();
    s.feed(&rejection(1, json!(["2026-07-28"])));
    let _ = s.take();
    s.feed(&rejection(2, json!(["2026-07-28"])));
    assert_eq!(s.take()[0]["method"], "initialize");
    let mut s = Scripted::new(EraPolicy::Modern);
    let _ = s.take();
    s.feed(&rejection(1, json!(["2026-07-28"])));
    let _ = s.take();
    s.feed(&rejection(2, json!(["2026-07-28"])));
    assert!(s.client.is_failed());
    // A list without 2026-07-28 (or no list) is no reason to ask again.
    for supported in [json!(["2025-11-25"]), json!("2026-07-28"), Json::Null] {
        let mut s = Scripted::new(EraPolicy::Auto);
        let _ = s.take();
        s.feed(&rejection(1, supported.clone()));
        assert_eq!(s.take()[0]["method"], "initialize", "{supported}");
    }
}

#[test]
fn an_unusable_discover_result_or_silence_falls_back_too() {
    let mut s = Scripted::new(EraPolicy::Auto);
    let _ = s.take();
    s.feed(r#"{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2025-11-25"],"capabilities":{}}}"#);
    assert_eq!(s.take()[0]["method"], "initialize");

    let mut s = Scripted::new(EraPolicy::Auto);
    let _ = s.take();
    s.now = s.now + Duration::from_secs(10);
    assert_eq!(s.client.poll_timeout(), Some(s.now));
    s.client.handle_timeout(s.now, &mut s.host);
    let sent = s.take();
    assert_eq!(sent[0]["method"], "notifications/cancelled");
    assert_eq!(sent[0]["params"]["requestId"], 1);
    assert_eq!(sent[1]["method"], "initialize");
    // The probe's late answer is only reported.
    s.feed(r#"{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2026-07-28"],"capabilities":{}}}"#);
    assert!(s.host.events.iter().any(|e| e.contains("UnexpectedResponse")));
    s.initialize_result(2);
    assert_eq!(s.client.era(), Some(ProtocolVersion::V2025_06_18));
}

#[test]
fn pinned_modern_fails_instead_of_falling_back() {
    let mut s = Scripted::new(EraPolicy::Modern);
    let _ = s.take();
    s.feed(r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}"#);
    assert!(s.take().is_empty());
    assert!(s.client.is_failed());
    assert_eq!(
        s.host.events,
        [std::format!("{:?}", client::Event::ConnectFailed(ConnectError::Refused { code: -32601 }))]
    );
}

#[test]
fn an_initialize_answer_with_an_unknown_version_fails() {
    let mut s = Scripted::new(EraPolicy::Legacy);
    let _ = s.take();
    s.feed(r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"1999-01-01","capabilities":{}}}"#);
    assert!(s.client.is_failed());
    assert!(s.take().is_empty(), "no notifications/initialized");
}

#[test]
fn server_requests_are_answered_by_declared_capability() {
    let mut s = Scripted::new(EraPolicy::Legacy);
    let _ = s.take();
    s.initialize_result(1);
    let _ = s.take();
    s.feed(r#"{"jsonrpc":"2.0","id":"p","method":"ping"}"#);
    s.feed(r#"{"jsonrpc":"2.0","id":2,"method":"roots/list"}"#);
    s.feed(r#"{"jsonrpc":"2.0","id":3,"method":"sampling/createMessage","params":{"messages":[],"maxTokens":1}}"#);
    s.feed(r#"{"jsonrpc":"2.0","id":4,"method":"elicitation/create","params":{"mode":"url","message":"m","url":"https://x","elicitationId":"e"}}"#);
    s.feed(r#"{"jsonrpc":"2.0","id":5,"method":"tools/list"}"#);
    let out = s.take();
    assert_eq!(out[0], json!({"jsonrpc":"2.0","id":"p","result":{}}));
    assert_eq!(out[1]["result"]["roots"][0]["uri"], "file:///tmp");
    assert_eq!(out[2]["error"]["code"], -32601, "sampling was not declared");
    assert_eq!(out[3]["error"]["code"], -32601, "URL elicitation was not declared");
    assert_eq!(out[4]["error"]["code"], -32601);
    assert_eq!(s.host.inputs, ["roots/list"]);
}

#[test]
fn notifications_are_read_and_listen_streams_named() {
    let mut s = Scripted::new(EraPolicy::Legacy);
    let _ = s.take();
    s.initialize_result(1);
    s.feed(r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":9,"progress":0.5,"total":2,"message":"half"}}"#);
    s.feed(r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"warning","logger":"l","data":{"a":1}}}"#);
    s.feed(r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#);
    s.feed(r#"{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"file:///a"}}"#);
    s.feed(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}"#);
    s.feed(r#"{"jsonrpc":"2.0","method":"notifications/other"}"#);
    let n = &s.host.notifications;
    assert!(
        n[0].starts_with("Progress { request: Some(9), progress: Value(\"0.5\"), total: Some(Value(\"2\"))"),
        "{n:?}"
    );
    assert!(n[1].starts_with("Log { level: Some(Warning)"), "{n:?}");
    assert_eq!(n[2], "ToolsChanged");
    assert!(n[3].starts_with("ResourceUpdated"));
    assert!(n[4].starts_with("Other"));
    assert!(s.host.events.iter().any(|e| e == "Cancelled { request: Some(3) }"));
    let params = json::parse(br#"{"_meta":{"io.modelcontextprotocol/subscriptionId":12}}"#, 8).unwrap();
    assert_eq!(Notification::subscription(Some(params)), Some(12));
}

#[test]
fn a_broken_server_yields_errors_and_events_never_a_panic() {
    let mut s = Scripted::new(EraPolicy::Legacy);
    let _ = s.take();
    s.initialize_result(1);
    let _ = s.take();
    let key = s.client.ping(s.now).unwrap();
    let _ = s.take();
    s.feed("garbage");
    s.feed(&"[".repeat(200));
    s.feed(r#"[{"jsonrpc":"2.0","id":2,"result":{}}]"#);
    s.feed(r#"{"jsonrpc":"2.0","id":99,"result":{}}"#);
    s.feed(r#"{"jsonrpc":"2.0","id":2,"result":{}}"#);
    s.feed(r#"{"jsonrpc":"2.0","id":2,"result":{}}"#);
    // A line longer than the receive buffer is skipped and the stream goes on.
    let long = std::format!(r#"{{"jsonrpc":"2.0","method":"x","params":"{}"}}"#, "a".repeat(3000));
    let long = long + "\n";
    let mut at = 0;
    while at < long.len() {
        at += s.client.handle_input(s.now, &long.as_bytes()[at..], &mut s.host);
        let _ = s.take();
    }
    s.feed(r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#);
    let out = s.take();
    assert_eq!(s.host.outcome(key), Some("result {}"));
    assert_eq!(s.host.responses.len(), 1, "a duplicate answer is not a second outcome");
    assert_eq!(s.host.events.iter().filter(|e| e.contains("UnexpectedResponse")).count(), 2);
    assert!(s.host.events.iter().any(|e| e.contains("FrameDropped")));
    assert_eq!(s.host.notifications.last().map(String::as_str), Some("ToolsChanged"));
    let codes: Vec<i64> = out.iter().filter_map(|m| m["error"]["code"].as_i64()).collect();
    assert!(codes.is_empty() || codes.iter().all(|c| [-32600, -32700].contains(c)), "{codes:?}");
}

#[test]
fn answers_are_read_while_the_transmit_queue_is_full() {
    let mut client = client::Engine::<4>::new(host_config(EraPolicy::Legacy), buffers(1024, 1024));
    let mut host = Host::default();
    let now = Instant::from_millis(0);
    client.connect(now).unwrap();
    let initialize = client.poll_transmit().unwrap().bytes.len();
    client.transmit_done(now, initialize, &mut host);
    let result =
        r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{}}}"#.to_string() + "\n";
    client.handle_input(now, result.as_bytes(), &mut host);
    // Requests until the queue is full; nothing is transmitted.
    let mut keys = Vec::new();
    while let Ok(key) = client.call_tool(now, "echo", None) {
        keys.push(key);
    }
    assert!(!keys.is_empty());
    let (pending, spare) = client.transmit_blocked();
    assert!(pending.is_some() && !spare.is_empty(), "a blocked writer still gets room to read into");
    let answers: String = keys
        .iter()
        .map(|k| std::format!(r#"{{"jsonrpc":"2.0","id":{},"result":{{"content":[]}}}}"#, k.id()) + "\n")
        .collect();
    assert_eq!(client.handle_input(now, answers.as_bytes(), &mut host), answers.len());
    assert_eq!(host.responses.len(), keys.len());
}

#[test]
fn a_modern_server_asks_for_input_and_the_same_callbacks_answer_it() {
    for seed in [None, Some(2), Some(9)] {
        let mut pair = Pair::new(EraPolicy::Auto, seed);
        pair.client.set_retry_buffer(std::vec![0u8; 512].leak());
        pair.connect();
        assert_eq!(pair.client.era(), Some(ProtocolVersion::V2026_07_28));
        let key = pair.call("confirm", r#"{"why":"test"}"#);
        assert_eq!(pair.host.inputs, ["elicitation/create"]);
        // Only the last round reaches the application, under the key it was given, and it is
        // the legacy session's answer.
        assert_eq!(pair.host.responses.len(), 1);
        let result = pair.host.result(key);
        assert_eq!(result["content"][0]["text"], r#"{"action":"accept","content":{"ok":true}}"#);
        let calls: Vec<Json> = pair.sent_lines().into_iter().filter(|m| m["method"] == "tools/call").collect();
        assert_eq!(calls.len(), 2);
        assert_ne!(calls[0]["id"], calls[1]["id"], "a retry has a new id");
        assert_eq!(calls[1]["params"]["arguments"], json!({"why":"test"}));
        assert_eq!(calls[1]["params"]["inputResponses"]["ok"]["action"], "accept");
        assert!(calls[1]["params"].get("requestState").is_none(), "no requestState when none was given");
        assert_eq!(pair.client.awaiting_answers(), 0);
        // An unrelated call in between carries nothing of it.
        let echo = pair.call("echo", r#"{"text":"x"}"#);
        assert_eq!(pair.host.result(echo)["content"][0]["text"], "x");
        let last = pair.sent_lines().pop().unwrap();
        assert!(last["params"].get("inputResponses").is_none());
    }
}

#[test]
fn request_state_is_echoed_byte_for_byte_and_rounds_are_bounded() {
    let mut s = Scripted::new(EraPolicy::Modern);
    s.client.set_retry_buffer(std::vec![0u8; 256].leak());
    let _ = s.take();
    s.feed(r#"{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}}}}"#);
    let key = s.client.call_tool(s.now, "t", None).unwrap();
    let sent = s.take();
    assert_eq!(sent[0]["params"]["name"], "t");
    let state = r#""a\u0062 \"c\"""#;
    s.feed(&std::format!(
        r#"{{"jsonrpc":"2.0","id":{},"result":{{"resultType":"input_required","inputRequests":{{"r":{{"method":"roots/list"}}}},"requestState":{state}}}}}"#,
        key.id()
    ));
    let mut out = Vec::new();
    while let Some(t) = s.client.poll_transmit() {
        let n = t.bytes.len();
        out.extend_from_slice(t.bytes);
        s.client.transmit_done(s.now, n, &mut s.host);
    }
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains(&std::format!(r#""requestState":{state}"#)), "{text}");
    let retry: Json = serde_json::from_str(text.trim()).unwrap();
    assert_eq!(retry["params"]["inputResponses"]["r"]["roots"][0]["uri"], "file:///tmp");
    let second = retry["id"].as_i64().unwrap();
    // A missing resultType means complete.
    s.feed(&std::format!(r#"{{"jsonrpc":"2.0","id":{second},"result":{{"content":[]}}}}"#));
    assert_eq!(s.host.result(key), json!({"content":[]}));

    // An input the client did not declare ends the rounds: the result itself is the outcome.
    let key = s.client.call_tool(s.now, "t", None).unwrap();
    let _ = s.take();
    s.feed(&std::format!(
        r#"{{"jsonrpc":"2.0","id":{},"result":{{"resultType":"input_required","inputRequests":{{"s":{{"method":"sampling/createMessage","params":{{"messages":[],"maxTokens":1}}}}}}}}}}"#,
        key.id()
    ));
    assert!(s.take().is_empty());
    assert_eq!(s.host.result(key)["resultType"], "input_required");

    // Rounds are bounded.
    let mut s = Scripted::new(EraPolicy::Modern);
    s.client = client::Engine::new(host_config(EraPolicy::Modern).with_max_input_rounds(2), buffers(1024, 2048));
    s.client.set_retry_buffer(std::vec![0u8; 256].leak());
    s.client.connect(s.now).unwrap();
    let _ = s.take();
    s.feed(r#"{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2026-07-28"],"capabilities":{}}}"#);
    let key = s.client.call_tool(s.now, "t", None).unwrap();
    let _ = s.take();
    let mut id = key.id();
    for _ in 0..3 {
        s.feed(&std::format!(
            r#"{{"jsonrpc":"2.0","id":{id},"result":{{"resultType":"input_required","requestState":"again"}}}}"#
        ));
        if let Some(next) = s.take().iter().find(|m| m["method"] == "tools/call") {
            id = next["id"].as_i64().unwrap();
        }
    }
    assert_eq!(s.host.result(key)["requestState"], "again", "the third round is the outcome");
}

#[test]
fn progress_moves_a_deadline_up_to_the_cap() {
    let config = host_config(EraPolicy::Legacy).with_max_request_time(Some(Duration::from_millis(1_200)));
    let client = client::Engine::<4>::new(config, buffers(1024, 2048));
    let mut s = Scripted { client, host: Host::default(), now: Instant::from_millis(0) };
    s.client.connect(s.now).unwrap();
    let _ = s.take();
    s.initialize_result(1);
    let _ = s.take();
    let key = s
        .client
        .request_with_progress(s.now, "tools/call", Some(&|w: &mut JsonWriter<'_>| w.raw(br#""name":"slow""#)))
        .unwrap();
    let sent = s.take();
    assert_eq!(sent[0]["params"]["_meta"]["progressToken"], key.id());
    assert_eq!(s.client.poll_timeout(), Some(Instant::from_millis(500)));
    for (at, deadline) in [(400, 900), (800, 1_200), (1_100, 1_200)] {
        s.now = Instant::from_millis(at);
        s.feed(&std::format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":{},"progress":{at}}}}}"#,
            key.id()
        ));
        assert_eq!(s.client.poll_timeout(), Some(Instant::from_millis(deadline)), "after progress at {at}");
    }
    s.now = Instant::from_millis(1_200);
    s.client.handle_timeout(s.now, &mut s.host);
    assert_eq!(s.host.outcome(key), Some("timed out"));
    // Progress of another request (or a late one) moves nothing.
    let other = s.client.call_tool(s.now, "t", None).unwrap();
    s.feed(&std::format!(
        r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":{},"progress":1}}}}"#,
        other.id()
    ));
    assert_eq!(s.client.poll_timeout(), Some(Instant::from_millis(1_700)));
}

#[test]
fn a_2024_11_05_server_is_reached_through_the_fallback() {
    let mut s = Scripted::new(EraPolicy::Auto);
    let _ = s.take();
    s.feed(r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}"#);
    assert_eq!(s.take()[0]["params"]["protocolVersion"], "2025-11-25");
    s.feed(r#"{"jsonrpc":"2.0","id":2,"result":{"protocolVersion":"2024-11-05","capabilities":{"tools":{}},"serverInfo":{"name":"old","version":"0"}}}"#);
    assert_eq!(s.client.era(), Some(ProtocolVersion::V2024_11_05));
    let key = s.client.call_tool(s.now, "echo", None).unwrap();
    let sent = s.take();
    assert_eq!(sent[0]["method"], "notifications/initialized");
    assert_eq!(sent[1]["id"], key.id());
    assert!(sent[1]["params"].get("_meta").is_none());
}

#[test]
fn listen_streams_are_named_by_their_request_and_end_with_it() {
    let mut s = Scripted::new(EraPolicy::Modern);
    let _ = s.take();
    s.feed(r#"{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{"listChanged":true}}}}"#);
    let listen = s.client.listen(s.now, &|w: &mut JsonWriter<'_>| w.raw(br#""toolsListChanged":true"#)).unwrap();
    let sent = s.take();
    assert_eq!(sent[0]["method"], "subscriptions/listen");
    assert_eq!(sent[0]["params"]["notifications"], json!({"toolsListChanged":true}));
    assert_eq!(s.client.poll_timeout(), None, "a listen stream has no timeout");
    let tagged = |method: &str, id: i64| {
        std::format!(
            r#"{{"jsonrpc":"2.0","method":"{method}","params":{{"_meta":{{"io.modelcontextprotocol/subscriptionId":{id}}}}}}}"#
        )
    };
    s.feed(&tagged("notifications/subscriptions/acknowledged", listen.id()));
    s.feed(&tagged("notifications/tools/list_changed", listen.id()));
    // Named by an id that is no listen of this client's: an ordinary notification.
    s.feed(&tagged("notifications/tools/list_changed", 99));
    assert_eq!(
        s.host.listened,
        [
            (listen, String::from("notifications/subscriptions/acknowledged")),
            (listen, String::from("notifications/tools/list_changed"))
        ]
    );
    assert_eq!(s.host.notifications, ["ToolsChanged"]);
    // Cancelled: notifications/cancelled on the wire, and later ones are not the stream's.
    assert!(s.client.cancel(listen));
    assert_eq!(s.take()[0]["method"], "notifications/cancelled");
    s.feed(&tagged("notifications/tools/list_changed", listen.id()));
    assert_eq!(s.host.listened.len(), 2);

    let mut legacy = Scripted::new(EraPolicy::Legacy);
    let _ = legacy.take();
    legacy.initialize_result(1);
    assert_eq!(
        legacy.client.listen(legacy.now, &|_: &mut JsonWriter<'_>| {}),
        Err(crate::endpoint::SendError::NotAvailable)
    );
}

#[test]
fn input_held_for_transmit_room_is_still_served_after_the_end_of_input() {
    // Found by the `client` fuzz target (fuzz/regressions/client/eof-drops-held-server-request):
    // a server request waits for room to answer it while the client's own request is not written
    // yet; the input ends meanwhile. Everything buffered is still served, in order, once there is
    // room: the ping is answered, and the answer to `initialize` behind it connects.
    let mut client = client::Engine::<4>::new(host_config(EraPolicy::Legacy), buffers(1024, 1024));
    let mut host = Host::default();
    let now = Instant::from_millis(0);
    client.connect(now).unwrap();
    let input = concat!(
        r#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#,
        "\n",
        r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{}}}"#,
        "\n"
    );
    assert_eq!(client.handle_input(now, input.as_bytes(), &mut host), input.len());
    client.handle_eof(now, &mut host);
    assert!(!client.is_finished(), "the held request is still to be served");
    let mut out = Vec::new();
    while let Some(t) = client.poll_transmit() {
        let n = t.bytes.len();
        out.extend_from_slice(t.bytes);
        client.transmit_done(now, n, &mut host);
    }
    let sent = lines(&out);
    assert_eq!(sent[0]["method"], "initialize");
    assert_eq!(sent[1], json!({"jsonrpc":"2.0","id":7,"result":{}}));
    assert_eq!(sent[2]["method"], "notifications/initialized");
    assert_eq!(client.era(), Some(ProtocolVersion::V2025_11_25), "{:?}", host.events);
    assert!(client.is_finished());
}

#[test]
fn the_fallback_initialize_waits_for_transmit_room() {
    // Found by the `client` fuzz target (fuzz/regressions/client/fallback-fails-on-full-transmit):
    // the probe times out while the transmit buffer is full (here the probe itself is not written
    // yet, so its cancellation waits, and with one outbound slot so does `initialize`). The
    // fallback waits for room instead of failing the connection as `Closed`.
    let discover_len = {
        let mut probe = client::Engine::<1>::new(host_config(EraPolicy::Auto), buffers(1024, 4096));
        probe.connect(Instant::from_millis(0)).unwrap();
        probe.poll_transmit().unwrap().bytes.len()
    };
    let mut client = client::Engine::<1>::new(host_config(EraPolicy::Auto), buffers(1024, discover_len + 10));
    let mut host = Host::default();
    let mut now = Instant::from_millis(0);
    client.connect(now).unwrap();
    now = now + Duration::from_secs(10);
    client.handle_timeout(now, &mut host);
    assert!(!client.is_failed(), "{:?}", host.events);
    assert_eq!(host.events, ["FellBack"]);
    let mut out = Vec::new();
    while let Some(t) = client.poll_transmit() {
        let n = t.bytes.len();
        out.extend_from_slice(t.bytes);
        client.transmit_done(now, n, &mut host);
    }
    let sent = lines(&out);
    assert_eq!(sent[0]["method"], "server/discover");
    assert_eq!(sent[1]["method"], "notifications/cancelled");
    assert_eq!(sent[1]["params"]["requestId"], 1);
    assert_eq!(sent[2]["method"], "initialize");
    assert_eq!(sent[2]["id"], 2);
    let result =
        r#"{"jsonrpc":"2.0","id":2,"result":{"protocolVersion":"2025-11-25","capabilities":{}}}"#.to_string() + "\n";
    client.handle_input(now, result.as_bytes(), &mut host);
    assert_eq!(client.era(), Some(ProtocolVersion::V2025_11_25));
}

#[test]
fn params_too_long_for_a_retry_record_are_not_kept() {
    // Found with the `client` fuzz target's operations (fuzz/regressions/client/retry-params-over-64k):
    // a retry record holds its params' length in 16 bits, so params of 64 KiB or more, kept in a
    // large retry buffer, were cut when retried (invalid JSON on the wire). Such a request is not
    // kept: an `input_required` answer to it is its outcome.
    let config = host_config(EraPolicy::Modern).with_request_timeout(None);
    let mut s = Scripted {
        client: client::Engine::new(config, buffers(1024, 80_000)),
        host: Host::default(),
        now: Instant::from_millis(0),
    };
    s.client.set_retry_buffer(std::vec![0u8; 70_000].leak());
    s.client.connect(s.now).unwrap();
    let _ = s.take();
    s.feed(r#"{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}}}}"#);
    let pad = "p".repeat(65_520);
    let arguments = std::format!(r#"{{"pad":"{pad}"}}"#);
    let key = s.client.call_tool(s.now, "t", Some(json::parse(arguments.as_bytes(), 8).unwrap())).unwrap();
    assert_eq!(s.take()[0]["params"]["arguments"]["pad"], pad.as_str());
    s.feed(&std::format!(
        r#"{{"jsonrpc":"2.0","id":{},"result":{{"resultType":"input_required","inputRequests":{{"r":{{"method":"roots/list"}}}}}}}}"#,
        key.id()
    ));
    assert!(s.take().is_empty(), "no retry");
    assert_eq!(s.host.result(key)["resultType"], "input_required");
    // Params that fit a record are still kept and retried.
    let key = s.client.call_tool(s.now, "t", None).unwrap();
    let _ = s.take();
    s.feed(&std::format!(
        r#"{{"jsonrpc":"2.0","id":{},"result":{{"resultType":"input_required","inputRequests":{{"r":{{"method":"roots/list"}}}}}}}}"#,
        key.id()
    ));
    assert_eq!(s.take()[0]["params"]["inputResponses"]["r"]["roots"][0]["uri"], "file:///tmp");
}

#[test]
fn reinitialize_starts_a_new_legacy_session_while_requests_wait() {
    let mut s = Scripted::new(EraPolicy::Legacy);
    assert_eq!(s.take()[0]["method"], "initialize");
    assert!(s.client.is_connecting());
    s.initialize_result(1);
    let _ = s.take();
    assert!(!s.client.is_connecting());
    let waiting = s.client.ping(s.now).unwrap();
    let _ = s.take();

    // The session ended (a Streamable HTTP 404): `initialize` again, the same as the first.
    s.client.reinitialize(s.now).unwrap();
    let sent = s.take();
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0]["method"], "initialize");
    assert_eq!(sent[0]["params"]["protocolVersion"], "2025-11-25");
    assert!(s.client.is_connecting());
    assert_eq!(s.client.era(), None);
    assert_eq!(s.client.ping(s.now), Err(SendError::NotAvailable), "not until connected again");
    assert_eq!(s.client.reinitialize(s.now), Err(SendError::NotAvailable), "once at a time");
    let id = sent[0]["id"].as_i64().unwrap();
    s.initialize_result(id);
    assert_eq!(s.take()[0]["method"], "notifications/initialized");
    assert_eq!(s.client.era(), Some(ProtocolVersion::V2025_06_18));
    assert_eq!(s.host.events.iter().filter(|e| e.starts_with("Connected")).count(), 2, "{:?}", s.host.events);
    // The request sent before still gets its answer.
    s.feed(&json!({"jsonrpc":"2.0","id":waiting.id(),"result":{}}).to_string());
    assert_eq!(s.host.outcome(waiting), Some("result {}"));

    // A refused re-initialize fails the connection, as a refused first one does.
    s.client.reinitialize(s.now).unwrap();
    let id = s.take()[0]["id"].as_i64().unwrap();
    s.feed(&json!({"jsonrpc":"2.0","id":id,"error":{"code":-32600,"message":"no"}}).to_string());
    assert!(s.client.is_failed());
    assert_eq!(s.client.reinitialize(s.now), Err(SendError::NotAvailable));
}

#[test]
fn reinitialize_is_for_legacy_sessions_only() {
    let mut s = Scripted::new(EraPolicy::Modern);
    assert_eq!(s.client.reinitialize(s.now), Err(SendError::NotAvailable), "not connected");
    let _ = s.take();
    s.feed(r#"{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2026-07-28"],"capabilities":{}}}"#);
    assert_eq!(s.client.era(), Some(ProtocolVersion::V2026_07_28));
    assert_eq!(s.client.reinitialize(s.now), Err(SendError::NotAvailable), "2026-07-28 has no sessions");
}
