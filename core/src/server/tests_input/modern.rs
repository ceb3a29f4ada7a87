//! The 2026-07-28 rounds: `input_required` results, sealed request state, declared capabilities.

use std::borrow::ToOwned;
use std::string::{String, ToString};
use std::vec::Vec;

use serde_json::{Value as Json, json};

use super::*;
use crate::time::{Duration, Instant};

pub(super) struct Harness {
    server: Server<'static, Asker>,
    now: Instant,
}

impl Harness {
    pub(super) fn new(sealed: bool) -> Self {
        let mut config = Config::new("asker", "1");
        if sealed {
            config.state_sealer = Some(&SEALER);
        }
        let buffers = Buffers { rx: std::vec![0u8; 4096].leak(), tx: std::vec![0u8; 4096].leak() };
        Harness { server: Server::new(Asker::default(), config, buffers), now: Instant::from_millis(1_000) }
    }

    pub(super) fn call(&mut self, method: &str, params: Json, caps: &str) -> Json {
        let mut params = params;
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": serde_json::from_str::<Json>(caps).unwrap(),
        });
        let line = json!({"jsonrpc":"2.0","id":1,"method":method,"params":params}).to_string() + "\n";
        assert_eq!(self.server.handle_input(self.now, line.as_bytes()), line.len());
        let mut out = Vec::new();
        while let Some(bytes) = self.server.poll_transmit() {
            out.extend_from_slice(bytes);
            let n = bytes.len();
            self.server.transmit_done(self.now, n);
        }
        let mut lines: Vec<Json> =
            out.split(|&b| b == b'\n').filter(|l| !l.is_empty()).map(|l| serde_json::from_slice(l).unwrap()).collect();
        assert_eq!(lines.len(), 1, "{lines:?}");
        lines.remove(0)
    }
}

