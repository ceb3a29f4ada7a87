//! Input from the client: the 2026-07-28 multi-round-trip requests (input requests, sealed request
//! state, capability checks; `modern`) and a legacy session's server-to-client requests (`legacy`),
//! over one handler that asks.

mod legacy;
mod modern;

use std::borrow::ToOwned;
use std::string::String;
use std::vec::Vec;

use super::*;
use crate::connection::Connection;
use crate::time::{Duration, Instant};

static TOOLS: [Tool<'static>; 9] = [
    Tool::new("confirm", "Asks the user", "{}"),
    Tool::new("sample", "Asks the model, with tools", "{}"),
    Tool::new("sample_fmt", "Asks the model with the message `n` (and tools if `tools`), formatted", "{}"),
    Tool::new("rounds", "Three rounds", "{}"),
    Tool::new("quoted", "Asks for the roots twice, under keys that need escapes", "{}"),
    Tool::new("roots", "Lists roots", "{}"),
    Tool::new("many", "Asks for the roots `n` times at once", "{}"),
    Tool::new("key", "Asks for the roots under a key of `len` bytes", "{}"),
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
            "key" => {
                let len = call.argument("len").and_then(|v| v.as_i64()).unwrap_or(1) as usize;
                reply.input_required().request(&"k".repeat(len), InputRequest::ListRoots).finish()
            }
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

/// Every input capability a client can declare.
const ALL_CAPS: &str = r#"{"elicitation":{},"sampling":{"tools":{}},"roots":{}}"#;
