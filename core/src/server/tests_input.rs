//! Multi-round-trip requests (2026-07-28): input requests, sealed request state, capability checks.

use std::borrow::ToOwned;
use std::string::{String, ToString};
use std::vec::Vec;

use serde_json::{Value as Json, json};

use super::*;
use crate::connection::Connection;
use crate::time::{Duration, Instant};

static TOOLS: [Tool<'static>; 8] = [
    Tool::new("confirm", "Asks the user", "{}"),
    Tool::new("sample", "Asks the model, with tools", "{}"),
    Tool::new("sample_fmt", "Asks the model with the message `n` (and tools if `tools`), formatted", "{}"),
    Tool::new("rounds", "Three rounds", "{}"),
    Tool::new("quoted", "Asks for the roots twice, under keys that need escapes", "{}"),
    Tool::new("roots", "Lists roots", "{}"),
    Tool::new("many", "Asks for the roots `n` times at once", "{}"),
    Tool::new(
        "state",
        "Keeps `len` bytes of state (twice if `twice`, none if `bare`), asking nothing unless `ask`",
        "{}",
    ),
];
static PROMPTS: [Prompt<'static>; 1] = [Prompt::new("ask", &[])];
static RESOURCES: [Resource<'static>; 1] = [Resource::new("test://ask", "ask")];

const FORM: &str = r#"{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}"#;

#[derive(Default)]
struct Asker {
    /// What [`Handler::on_response`] was told (the engine's own input requests must not reach it).
    responses: Vec<String>,
}

fn text_of(value: Option<crate::json::Value<'_>>) -> String {
    value.map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned()).unwrap_or_default()
}

impl Handler for Asker {
    const TOOLS: &'static [Tool<'static>] = &TOOLS;
    const PROMPTS: &'static [Prompt<'static>] = &PROMPTS;
    const RESOURCES: &'static [Resource<'static>] = &RESOURCES;

    fn call_tool(&mut self, call: ToolCall<'_>, reply: ToolReply<'_>) {
        let ctx = call.context;
        match call.name {
            "confirm" => match ctx.input("ok") {
                Some(answer) => {
                    let state = String::from_utf8_lossy(ctx.request_state.unwrap_or_default()).into_owned();
                    reply.text(&std::format!("{} {state}", text_of(Some(answer)))).finish()
                }
                None => reply
                    .input_required()
                    .request("ok", InputRequest::ElicitForm { message: "Sure?", requested_schema: FORM })
                    .state(b"round-1")
                    .finish(),
            },
            "sample" => reply
                .input_required()
                .request("s", InputRequest::Sample { params: r#"{"messages":[],"maxTokens":5,"tools":[]}"# })
                .finish(),
            "sample_fmt" => match ctx.input("s") {
                Some(answer) => reply.text(&text_of(answer.get("content").and_then(|c| c.get("text")))).finish(),
                None => {
                    // A string argument is written as its text (to break the JSON), any other as JSON.
                    let n = call.argument("n").map(|v| match v.as_str().and_then(|s| s.as_plain()) {
                        Some(text) => text.to_owned(),
                        None => String::from_utf8_lossy(v.as_bytes()).into_owned(),
                    });
                    let n = n.unwrap_or_default();
                    let tools = if call.argument("tools").is_some() { r#","tools":[]"# } else { "" };
                    reply
                        .input_required()
                        .sample_fmt("s", format_args!(r#"{{"messages":[{n}],"maxTokens":5{tools}}}"#))
                        .finish()
                }
            },
            "many" if ctx.input("k0").is_some() => {
                reply.text(&std::format!("k0={} k1={}", text_of(ctx.input("k0")), text_of(ctx.input("k1")))).finish()
            }
            "many" => {
                let n = call.argument("n").and_then(|v| v.as_i64()).unwrap_or(0);
                let mut reply = reply.input_required();
                for key in ["k0", "k1", "k2", "k3"].iter().take(n as usize) {
                    reply = reply.request(key, InputRequest::ListRoots);
                }
                reply.finish()
            }
            "state" => {
                let len = call.argument("len").and_then(|v| v.as_i64()).unwrap_or(0) as usize;
                let flag = |name| call.argument(name).and_then(|v| v.as_bool()).unwrap_or(false);
                let mut reply = reply.input_required();
                if flag("ask") {
                    reply = reply.request("r", InputRequest::ListRoots);
                }
                let state = "s".repeat(len);
                if !flag("bare") {
                    reply = reply.state(state.as_bytes());
                }
                if flag("twice") {
                    reply = reply.state(b"again");
                }
                reply.finish()
            }
            "quoted" => match (ctx.input("say \"hi\""), ctx.input("back\\slash")) {
                (Some(a), Some(b)) => reply.text(&std::format!("{} {}", text_of(Some(a)), text_of(Some(b)))).finish(),
                _ => reply
                    .input_required()
                    .request("say \"hi\"", InputRequest::ListRoots)
                    .request("back\\slash", InputRequest::ListRoots)
                    .finish(),
            },
            "roots" => match ctx.input("r") {
                Some(roots) => reply.text(&text_of(roots.get("roots"))).finish(),
                None => reply.input_required().request("r", InputRequest::ListRoots).finish(),
            },
            _ => {
                // Round 1 asks `a`; round 2 (state "1") asks `b`; round 3 (state "2") answers.
                match ctx.request_state {
                    None => reply.input_required().request("a", InputRequest::ListRoots).state(b"1").finish(),
                    Some(b"1") if ctx.input("a").is_some() => {
                        reply.input_required().request("b", InputRequest::ListRoots).state(b"2").finish()
                    }
                    Some(b"2") if ctx.input("b").is_some() => reply.text("three rounds").finish(),
                    // Missing input: ask again, as the spec advises.
                    Some(state) => {
                        let key = if state == b"1" { "a" } else { "b" };
                        reply.input_required().request(key, InputRequest::ListRoots).state(state).finish()
                    }
                }
            }
        }
    }

    fn on_response(&mut self, _now: Instant, response: crate::endpoint::Response<'_>) {
        self.responses.push(std::format!("{:?}", response.outcome));
    }

    fn get_prompt(&mut self, get: PromptGet<'_>, reply: PromptReply<'_>) {
        match get.context.input("x") {
            Some(_) => reply.text(Role::User, "answered").finish(),
            None => reply.input_required().request("x", InputRequest::ListRoots).finish(),
        }
    }

    fn read_resource(&mut self, read: ResourceRead<'_>, reply: ResourceReply<'_>) {
        match read.context.input("x") {
            Some(_) => reply.text(read.uri, None, "answered").finish(),
            None => reply.input_required().request("x", InputRequest::ListRoots).finish(),
        }
    }
}

const SEALER_LIFETIME: Duration = Duration::from_secs(60);
static SEALER: HmacSealer = HmacSealer::new([42; 32], SEALER_LIFETIME);

struct Harness {
    server: Server<'static, Asker>,
    now: Instant,
}

const ALL_CAPS: &str = r#"{"elicitation":{},"sampling":{"tools":{}},"roots":{}}"#;

impl Harness {
    fn new(sealed: bool) -> Self {
        let mut config = Config::new("asker", "1");
        if sealed {
            config.state_sealer = Some(&SEALER);
        }
        let buffers = Buffers { rx: std::vec![0u8; 4096].leak(), tx: std::vec![0u8; 4096].leak() };
        Harness { server: Server::new(Asker::default(), config, buffers), now: Instant::from_millis(1_000) }
    }

    fn call(&mut self, method: &str, params: Json, caps: &str) -> Json {
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
        let line = message.to_string() + "\n";
        assert_eq!(self.server.handle_input(self.now, line.as_bytes()), line.len());
        self.drain()
    }

    fn drain(&mut self) -> Vec<Json> {
        let mut out = Vec::new();
        while let Some(bytes) = self.server.poll_transmit() {
            out.extend_from_slice(bytes);
            let n = bytes.len();
            self.server.transmit_done(self.now, n);
        }
        out.split(|&b| b == b'\n').filter(|l| !l.is_empty()).map(|l| serde_json::from_slice(l).unwrap()).collect()
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
