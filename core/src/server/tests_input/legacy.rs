//! A legacy session's input: the engine asks the client itself and serves the request again.

use std::borrow::ToOwned;
use std::string::{String, ToString};
use std::vec::Vec;

use serde_json::{Value as Json, json};

use super::modern::Harness;
use super::*;
use crate::time::{Duration, Instant};

/// A legacy session whose client answers the server's requests as scripted.
struct Legacy {
    server: Server<'static, Asker, 4, 2>,
    now: Instant,
}

impl Legacy {
    /// With a borrowed input buffer of `input_buffer` bytes (none if 0).
    fn new(input_buffer: usize, sealed: bool) -> Self {
        let input = (input_buffer > 0).then(|| crate::storage::Storage::from(std::vec![0u8; input_buffer].leak()));
        Legacy::over(input, sealed)
    }

    /// With `input` as the input buffer.
    fn over(input: Option<crate::storage::Storage<'static>>, sealed: bool) -> Self {
        let mut config = Config::new("asker", "1");
        config.request_timeout = Some(Duration::from_millis(500));
        if sealed {
            config.state_sealer = Some(&SEALER);
        }
        let buffers = Buffers { rx: std::vec![0u8; 4096].leak(), tx: std::vec![0u8; 4096].leak() };
        let mut server = Server::new(Asker::default(), config, buffers);
        if let Some(input) = input {
            server.parts_mut().0.set_input_storage(input);
        }
        let mut legacy = Legacy { server, now: Instant::from_millis(1_000) };
        let init = json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25",
            "capabilities":serde_json::from_str::<Json>(ALL_CAPS).unwrap(),"clientInfo":{"name":"c","version":"1"}}});
        legacy.send(&init);
        legacy.send(&json!({"jsonrpc":"2.0","method":"notifications/initialized"}));
        legacy
    }

    fn send(&mut self, message: &Json) -> Vec<Json> {
        crate::server::tests_wire::send_json(&mut self.server, self.now, message)
    }

    fn drain(&mut self) -> Vec<Json> {
        crate::server::tests_wire::drain_json(&mut self.server, self.now)
    }
}

fn call(id: i64, name: &str) -> Json {
    json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{"name":name,"arguments":{"a":[1,2]}}})
}

