//! Deferred requests asking for input: the 2026-07-28 input-required answer
//! ([`Engine::reply_input`]) and legacy requests to the client ([`Engine::request_input`]).

use std::string::{String, ToString};
use std::vec::Vec;

use serde_json::{Value as Json, json};

use super::*;
use crate::connection::Connection;
use crate::endpoint::{OutboundKey, Outcome, SendError};
use crate::time::{Duration, Instant};

static TOOLS: [Tool<'static>; 1] = [Tool::new("later", "Deferred, asks for input", "{}")];

const FORM: &str = r#"{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}"#;
const ALL_CAPS: &str = r#"{"elicitation":{},"sampling":{},"roots":{}}"#;
static SEALER: HmacSealer = HmacSealer::new([7; 32], Duration::from_secs(60));

/// Defers every call; a retry that carries the answer `ok` is answered at once with it and the
/// state it opened.
#[derive(Default)]
struct Deferrer {
    deferred: Vec<Deferred>,
    responses: Vec<(OutboundKey, String)>,
}

impl Handler for Deferrer {
    const TOOLS: &'static [Tool<'static>] = &TOOLS;

    fn call_tool(&mut self, call: ToolCall<'_>, reply: ToolReply<'_>) {
        let ctx = call.context;
        if let Some(answer) = ctx.input("ok") {
            let state = String::from_utf8_lossy(ctx.request_state.unwrap_or_default()).into_owned();
            let answer = String::from_utf8_lossy(answer.as_bytes()).into_owned();
            return reply.text(&std::format!("{answer} {state}")).finish();
        }
        if let Ok(deferred) = reply.defer() {
            self.deferred.push(deferred);
        }
    }

    fn on_response(&mut self, _now: Instant, response: crate::endpoint::Response<'_>) {
        let outcome = match response.outcome {
            Outcome::Result(value) => String::from_utf8_lossy(value.as_bytes()).into_owned(),
            other => std::format!("{other:?}"),
        };
        self.responses.push((response.request, outcome));
    }
}

struct Harness {
    server: Server<'static, Deferrer, 4, 2>,
    now: Instant,
}

impl Harness {
    fn new() -> Self {
        let mut config = Config::new("deferrer", "1");
        config.state_sealer = Some(&SEALER);
        config.request_timeout = Some(Duration::from_millis(500));
        let buffers = Buffers { rx: std::vec![0u8; 4096].leak(), tx: std::vec![0u8; 4096].leak() };
        Harness { server: Server::new(Deferrer::default(), config, buffers), now: Instant::from_millis(1_000) }
    }

    fn legacy(caps: &str) -> Self {
        let mut h = Harness::new();
        h.send(&json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25",
            "capabilities":serde_json::from_str::<Json>(caps).unwrap(),"clientInfo":{"name":"c","version":"1"}}}));
        h.send(&json!({"jsonrpc":"2.0","method":"notifications/initialized"}));
        h
    }

    fn send(&mut self, message: &Json) -> Vec<Json> {
        super::tests_wire::send_json(&mut self.server, self.now, message)
    }

    fn drain(&mut self) -> Vec<Json> {
        super::tests_wire::drain_json(&mut self.server, self.now)
    }

    /// Calls `later` in 2026-07-28 with `caps` and `extra` params; the deferred handle.
    fn call_modern(&mut self, caps: &str, extra: Json) -> Vec<Json> {
        let mut params = json!({"name":"later","arguments":{}, "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": serde_json::from_str::<Json>(caps).unwrap(),
        }});
        for (key, value) in extra.as_object().unwrap() {
            params[key] = value.clone();
        }
        self.send(&json!({"jsonrpc":"2.0","id":5,"method":"tools/call","params":params}))
    }

    fn take_deferred(&mut self) -> Deferred {
        self.server.parts_mut().1.deferred.pop().expect("a deferred call")
    }
}

