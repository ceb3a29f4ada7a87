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
//! Tasks (the 2026-07-28 extension `io.modelcontextprotocol/tasks`, when the server has a task
//! table): `tasks/get`, `tasks/update` and `tasks/cancel` exist only then (`-32601` otherwise); from a
//! request that does not declare the extension in its client capabilities they are `-32021`; a
//! `taskId` that is not a string, or names no task the table can have made, is `-32602`, and so is a
//! `tasks/update` whose `inputResponses` is not an object (for a task found and for none alike). A
//! tool that runs only as a task (`TaskSupport::Required`) called without the extension, or with no
//! table, is `-32021`. `tasks/result` and `tasks/list` are not 2026-07-28 methods (`-32601`).
//!
//! Kept apart from the target's driver (`engine/`) so that new engine operations there and new
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
/// Methods a 2026-07-28 server with a task table has besides.
const TASK_METHODS: [&str; 3] = ["tasks/get", "tasks/update", "tasks/cancel"];
const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// What the oracle knows about the connection when the message arrived.
#[derive(Clone, Copy, Debug)]
pub struct Context {
    /// Whether a legacy session may exist: some line before this one might have been an `initialize`.
    /// When `false`, every legacy request but `ping` and `initialize` must be refused.
    pub session_possible: bool,
    /// Whether the server has a task table.
    pub task_table: bool,
    /// Whether a task id (unescaped) may name a task the table made: the shape of the table's ids.
    pub possible_task_id: fn(&str) -> bool,
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
    let task_method = context.task_table && TASK_METHODS.contains(&method.as_str());
    if !MODERN_METHODS.contains(&method.as_str()) && !task_method {
        return Some(code::METHOD_NOT_FOUND);
    }
    // Whether the request declared the tasks extension, and the server can make tasks.
    let extensions = meta.get(META_CLIENT_CAPABILITIES).and_then(|c| c.get("extensions"));
    let declared = extensions
        .filter(|e| e.kind() == Kind::Object)
        .and_then(|e| e.get(TASKS_EXTENSION))
        .is_some_and(|t| t.kind() == Kind::Object);
    let tasks = Tasks { possible: context.task_table && declared, possible_id: context.possible_task_id };
    if task_method {
        return task_request(&method, params, tasks);
    }
    modern(&method, params, handler, tasks)
}

/// What the oracle knows of tasks for one 2026-07-28 request.
#[derive(Clone, Copy)]
struct Tasks {
    /// The server has a task table and the request declared the extension.
    possible: bool,
    /// Whether a task id may name a task of the table's.
    possible_id: fn(&str) -> bool,
}

/// `tasks/get`, `tasks/update` or `tasks/cancel` to a server with a task table.
fn task_request(method: &str, params: Option<Value<'_>>, tasks: Tasks) -> Option<i32> {
    if !tasks.possible {
        return Some(code::MISSING_CLIENT_CAPABILITY);
    }
    let param = |key| params.and_then(|p| p.get(key));
    let Some(task) = param("taskId").and_then(|t| t.as_str()) else { return Some(code::INVALID_PARAMS) };
    let task: String = task.chars().collect();
    let not_object = param("inputResponses").is_none_or(|r| r.kind() != Kind::Object);
    let refused = !(tasks.possible_id)(&task) || (method == "tasks/update" && not_object);
    // A task id that may be one of the table's: whether it is still kept is the engine's state.
    refused.then_some(code::INVALID_PARAMS)
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
fn modern<H: Handler>(method: &str, params: Option<Value<'_>>, handler: &H, tasks: Tasks) -> Option<i32> {
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
            let Some(tool) = (0..).map_while(|i| handler.tool(i)).find(|t| t.name == name) else {
                return Some(code::INVALID_PARAMS);
            };
            if arguments_not_object() {
                return Some(code::INVALID_PARAMS);
            }
            // A tool that runs only as a task, where the call cannot be one: refused before it runs.
            must_be_task(&tool).then_some(code::MISSING_CLIENT_CAPABILITY).filter(|_| !tasks.possible)
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

/// Whether `tool` runs only as a task.
#[cfg(feature = "tasks")]
fn must_be_task(tool: &mcp_sansio::server::Tool<'_>) -> bool {
    tool.task_support == mcp_sansio::mcp::TaskSupport::Required
}

#[cfg(not(feature = "tasks"))]
fn must_be_task(_: &mcp_sansio::server::Tool<'_>) -> bool {
    false
}