#[test]
fn a_legacy_session_is_asked_by_the_engine_and_the_handler_resumed() {
    for sealed in [false, true] {
        let mut s = Legacy::new(2048, sealed);
        let out = s.send(&call(7, "confirm"));
        assert_eq!(out.len(), 1, "{out:?}");
        let ask = &out[0];
        assert_eq!(ask["method"], "elicitation/create");
        assert_eq!(
            ask["params"],
            json!({"mode":"form","message":"Sure?","requestedSchema":serde_json::from_str::<Json>(FORM).unwrap()})
        );
        assert!(s.server.engine().awaiting_input());
        let answer = json!({"jsonrpc":"2.0","id":ask["id"],"result":{"action":"accept","content":{"ok":true}}});
        let out = s.send(&answer);
        assert_eq!(out.len(), 1, "{out:?}");
        assert_eq!(out[0]["id"], 7);
        assert_eq!(out[0]["result"]["content"][0]["text"], r#"{"action":"accept","content":{"ok":true}} round-1"#);
        assert!(out[0]["result"].get("resultType").is_none(), "a legacy result");
        assert!(!s.server.engine().awaiting_input());
        assert_eq!(s.server.engine().awaiting_answers(), 0);
    }
}

#[test]
fn a_legacy_request_waits_with_keys_that_need_escapes_and_answers_in_any_order() {
    let mut s = Legacy::new(1024, false);
    let asks = s.send(&call(8, "quoted"));
    assert_eq!(asks.len(), 2, "{asks:?}");
    let roots = |uri: &str| json!({"roots":[{"uri":uri}]});
    assert!(s.send(&json!({"jsonrpc":"2.0","id":asks[1]["id"],"result":roots("file:///b")})).is_empty());
    let out = s.send(&json!({"jsonrpc":"2.0","id":asks[0]["id"],"result":roots("file:///a")}));
    assert_eq!(out.len(), 1, "{out:?}");
    assert_eq!(
        out[0]["result"]["content"][0]["text"],
        r#"{"roots":[{"uri":"file:///a"}]} {"roots":[{"uri":"file:///b"}]}"#
    );
    // The id and keys are kept at the end of the record, beside the answers: a record with room
    // for the request but not for them refuses it, and nothing is sent. Here 141 B of params and
    // input requests, 2 B of id (`9` after a length byte) and 23 B of keys: `say \"hi\"` and
    // `back\\slash` as the answer wrote them (10 and 11 B), each after a length byte.
    let asks = |record: usize| {
        let out = Legacy::new(2 * record, false).send(&call(9, "quoted"));
        let refused = out[0]["error"]["message"].as_str().is_some_and(|m| m.contains("does not fit the input buffer"));
        assert!(refused || out.len() == 2, "{out:?}");
        !refused
    };
    assert!(asks(141 + 2 + 23));
    assert!(!asks(141 + 2 + 22));
}

#[test]
fn a_legacy_request_waits_under_its_id_as_it_came_and_is_cancelled_by_it() {
    // A string id with an escape: answered under it, cancelled by it spelled either way.
    let id = json!("r\u{e9}q \"1\"");
    let ask = |s: &mut Legacy| {
        let out = s.send(&json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{"name":"roots"}}));
        assert_eq!(out[0]["method"], "roots/list", "{out:?}");
        out[0]["id"].clone()
    };
    let mut s = Legacy::new(1024, false);
    let asked = ask(&mut s);
    let out = s.send(&json!({"jsonrpc":"2.0","id":asked,"result":{"roots":[]}}));
    assert_eq!(out[0]["id"], id, "{out:?}");
    assert_eq!(out[0]["result"]["content"][0]["text"], "[]");
    // The escaped spelling, as the client may send it.
    let line = r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"r\u00e9q \"1\""}}"#;
    for cancel in [
        line.to_owned(),
        json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":id}}).to_string(),
    ] {
        ask(&mut s);
        assert!(s.server.engine().awaiting_input());
        let other = json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"r\u{e9}q"}});
        s.send(&other);
        assert!(s.server.engine().awaiting_input(), "another id cancels nothing");
        let line = cancel + "\n";
        assert_eq!(s.server.handle_input(s.now, line.as_bytes()), line.len());
        s.drain();
        assert!(!s.server.engine().awaiting_input(), "cancelled");
    }
    // A numeric id is not the string of its digits.
    let out = s.send(&call(5, "roots"));
    assert_eq!(out[0]["method"], "roots/list");
    s.send(&json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"5"}}));
    assert!(s.server.engine().awaiting_input());
    s.send(&json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}));
    assert!(!s.server.engine().awaiting_input());
}

#[test]
fn legacy_input_runs_several_rounds_and_fails_cleanly() {
    legacy_input_runs_several_rounds_and_fails_cleanly_over(std::vec![0u8; 2048].leak().into());
}

/// The same over an owned input buffer, whose retry half is allocated when first needed.
#[cfg(feature = "alloc")]
#[test]
fn legacy_input_runs_several_rounds_and_fails_cleanly_over_an_owned_input_buffer() {
    legacy_input_runs_several_rounds_and_fails_cleanly_over(std::vec![0u8; 2048].into());
}