#[test]
fn a_deferred_modern_call_answers_input_required_and_its_retry_opens_the_sealed_state() {
    let mut h = Harness::new();
    assert!(h.call_modern(ALL_CAPS, json!({})).is_empty());
    let deferred = h.take_deferred();
    // Not the legacy way.
    let ask = InputRequest::ElicitForm { message: "Sure?", requested_schema: FORM };
    assert_eq!(h.server.request_input(h.now, &deferred, ask), Err(SendError::NotAvailable));
    let now = h.now;
    let reply = h.server.reply_input(now, &deferred, "later").unwrap();
    reply.request("ok", ask).state(b"kept").finish();
    let out = h.drain();
    assert_eq!(out.len(), 1, "{out:?}");
    let result = &out[0]["result"];
    assert_eq!(out[0]["id"], 5);
    assert_eq!(result["resultType"], "input_required");
    assert_eq!(result["inputRequests"]["ok"]["method"], "elicitation/create");
    let state = result["requestState"].clone();
    assert!(state.is_string());
    // Answered: the handle is spent.
    assert!(matches!(h.server.reply_tool(&deferred), Err(ReplyError::Unknown)));
    // The retry is a new request; the state opens because it was sealed for `tools/call` `later`.
    let retry = h.call_modern(
        ALL_CAPS,
        json!({"inputResponses":{"ok":{"action":"accept","content":{"ok":true}}},"requestState":state}),
    );
    assert_eq!(retry[0]["result"]["content"][0]["text"], r#"{"action":"accept","content":{"ok":true}} kept"#);
}

#[test]
fn a_deferred_modern_call_asks_only_what_its_client_declared() {
    let mut h = Harness::new();
    h.call_modern("{}", json!({}));
    let deferred = h.take_deferred();
    let now = h.now;
    let ask = InputRequest::ElicitForm { message: "Sure?", requested_schema: FORM };
    h.server.reply_input(now, &deferred, "later").unwrap().request("ok", ask).finish();
    let out = h.drain();
    assert_eq!(out[0]["error"]["code"], -32021, "{out:?}");
    assert_eq!(out[0]["error"]["data"]["requiredCapabilities"], json!({"elicitation":{"form":{}}}));
}

#[test]
fn a_deferred_legacy_call_asks_the_client_and_its_answer_reaches_the_handler() {
    let mut h = Harness::legacy(r#"{"elicitation":{}}"#);
    assert!(h.send(&json!({"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"later"}})).is_empty());
    let deferred = h.take_deferred();
    let now = h.now;
    assert!(matches!(h.server.reply_input(now, &deferred, "later"), Err(ReplyError::NotAvailable)));
    // Refused before anything is written: undeclared, malformed.
    assert_eq!(h.server.request_input(now, &deferred, InputRequest::ListRoots), Err(SendError::MissingCapability));
    let bad = InputRequest::ElicitForm { message: "?", requested_schema: "{" };
    assert_eq!(h.server.request_input(now, &deferred, bad), Err(SendError::Malformed));
    assert!(h.drain().is_empty());
    let ask = InputRequest::ElicitForm { message: "Sure?", requested_schema: FORM };
    let key = h.server.request_input(now, &deferred, ask).unwrap();
    let out = h.drain();
    assert_eq!(out.len(), 1, "{out:?}");
    assert_eq!(out[0]["method"], "elicitation/create");
    assert_eq!(out[0]["params"]["message"], "Sure?");
    assert_eq!(out[0]["params"]["requestedSchema"], serde_json::from_str::<Json>(FORM).unwrap());
    let answer = json!({"jsonrpc":"2.0","id":out[0]["id"],"result":{"action":"decline"}});
    assert!(h.send(&answer).is_empty());
    let responses = &h.server.parts_mut().1.responses;
    assert_eq!(responses.as_slice(), [(key, r#"{"action":"decline"}"#.to_string())]);
    h.server.reply_tool(&deferred).unwrap().text("declined").finish();
    let out = h.drain();
    assert_eq!(out[0]["id"], 9);
    assert_eq!(out[0]["result"]["content"][0]["text"], "declined");
}

#[test]
fn a_legacy_input_request_times_out_and_ends_with_its_deferred_request() {
    let mut h = Harness::legacy(ALL_CAPS);
    h.send(&json!({"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"later"}}));
    let deferred = h.take_deferred();
    let key = h.server.request_input(h.now, &deferred, InputRequest::ListRoots).unwrap();
    assert_eq!(h.drain()[0]["method"], "roots/list");
    h.now = h.now + Duration::from_millis(600);
    let now = h.now;
    h.server.handle_timeout(now);
    let responses = &h.server.parts_mut().1.responses;
    assert_eq!(responses.len(), 1);
    assert_eq!(responses[0].0, key);
    assert!(responses[0].1.contains("TimedOut"), "{responses:?}");
    // A cancelled deferred request cannot ask any more.
    h.send(&json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}}));
    assert_eq!(h.server.request_input(now, &deferred, InputRequest::ListRoots), Err(SendError::NotAvailable));
}
