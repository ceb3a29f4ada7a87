//! Oracle for the `engine` target: the exact JSON-RPC error code of a request whose answer the message
//! alone determines, checked beside the invariants (which accept any code in -32800..-32000).
//!
//! The rules here are written from the README's "Protocol behaviour" table and the spec, not from the
//! engine's code: a malformed envelope is `-32600`; `params` or `_meta` that are not objects, modern
//! `_meta` without a string `protocolVersion` or an object `clientCapabilities`, an unknown tool or
//! prompt, tool `arguments` that are not an object, a prompt argument that is not a string or a missing
//! required one, a malformed cursor, and a legacy request before any `initialize` are `-32602`; an
//! unsupported modern version is `-32022`; a modern `logLevel` that is not a level is `-32602`; a modern
//! request for a method 2026-07-28 does not have is `-32601`. Whatever depends on more (results, handler answers, windows too small for a result,
//! legacy sessions) is left undetermined (`None`).
//!
//! Kept apart from the target's driver (`engine.rs`) so that new engine operations there and new
//! rules here merge independently.

use mcp_sansio::json::{JsonStr, Kind, Value};
use mcp_sansio::jsonrpc::code;
use mcp_sansio::server::{Handler, MAX_ESCAPED_NAME_LEN};

const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
const META_CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
const META_CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
/// The one modern version.
const MODERN: &str = "2026-07-28";
/// Methods a 2026-07-28 server has (tools, resources, prompts and completions are all served by the
/// fuzz handler).
const MODERN_METHODS: [&str; 10] = [
    "completion/complete",
    "subscriptions/listen",
    "server/discover",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "prompts/list",
    "prompts/get",
];
const LIST_METHODS: [&str; 4] = ["tools/list", "resources/list", "resources/templates/list", "prompts/list"];

/// What the oracle knows about the connection when the message arrived.
#[derive(Clone, Copy, Debug)]
pub struct Context {
    /// Whether a legacy session may exist: some line before this one might have been an `initialize`.
    /// When `false`, every legacy request but `ping` and `initialize` must be refused.
    pub session_possible: bool,
}

/// A string, unescaped, when it is at most `limit` bytes long or has no escapes (the engine unescapes
/// names into fixed buffers). `Err(())` when it has escapes and is longer.
fn unescaped(s: JsonStr<'_>, limit: usize) -> Result<String, ()> {
    let text: String = s.chars().collect();
    if s.as_plain().is_none() && text.len() > limit { Err(()) } else { Ok(text) }
}

/// The code the engine must answer `message` (one whole message, not part of a batch, within the
/// frame and depth limits, with a usable id) with, or `None` when it is not determined by the message.
pub fn expected_code<H: Handler>(message: Value<'_>, handler: &H, context: Context) -> Option<i32> {
    if message.kind() != Kind::Object {
        return None;
    }
    // Only messages with an id the answer can carry: an integer or a string.
    let id = message.get("id")?;
    if !(id.kind() == Kind::String || (id.kind() == Kind::Number && id.as_i64().is_some())) {
        return None;
    }
    if !message.get("jsonrpc").and_then(|v| v.as_str()).is_some_and(|v| v.eq_str("2.0")) {
        return Some(code::INVALID_REQUEST);
    }
    let Some(method) = message.get("method") else {
        let result = message.get("result");
        let error = message.get("error");
        return match (result, error) {
            // A response or error from the client: not answered.
            (Some(_), None) => None,
            (None, Some(error)) if error.kind() == Kind::Object => None,
            _ => Some(code::INVALID_REQUEST),
        };
    };
    let Some(method) = method.as_str() else { return Some(code::INVALID_REQUEST) };
    // The engine reads method names into 64 bytes; a longer escaped one names no method.
    let method = unescaped(method, 64).unwrap_or_default();
    let params = message.get("params");
    if params.is_some_and(|p| p.kind() != Kind::Object) {
        return Some(code::INVALID_PARAMS);
    }
    let meta = params.and_then(|p| p.get("_meta"));
    if meta.is_some_and(|m| m.kind() != Kind::Object) {
        return Some(code::INVALID_PARAMS);
    }
    let is_modern = meta.is_some_and(|m| {
        [META_PROTOCOL_VERSION, META_CLIENT_CAPABILITIES, META_CLIENT_INFO].iter().any(|key| m.get(key).is_some())
    });
    if !is_modern {
        return legacy(&method, params, context);
    }
    let meta = meta?;
    let Some(version) = meta.get(META_PROTOCOL_VERSION).and_then(|v| v.as_str()) else {
        return Some(code::INVALID_PARAMS);
    };
    if meta.get(META_CLIENT_CAPABILITIES).is_none_or(|c| c.kind() != Kind::Object) {
        return Some(code::INVALID_PARAMS);
    }
    if unescaped(version, 32).ok().as_deref() != Some(MODERN) {
        return Some(code::UNSUPPORTED_PROTOCOL_VERSION);
    }
    // A log level the request opts into must be one (part of the `_meta` envelope, checked with it).
    if let Some(level) = meta.get("io.modelcontextprotocol/logLevel") {
        const LEVELS: [&str; 8] = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];
        let valid = level.as_str().and_then(|l| unescaped(l, 16).ok()).is_some_and(|l| LEVELS.contains(&l.as_str()));
        if !valid {
            return Some(code::INVALID_PARAMS);
        }
    }
    if !MODERN_METHODS.contains(&method.as_str()) {
        return Some(code::METHOD_NOT_FOUND);
    }
    modern(&method, params, handler)
}

