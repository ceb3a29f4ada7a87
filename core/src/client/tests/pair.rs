//! The client engine against the server engine, on a simulated clock.

use super::*;

#[test]
fn auto_finds_a_modern_server_and_every_request_carries_meta() {
    for seed in [None, Some(1), Some(7), Some(42)] {
        let mut pair = Pair::new(EraPolicy::Auto, seed);
        pair.connect();
        assert_eq!(pair.client.era(), Some(ProtocolVersion::V2026_07_28), "{:?}", pair.host.events);
        assert!(pair.client.server_capabilities().unwrap().tools.is_some());
        assert!(pair.host.events[0].starts_with("Connected { version: V2026_07_28"), "{:?}", pair.host.events);
        let key = pair.call("echo", r#"{"text":"hi"}"#);
        assert_eq!(pair.host.result(key)["content"][0]["text"], "hi");
        let sent = pair.sent_lines();
        assert_eq!(sent[0]["method"], "server/discover");
        for request in &sent {
            let meta = &request["params"]["_meta"];
            assert_eq!(meta["io.modelcontextprotocol/protocolVersion"], "2026-07-28");
            assert_eq!(meta["io.modelcontextprotocol/clientInfo"]["name"], "host");
            assert_eq!(meta["io.modelcontextprotocol/clientCapabilities"]["elicitation"], json!({"form":{}}));
        }
        assert!(sent.iter().all(|m| m["method"] != "initialize"));
    }
}

#[test]
fn legacy_policy_initializes_and_the_same_tool_gives_the_same_result_in_both_eras() {
    let mut legacy = Pair::new(EraPolicy::Legacy, Some(3));
    legacy.connect();
    assert_eq!(legacy.client.era(), Some(ProtocolVersion::V2025_11_25));
    let sent = legacy.sent_lines();
    assert_eq!(sent[0]["method"], "initialize");
    assert_eq!(sent[0]["params"]["protocolVersion"], "2025-11-25");
    assert_eq!(sent[0]["params"]["clientInfo"]["name"], "host");
    assert_eq!(sent[1]["method"], "notifications/initialized");
    let key = legacy.call("echo", r#"{"text":"same"}"#);
    let mut modern = Pair::new(EraPolicy::Modern, Some(3));
    modern.connect();
    let modern_key = modern.call("echo", r#"{"text":"same"}"#);
    assert_eq!(legacy.host.result(key)["content"], modern.host.result(modern_key)["content"]);
    assert!(legacy.sent_lines().iter().skip(2).all(|m| m["params"].get("_meta").is_none()));
}

#[test]
fn a_legacy_server_asks_for_input_through_the_host_callbacks() {
    let mut pair = Pair::new(EraPolicy::Legacy, Some(11));
    pair.connect();
    let key = pair.call("confirm", "{}");
    assert_eq!(pair.host.inputs, ["elicitation/create"]);
    assert_eq!(pair.host.result(key)["content"][0]["text"], r#"{"action":"accept","content":{"ok":true}}"#);
}

#[test]
fn a_request_that_times_out_is_cancelled_on_the_wire_once() {
    let mut pair = Pair::new(EraPolicy::Legacy, None);
    pair.connect();
    let key = pair.call("slow", "{}");
    assert_eq!(pair.host.outcome(key), None);
    pair.advance(499);
    assert_eq!(pair.host.outcome(key), None);
    pair.advance(1);
    assert_eq!(pair.host.outcome(key), Some("timed out"));
    let cancels: Vec<Json> =
        pair.sent_lines().into_iter().filter(|m| m["method"] == "notifications/cancelled").collect();
    assert_eq!(cancels.len(), 1);
    assert_eq!(cancels[0]["params"]["requestId"], key.id());
    assert!(pair.server.handler().deferred.len() == 1);
    // The server's late answer is refused by the server (it saw the cancellation).
    let deferred = pair.server.handler_mut().deferred.pop().unwrap();
    assert!(pair.server.reply_tool(&deferred).is_err());
    assert_eq!(pair.client.awaiting_answers(), 0);
}

#[test]
fn the_end_of_input_closes_every_request_once() {
    let mut pair = Pair::new(EraPolicy::Auto, Some(5));
    pair.connect();
    let slow = pair.call("slow", "{}");
    let other = pair.call("slow", "{}");
    pair.client.handle_eof(pair.now, &mut pair.host);
    assert_eq!(pair.host.outcome(slow), Some("closed"));
    assert_eq!(pair.host.outcome(other), Some("closed"));
    assert!(pair.client.is_finished());
    assert!(pair.client.request(pair.now, "ping", None).is_err());
}