fn legacy_input_runs_several_rounds_and_fails_cleanly_over(input: crate::storage::Storage<'static>) {
    let mut s = Legacy::over(Some(input), true);
    let first = s.send(&call(1, "rounds"));
    assert_eq!(first[0]["method"], "roots/list");
    let second = s.send(&json!({"jsonrpc":"2.0","id":first[0]["id"],"result":{"roots":[]}}));
    assert_eq!(second[0]["method"], "roots/list", "round two asks again: {second:?}");
    let done = s.send(&json!({"jsonrpc":"2.0","id":second[0]["id"],"result":{"roots":[]}}));
    assert_eq!(done[0]["result"]["content"][0]["text"], "three rounds");

    // A client error answers the request with -32603.
    let ask = s.send(&call(2, "roots"));
    let failed = s.send(&json!({"jsonrpc":"2.0","id":ask[0]["id"],"error":{"code":-1,"message":"no"}}));
    assert_eq!((failed[0]["id"].clone(), failed[0]["error"]["code"].clone()), (json!(2), json!(-32603)));
    // No answer in time: -32603 as well, and the client is told the input request is cancelled.
    s.send(&call(3, "roots"));
    s.now = s.now + Duration::from_millis(501);
    s.server.handle_timeout(s.now);
    let out = s.drain();
    assert!(out.iter().any(|m| m["id"] == 3 && m["error"]["code"] == -32603), "{out:?}");
    assert!(out.iter().any(|m| m["method"] == "notifications/cancelled"), "{out:?}");
    // One request waits at a time; a cancelled one is forgotten and its input request cancelled.
    let ask = s.send(&call(4, "roots"));
    let busy = s.send(&call(5, "confirm"));
    assert_eq!((busy[0]["id"].clone(), busy[0]["error"]["code"].clone()), (json!(5), json!(-32603)));
    assert!(s.server.engine().awaiting_input(), "the refused request leaves the waiting one waiting");
    let out = s.send(&json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4}}));
    assert!(!s.server.engine().awaiting_input());
    assert_eq!(out, [json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":ask[0]["id"]}})]);
    s.server.handle_timeout(s.now);
    let late = s.send(&json!({"jsonrpc":"2.0","id":ask[0]["id"],"result":{"roots":[]}}));
    assert!(late.is_empty(), "{late:?}");
    // The input ends while a request waits: it is answered, and the engine finishes.
    s.send(&call(6, "roots"));
    s.server.handle_eof(s.now);
    let out = s.drain();
    assert!(out.iter().any(|m| m["id"] == 6 && m["error"]["code"] == -32603), "{out:?}");
    assert!(s.server.is_finished());
}

#[test]
fn legacy_input_needs_a_buffer_and_declared_capabilities() {
    let mut s = Legacy::new(0, false);
    let out = s.send(&call(1, "confirm"));
    assert_eq!(out[0]["error"]["code"], -32603);
    assert!(out[0]["error"]["message"].as_str().unwrap().contains("set_input_buffer"));
    // A request bigger than half the buffer does not fit.
    let mut s = Legacy::new(64, false);
    assert_eq!(s.send(&call(1, "confirm"))[0]["error"]["code"], -32603);
    // A client that declared no sampling is not asked: the handler's request fails with -32603.
    let mut s = Legacy::new(2048, false);
    let init = json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18",
        "capabilities":{},"clientInfo":{"name":"c","version":"1"}}});
    s.send(&init);
    let out = s.send(&call(2, "sample"));
    assert_eq!(out.len(), 1, "nothing is sent to the client: {out:?}");
    assert_eq!(out[0]["error"]["code"], -32603);
    assert_eq!(out[0]["error"]["data"]["requiredCapabilities"], json!({"sampling":{"tools":{}}}));
}