/// A legacy request (no modern `_meta`).
fn legacy(method: &str, params: Option<Value<'_>>, context: Context) -> Option<i32> {
    match method {
        "initialize" => {
            let version = params.and_then(|p| p.get("protocolVersion"));
            version.is_none_or(|v| v.kind() != Kind::String).then_some(code::INVALID_PARAMS)
        }
        // Answered before and in a session.
        "ping" => None,
        // Before any `initialize`: refused, naming both ways in.
        _ if !context.session_possible => Some(code::INVALID_PARAMS),
        _ => None,
    }
}

/// A valid 2026-07-28 request for a method the server has.
fn modern<H: Handler>(method: &str, params: Option<Value<'_>>, handler: &H) -> Option<i32> {
    let param = |key| params.and_then(|p| p.get(key));
    if LIST_METHODS.contains(&method) {
        let cursor = param("cursor").filter(|c| !c.is_null())?;
        let digits = cursor
            .as_str()
            .and_then(|s| s.as_plain())
            .filter(|s| !s.is_empty() && s.len() <= 19 && s.bytes().all(|b| b.is_ascii_digit()));
        return match digits.and_then(|s| s.parse::<usize>().ok()) {
            None => Some(code::INVALID_PARAMS),
            // A well-formed cursor past the end is refused as well, but which end depends on the list.
            Some(_) => None,
        };
    }
    let name = |key| match param(key).and_then(|v| v.as_str()) {
        None => Err(()),
        Some(s) => unescaped(s, MAX_ESCAPED_NAME_LEN),
    };
    let arguments_not_object = || param("arguments").is_some_and(|a| !a.is_null() && a.kind() != Kind::Object);
    match method {
        "tools/call" => {
            let Ok(name) = name("name") else { return Some(code::INVALID_PARAMS) };
            let known = (0..).map_while(|i| handler.tool(i)).any(|t| t.name == name);
            (!known || arguments_not_object()).then_some(code::INVALID_PARAMS)
        }
        "prompts/get" => {
            let Ok(name) = name("name") else { return Some(code::INVALID_PARAMS) };
            let Some(prompt) = (0..).map_while(|i| handler.prompt(i)).find(|p| p.name == name) else {
                return Some(code::INVALID_PARAMS);
            };
            if arguments_not_object() {
                return Some(code::INVALID_PARAMS);
            }
            let arguments = param("arguments").filter(|a| !a.is_null());
            let not_string = arguments.into_iter().flat_map(|a| a.members()).any(|(_, v)| v.kind() != Kind::String);
            let missing =
                prompt.arguments.iter().any(|arg| arg.required && arguments.and_then(|a| a.get(arg.name)).is_none());
            (not_string || missing).then_some(code::INVALID_PARAMS)
        }
        // A URI that is not a string, or too long with escapes; what a readable one gets is the
        // handler's answer.
        "resources/read" => name("uri").is_err().then_some(code::INVALID_PARAMS),
        // A listen stream needs its filter (whether a slot is free is the engine's state).
        "subscriptions/listen" => {
            param("notifications").is_none_or(|n| n.kind() != Kind::Object).then_some(code::INVALID_PARAMS)
        }
        _ => None,
    }
}