#[test]
fn a_sealed_round_trip_asks_then_completes_with_the_state() {
    let mut h = Harness::new(true);
    let first = h.call("tools/call", json!({"name":"confirm"}), ALL_CAPS);
    let result = &first["result"];
    assert_eq!(result["resultType"], "input_required");
    assert_eq!(
        result["inputRequests"],
        json!({"ok":{"method":"elicitation/create","params":{"mode":"form","message":"Sure?","requestedSchema":serde_json::from_str::<Json>(FORM).unwrap()}}})
    );
    let state = result["requestState"].as_str().unwrap().to_owned();
    let retry = json!({"name":"confirm","inputResponses":{"ok":{"action":"accept","content":{"ok":true}}},"requestState":state});
    let done = h.call("tools/call", retry.clone(), ALL_CAPS);
    assert_eq!(done["result"]["resultType"], "complete");
    assert_eq!(done["result"]["content"][0]["text"], r#"{"action":"accept","content":{"ok":true}} round-1"#);

    // Tampered, made for another tool, or expired: -32602.
    let mut tampered = retry.clone();
    tampered["requestState"] = json!(std::format!("{state}-TAMPERED"));
    assert_eq!(h.call("tools/call", tampered, ALL_CAPS)["error"]["code"], -32602);
    let mut flipped = retry.clone();
    let mut bytes = state.clone().into_bytes();
    bytes[3] = if bytes[3] == b'A' { b'B' } else { b'A' };
    flipped["requestState"] = json!(String::from_utf8(bytes).unwrap());
    assert_eq!(h.call("tools/call", flipped, ALL_CAPS)["error"]["code"], -32602);
    let mut elsewhere = retry.clone();
    elsewhere["name"] = json!("roots");
    assert_eq!(h.call("tools/call", elsewhere, ALL_CAPS)["error"]["code"], -32602);
    h.now = h.now + Duration::from_secs(61);
    let expired = h.call("tools/call", retry, ALL_CAPS);
    assert_eq!(expired["error"]["code"], -32602);
    assert!(expired["error"]["message"].as_str().unwrap().contains("expired"));
}

#[test]
fn undeclared_capabilities_are_never_used() {
    let mut h = Harness::new(true);
    let refused = h.call("tools/call", json!({"name":"confirm"}), "{}");
    assert_eq!(refused["error"]["code"], -32021);
    assert_eq!(refused["error"]["data"]["requiredCapabilities"], json!({"elicitation":{"form":{}}}));
    // Tools in a sampling request need `sampling.tools`.
    let refused = h.call("tools/call", json!({"name":"sample"}), r#"{"sampling":{}}"#);
    assert_eq!(refused["error"]["data"]["requiredCapabilities"], json!({"sampling":{"tools":{}}}));
    let asked = h.call("tools/call", json!({"name":"sample"}), ALL_CAPS);
    assert_eq!(asked["result"]["inputRequests"]["s"]["method"], "sampling/createMessage");
    assert!(asked["result"].get("requestState").is_none());
}

#[test]
fn request_state_is_bounded_kept_once_and_may_stand_alone() {
    let mut h = Harness::new(false);
    let state = |len: usize, extra: Json| {
        let mut params = json!({"name":"state","arguments":{"len":len}});
        params["arguments"].as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        params
    };
    let at_limit = h.call("tools/call", state(MAX_REQUEST_STATE, json!({"ask":true})), ALL_CAPS);
    assert_eq!(at_limit["result"]["inputRequests"]["r"]["method"], "roots/list", "{at_limit}");
    assert!(at_limit["result"]["requestState"].is_string());
    let over = h.call("tools/call", state(MAX_REQUEST_STATE + 1, json!({"ask":true})), ALL_CAPS);
    assert_eq!(over["error"]["code"], -32603, "{over}");
    let twice = h.call("tools/call", state(4, json!({"ask":true,"twice":true})), ALL_CAPS);
    assert_eq!(twice["error"]["code"], -32603, "{twice}");
    // State without input requests: a well-formed answer without `inputRequests`.
    let alone = h.call("tools/call", state(4, json!({})), ALL_CAPS);
    assert_eq!(alone["result"]["resultType"], "input_required", "{alone}");
    assert!(alone["result"].get("inputRequests").is_none());
    assert!(alone["result"]["requestState"].is_string());
    // Neither: nothing to ask the client, which the engine refuses.
    let nothing = h.call("tools/call", state(0, json!({"bare":true})), ALL_CAPS);
    assert_eq!(nothing["error"]["code"], -32603, "{nothing}");
}

#[test]
fn sealed_state_up_to_the_limit_round_trips_and_longer_state_is_refused_as_too_long() {
    let mut h = Harness::new(true);
    let asked =
        h.call("tools/call", json!({"name":"state","arguments":{"len":MAX_REQUEST_STATE,"ask":true}}), ALL_CAPS);
    let sealed = asked["result"]["requestState"].clone();
    assert!(sealed.is_string(), "{asked}");
    // The retry opens it (and the handler, given no answer, asks again with the same state).
    let retried = h.call(
        "tools/call",
        json!({"name":"state","arguments":{"len":MAX_REQUEST_STATE,"ask":true},"requestState":sealed}),
        ALL_CAPS,
    );
    assert_eq!(retried["result"]["resultType"], "input_required", "{retried}");
    // State longer than any this server seals: too long, before any verification.
    let long = "A".repeat((MAX_SEALED_STATE + 3) / 3 * 4);
    let refused = h.call("tools/call", json!({"name":"confirm","requestState":long}), ALL_CAPS);
    assert_eq!(refused["error"]["code"], -32602);
    assert_eq!(refused["error"]["message"], "Invalid params: the request state is too long");
    // An empty state seals to the shortest sealed form, which opens.
    let empty = h.call("tools/call", json!({"name":"state","arguments":{"len":0,"ask":true}}), ALL_CAPS);
    let retry = json!({"name":"state","arguments":{"len":0,"ask":true},"requestState":empty["result"]["requestState"]});
    assert_eq!(h.call("tools/call", retry, ALL_CAPS)["result"]["resultType"], "input_required");
    // Shorter than any sealed state: refused.
    let short = h.call("tools/call", json!({"name":"confirm","requestState":"AAAA"}), ALL_CAPS);
    assert_eq!(short["error"]["message"], "Invalid params: the request state failed verification");
    // HmacSealer's Debug never shows the key.
    assert_eq!(std::format!("{SEALER:?}"), "HmacSealer { lifetime: Duration { millis: 60000 }, .. }");
}

/// The bytes of a `requestState`, and a `requestState` for bytes.
fn unseal_text(state: &Json) -> Vec<u8> {
    let mut out = [0u8; MAX_SEALED_STATE];
    crate::server::seal::decode_base64(state.as_str().unwrap().as_bytes(), &mut out).unwrap().to_vec()
}

fn state_text(bytes: &[u8]) -> Json {
    let mut buf = [0u8; 2 * MAX_SEALED_STATE];
    let mut w = crate::json::JsonWriter::new(&mut buf);
    w.base64_string(bytes);
    serde_json::from_slice(w.written()).unwrap()
}

#[test]
fn a_sealed_state_is_valid_until_its_expiry_and_every_tag_byte_counts() {
    let mut h = Harness::new(true);
    let first = h.call("tools/call", json!({"name":"confirm"}), ALL_CAPS);
    let sealed = unseal_text(&first["result"]["requestState"]);
    let retry =
        |state: Json| json!({"name":"confirm","requestState":state,"inputResponses":{"ok":{"action":"accept"}}});
    // The same bit flipped in two bytes of the tag: refused (the differences do not cancel out).
    let mut forged = sealed.clone();
    let n = forged.len();
    forged[n - 1] ^= 1;
    forged[n - 2] ^= 1;
    let refused = h.call("tools/call", retry(state_text(&forged)), ALL_CAPS);
    assert_eq!(refused["error"]["message"], "Invalid params: the request state failed verification");
    // Valid through the expiry instant itself, expired a millisecond later.
    h.now = h.now + SEALER_LIFETIME;
    assert_eq!(h.call("tools/call", retry(state_text(&sealed)), ALL_CAPS)["result"]["resultType"], "complete");
    h.now = h.now + Duration::from_millis(1);
    let expired = h.call("tools/call", retry(state_text(&sealed)), ALL_CAPS);
    assert_eq!(expired["error"]["message"], "Invalid params: the request state has expired");
}

#[test]
fn several_rounds_and_missing_input_ask_again() {
    let mut h = Harness::new(true);
    let r1 = h.call("tools/call", json!({"name":"rounds"}), ALL_CAPS);
    let s1 = r1["result"]["requestState"].clone();
    assert!(r1["result"]["inputRequests"].get("a").is_some());
    // The retry lacks the answer: asked again, with the same state.
    let again = h.call("tools/call", json!({"name":"rounds","requestState":s1}), ALL_CAPS);
    assert!(again["result"]["inputRequests"].get("a").is_some());
    // An answer that is not a result object is no answer: asked again too.
    let bad = h.call("tools/call", json!({"name":"rounds","requestState":s1,"inputResponses":{"a":12345}}), ALL_CAPS);
    assert!(bad["result"]["inputRequests"].get("a").is_some(), "{bad}");
    let roots = json!({"roots":[]});
    let r2 = h.call("tools/call", json!({"name":"rounds","requestState":s1,"inputResponses":{"a":roots}}), ALL_CAPS);
    assert!(r2["result"]["inputRequests"].get("b").is_some());
    let s2 = r2["result"]["requestState"].clone();
    let r3 = h.call(
        "tools/call",
        json!({"name":"rounds","requestState":s2,"inputResponses":{"b":roots,"extra":1}}),
        ALL_CAPS,
    );
    assert_eq!(r3["result"]["content"][0]["text"], "three rounds");
    assert_eq!(r3["result"]["resultType"], "complete");
}

#[test]
fn prompts_and_resources_ask_too_and_bad_input_fields_are_refused() {
    let mut h = Harness::new(false);
    let asked = h.call("prompts/get", json!({"name":"ask"}), ALL_CAPS);
    assert_eq!(asked["result"]["resultType"], "input_required");
    let done = h.call("prompts/get", json!({"name":"ask","inputResponses":{"x":{"roots":[]}}}), ALL_CAPS);
    assert_eq!(done["result"]["messages"][0]["content"]["text"], "answered");
    let asked = h.call("resources/read", json!({"uri":"test://ask"}), ALL_CAPS);
    assert_eq!(asked["result"]["inputRequests"]["x"]["method"], "roots/list");
    let done = h.call("resources/read", json!({"uri":"test://ask","inputResponses":{"x":{"roots":[]}}}), ALL_CAPS);
    assert_eq!(done["result"]["contents"][0]["text"], "answered");
    for bad in [
        json!({"name":"ask","inputResponses":[1]}),
        json!({"name":"ask","requestState":7}),
        json!({"name":"ask","requestState":"!!"}),
    ] {
        assert_eq!(h.call("prompts/get", bad.clone(), ALL_CAPS)["error"]["code"], -32602, "{bad}");
    }
    // Without a sealer the state is plain base64: what the client sends back is taken as is.
    let r1 = h.call("tools/call", json!({"name":"rounds"}), ALL_CAPS);
    assert_eq!(r1["result"]["requestState"], "MQ==");
    let forged =
        h.call("tools/call", json!({"name":"rounds","requestState":"Mg==","inputResponses":{"b":{}}}), ALL_CAPS);
    assert_eq!(forged["result"]["content"][0]["text"], "three rounds");
}

#[test]
fn a_modern_answer_keeps_no_key_and_takes_a_long_one() {
    let mut h = Harness::new(false);
    let len = crate::server::MAX_INPUT_KEY_LEN + 1;
    let answer = h.call("tools/call", json!({"name":"key","arguments":{"len":len}}), ALL_CAPS);
    assert_eq!(answer["result"]["resultType"], "input_required", "{answer}");
    assert!(answer["result"]["inputRequests"]["k".repeat(len)].is_object(), "{answer}");
}
