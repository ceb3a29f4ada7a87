//! Change notifications: legacy list changes and subscriptions, 2026-07-28 listen streams.

use super::*;

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