#[test]
fn a_legacy_request_asking_twice_is_failed_once_when_one_answer_times_out() {
    let many = |id: i64, n: i64| json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{"name":"many","arguments":{"n":n}}});
    let cancelled = |out: &[Json]| out.iter().filter(|m| m["method"] == "notifications/cancelled").count();
    // Neither answered: the request fails once, both input requests are cancelled on the wire,
    // and the handler hears nothing of the engine's own requests.
    let mut s = Legacy::new(2048, false);
    let asked = s.send(&many(1, 2));
    assert_eq!(asked.iter().filter(|m| m["method"] == "roots/list").count(), 2, "{asked:?}");
    s.now = s.now + Duration::from_millis(501);
    s.server.handle_timeout(s.now);
    let out = s.drain();
    assert_eq!(out.iter().filter(|m| m["id"] == 1).count(), 1, "{out:?}");
    assert_eq!(cancelled(&out), 2, "{out:?}");
    assert!(s.server.handler().responses.is_empty(), "{:?}", s.server.handler().responses);
    assert_eq!(s.server.engine().awaiting_answers(), 0);
    // One answered, the other late: only the late one is cancelled.
    let asked = s.send(&many(2, 2));
    assert!(s.send(&json!({"jsonrpc":"2.0","id":asked[0]["id"],"result":{"roots":[]}})).is_empty());
    s.now = s.now + Duration::from_millis(501);
    s.server.handle_timeout(s.now);
    let out = s.drain();
    assert_eq!(out.iter().filter(|m| m["id"] == 2 && m["error"]["code"] == -32603).count(), 1, "{out:?}");
    assert_eq!(cancelled(&out), 1, "{out:?}");
    assert!(s.server.handler().responses.is_empty());
    // More input requests than requests to the client may wait (2 here): refused before asking.
    let out = s.send(&many(3, 3));
    assert_eq!(out.len(), 1, "nothing is sent to the client: {out:?}");
    assert_eq!(out[0]["error"]["code"], -32603);
    assert!(out[0]["error"]["message"].as_str().unwrap().contains("too many requests"), "{out:?}");
    // With one of the two slots taken by a ping of the server's own, two do not fit either.
    let ping = s.server.ping(s.now).unwrap();
    s.drain();
    let out = s.send(&many(9, 2));
    assert_eq!(out.len(), 1, "nothing is sent to the client: {out:?}");
    assert!(out[0]["error"]["message"].as_str().unwrap().contains("too many requests"), "{out:?}");
    assert!(s.send(&json!({"jsonrpc":"2.0","id":ping.id(),"result":{}})).is_empty());
    let asked = s.send(&many(4, 2));
    assert_eq!(s.server.engine().awaiting_answers(), 2, "the engine serves on");
    // Answered in the other order: each answer is kept under its own key.
    let roots = |name: &str| json!({"roots":[{"uri":std::format!("file:///{name}")}]});
    assert!(s.send(&json!({"jsonrpc":"2.0","id":asked[1]["id"],"result":roots("second")})).is_empty());
    let done = s.send(&json!({"jsonrpc":"2.0","id":asked[0]["id"],"result":roots("first")}));
    assert_eq!(
        done[0]["result"]["content"][0]["text"],
        r#"k0={"roots":[{"uri":"file:///first"}]} k1={"roots":[{"uri":"file:///second"}]}"#,
        "{done:?}"
    );
}

#[test]
fn a_legacy_request_answered_as_a_json_body_asks_on_the_sessions_own_stream() {
    use crate::endpoint::{Framing, Route, StreamId};
    let now = Instant::ZERO;
    let mut app = Asker::default();
    let mut config = Config::new("asker", "1");
    config.request_timeout = Some(Duration::from_millis(500));
    let buffers = Buffers { rx: std::vec![0u8; 4096].leak(), tx: std::vec![0u8; 4096].leak() };
    let mut engine: Engine<'static> = Engine::new(config, buffers);
    engine.set_input_buffer(std::vec![0u8; 2048].leak());
    let standalone = Route::new(StreamId(9), Framing::Sse);
    engine.set_notification_route(standalone);
    let post = |n: u32| Route::new(StreamId(n), Framing::Body).ending_with_response();
    let drain = |engine: &mut Engine<'static>, app: &mut Asker| {
        let mut out = Vec::new();
        while let Some(t) = engine.poll_transmit() {
            out.push((t.stream, String::from_utf8_lossy(t.bytes).into_owned()));
            let n = t.bytes.len();
            engine.transmit_done(now, n, app);
        }
        out
    };
    let init = json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25",
        "capabilities":{"roots":{}},"clientInfo":{"name":"c","version":"1"}}})
    .to_string();
    assert!(engine.handle_message(now, post(1), init.as_bytes(), &mut app).is_ok());
    drain(&mut engine, &mut app);
    let roots = call(2, "roots").to_string();
    assert!(engine.handle_message(now, post(2), roots.as_bytes(), &mut app).is_ok());
    let out = drain(&mut engine, &mut app);
    assert_eq!(out.len(), 1, "{out:?}");
    assert_eq!(out[0].0, StreamId(9), "the request to the client goes on the standalone stream: {out:?}");
    assert!(out[0].1.contains("\"method\":\"roots/list\""), "{out:?}");
}

#[test]
fn sampling_params_formatted_into_the_answer_are_checked_as_written_ones() {
    let mut h = Harness::new(true);
    let message = json!({"role":"user","content":{"type":"text","text":"a \"quoted\" line"}});
    let asked = h.call("tools/call", json!({"name":"sample_fmt","arguments":{"n":message}}), ALL_CAPS);
    assert_eq!(
        asked["result"]["inputRequests"],
        json!({"s":{"method":"sampling/createMessage","params":{"messages":[message],"maxTokens":5}}})
    );
    // As `InputRequest::Sample`: tools need `sampling.tools`, no sampling at all `sampling`.
    let tools = json!({"name":"sample_fmt","arguments":{"n":message,"tools":true}});
    let refused = h.call("tools/call", tools.clone(), r#"{"sampling":{}}"#);
    assert_eq!(refused["error"]["code"], -32021);
    assert_eq!(refused["error"]["data"]["requiredCapabilities"], json!({"sampling":{"tools":{}}}));
    let asked = h.call("tools/call", tools, ALL_CAPS);
    assert_eq!(asked["result"]["inputRequests"]["s"]["params"]["tools"], json!([]));
    let refused = h.call("tools/call", json!({"name":"sample_fmt","arguments":{"n":1}}), "{}");
    assert_eq!(refused["error"]["data"]["requiredCapabilities"], json!({"sampling":{}}));
    // Params that are not one JSON object: an internal error, nothing of them sent.
    let broken = h.call("tools/call", json!({"name":"sample_fmt","arguments":{"n":"]"}}), ALL_CAPS);
    assert_eq!(broken["error"]["code"], -32603);
    assert!(broken["error"]["message"].as_str().unwrap().contains("not a JSON object"), "{broken}");

    // A legacy session is asked by the engine, the params as written.
    let mut s = Legacy::new(2048, false);
    let out = s.send(
        &json!({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"sample_fmt","arguments":{"n":message}}}),
    );
    assert_eq!(out.len(), 1, "{out:?}");
    assert_eq!(out[0]["method"], "sampling/createMessage");
    assert_eq!(out[0]["params"], json!({"messages":[message],"maxTokens":5}));
    let answer = json!({"role":"assistant","content":{"type":"text","text":"fine"},"model":"m"});
    let out = s.send(&json!({"jsonrpc":"2.0","id":out[0]["id"],"result":answer}));
    assert_eq!(out.len(), 1, "{out:?}");
    assert_eq!(out[0]["result"]["content"][0]["text"], "\"fine\"");
}

#[test]
fn a_legacy_session_keeps_keys_of_at_most_max_key_len_bytes() {
    let key_call = |len: usize| json!({"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"key","arguments":{"len":len}}});
    let mut s = Legacy::new(2048, false);
    let out = s.send(&key_call(crate::server::MAX_INPUT_KEY_LEN));
    assert_eq!(out.len(), 1, "{out:?}");
    assert_eq!(out[0]["method"], "roots/list", "{out:?}");
    let mut s = Legacy::new(2048, false);
    let out = s.send(&key_call(crate::server::MAX_INPUT_KEY_LEN + 1));
    assert_eq!(out.len(), 1, "{out:?}");
    assert_eq!(out[0]["id"], 5);
    assert_eq!(out[0]["error"]["code"], -32603);
    assert_eq!(out[0]["error"]["message"], "Internal error: an input request key is too long");
    assert!(!s.server.engine().awaiting_input());
}
