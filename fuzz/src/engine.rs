//! Target `engine`: the server engine driven by a sequence of operations, in both protocol eras.
//!
//! Input: four configuration bytes (receive and transmit buffer sizes, response and page limits,
//! depth limit; in their spare bits the task table: 1 to 3 slots of 200 to 4,096 bytes each or no
//! table, a time to live of 0 ms to an hour, a wall clock at zero or at the end of time), then
//! operations until the input ends: queue a generated message (legacy or modern request,
//! notification, cancellation, batch, corrupted line) or raw bytes; deliver queued bytes through
//! `handle_input`, `rx_spare`/`rx_commit` or one byte at a time; transmit part of the output; let
//! time pass (sometimes past every task's time to live, or back); answer, fail or drop a deferred
//! request (a task's too); let the application speak unasked (a `ping` or another request to the
//! client, list changes, resource updates, progress and log messages of deferred requests, the end
//! of listen streams); end the input. The generated messages cover the whole surface: completion,
//! `logging/setLevel`, subscriptions, listen streams, tools that log, report progress or ask for
//! input (legacy: the engine asks through its outbound table and an input buffer; 2026-07-28:
//! `InputRequiredResult` and retries with `inputResponses` and `requestState`), client answers to
//! the server's requests, and tasks (feature `tasks`, on by default here): 2026-07-28 calls with
//! and without the extension `io.modelcontextprotocol/tasks` declared (or declared wrongly) to
//! tools that may run as tasks (`ask`, `defer`) or must (`job`: answers at once, defers, asks for
//! input over one or two rounds, fails, or outgrows its share of the table), then `tasks/get`,
//! `tasks/update` (answers to the keys asked, to keys never asked, answers that are not objects,
//! escaped and duplicate keys, large answers) and `tasks/cancel` naming the task ids the server
//! handed out (read from its output), ids it never makes, escaped or capitalised ones, and
//! `tasks/result` and `tasks/list`, which 2026-07-28 lacks. Task ids come from a deterministic
//! counter. Then the run is finished: everything delivered, every deferred request answered, the
//! output drained.
//!
//! Checked after every operation:
//! - the output is a sequence of complete lines, each valid JSON (for the scanner and serde_json) and a
//!   JSON-RPC response or error, a known server notification (a listen's naming a request received)
//!   or a request to the client with an integer id, without a raw carriage return;
//! - no id is answered more often than it was received (every request is answered at most once; a
//!   `tools/call` that becomes a task is answered once, with the task); the answer a task's handler
//!   gives (at once, deferred, or run again after its input) never reaches the wire;
//! - the bytes handed out for reading and writing lie inside the caller's buffers (or the decoder's
//!   one-byte slot), so memory never grows beyond them;
//! - the engine never stalls: input it refuses means output is waiting;
//! - the deferred requests it counts are exactly the handles the application holds (a task's
//!   deferred request included; its answer may be refused as cancelled once the task was cancelled
//!   or has expired);
//! - a call becomes a task exactly when it can (`run_as_task` is refused as unavailable only when
//!   the engine has no table or the request is not a 2026-07-28 one declaring the extension; a tool
//!   that must be a task never runs where it cannot be one);
//! - a task handed out is the answer of a `tools/call`, has a table-made id, a status other than
//!   `cancelled` and nothing of its outcome; `tasks/get` tells of the task asked for, holding what
//!   its status says (`result`, `error`, `inputRequests`); a task that has ended (completed, failed,
//!   cancelled) is never seen with another status.
//! - a request whose error code the message alone determines (see [`crate::oracle`]) is answered with
//!   exactly that code.
//!
//! At the end: the engine is finished, and every request that arrived exactly once on a complete line
//! within the limits (and was never named by a cancellation) was answered exactly once; an `echo`
//! answered with a result returns the text it was sent.

use std::cell::Cell;
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::fmt;
use std::ops::Range;

use mcp_sansio::connection::Connection;
use mcp_sansio::endpoint;
use mcp_sansio::json::{JsonWriter, Kind, MAX_DEPTH_LIMIT, Value, parse};
use mcp_sansio::jsonrpc::{EnvelopeError, Id, Message, classify};
use mcp_sansio::mcp::{ListCapability, LoggingLevel, ResourceCapability, ServerCapabilities, TaskStatus, TaskSupport};
#[cfg(feature = "tasks")]
use mcp_sansio::server::tasks::{NoTask, TaskSlot, TaskTable};
use mcp_sansio::server::{
    Buffers, CacheHints, CacheScope, CompletionReply, CompletionRequest, Config, Deferred, DeferredKey, Event, Handler,
    InputRequest, Limits, ListChanged, Prompt, PromptArgument, PromptGet, PromptReply, ReplyError, ReplyKind, Resource,
    ResourceRead, ResourceReply, ResourceTemplate, Role, Server, Tool, ToolCall, ToolReply,
};
use mcp_sansio::time::Instant;

use crate::input::{Encoder, Input};
use crate::oracle;

/// Deferred requests the engine keeps at once (small, so the limit is reached).
const IN_FLIGHT: usize = 2;
/// Operations per run; the rest of a longer input is ignored.
const MAX_OPS: usize = 400;
/// Ids longer than this (as JSON text) are exempt from the exactly-once check: an error that does not
/// fit the transmit window even with the id is answered without it.
const MAX_CHECKED_ID_LEN: usize = 64;

const SCHEMA: &str = r#"{"type":"object","properties":{"text":{"type":"string"},"n":{"type":"integer"}}}"#;

/// A tool with a title, an output schema and annotations, and no description.
const STRUCTURED_TOOL: Tool<'static> = {
    let mut tool = Tool::new("structured", "", SCHEMA)
        .with_title("Structured")
        .with_output_schema(r#"{"type":"array"}"#)
        .with_annotations(mcp_sansio::server::ToolAnnotations::new().with_read_only(true).with_idempotent(false));
    tool.description = None;
    tool
};

/// `tool` with the task support `support` (without the feature `tasks`: `tool`).
const fn task_tool(tool: Tool<'static>, support: TaskSupport) -> Tool<'static> {
    #[cfg(feature = "tasks")]
    return tool.with_task_support(support);
    #[cfg(not(feature = "tasks"))]
    {
        let _ = support;
        tool
    }
}

/// The application's tools, by name; see [`FuzzHandler::call_tool`].
static TOOLS: [Tool<'static>; 13] = [
    task_tool(Tool::new("ask", "Asks the user (elicitation), then answers", SCHEMA), TaskSupport::Optional),
    Tool::new("notes", "Logs and reports progress, then answers", SCHEMA),
    Tool::new("echo", "Returns `text` zero-copy", SCHEMA),
    Tool::new("echo_fmt", "Returns `text` formatted", SCHEMA),
    task_tool(Tool::new("defer", "Answered later", SCHEMA), TaskSupport::Optional),
    Tool::new("big", "Returns `n` bytes of text", SCHEMA),
    STRUCTURED_TOOL,
    Tool::new("misorder", "Structured content after text (an application bug)", SCHEMA),
    Tool::new("image", "Returns `text` as image bytes", SCHEMA),
    Tool::new("drop", "Drops its reply (an application bug)", SCHEMA),
    Tool::new("fail", "A JSON-RPC error with code `n`", SCHEMA),
    Tool::new("error", "An isError result", SCHEMA),
    task_tool(Tool::new("job", "Runs only as a task; what it does depends on `n`", SCHEMA), TaskSupport::Required),
];

/// Listed only when the configuration asks for it: `tools/list` must fail cleanly.
const BAD_SCHEMA_TOOL: Tool<'static> = Tool::new("bad_schema", "Its schema is not JSON", "{\"type\":");

static RESOURCES: [Resource<'static>; 3] = [
    Resource::new("fz://text", "text").with_title("Text").with_mime_type("text/plain"),
    Resource::new("fz://blob", "blob").with_description("Bytes"),
    Resource::new("fz://defer", "defer"),
];

static PROMPT_ARGUMENTS: [PromptArgument<'static>; 1] = [PromptArgument::new("name", true).with_description("Who")];
static PROMPTS: [Prompt<'static>; 3] = [
    Prompt::new("hello", &PROMPT_ARGUMENTS).with_title("Hello").with_description("Greets"),
    Prompt::new("later", &[]),
    Prompt::new("fail", &[]),
];

static TEMPLATES: [ResourceTemplate<'static>; 1] = [ResourceTemplate::new("fz://t/{+x}", "t")];

const FORM: &str = r#"{"type":"object","properties":{"ok":{"type":"boolean"}}}"#;

/// `n` repetitions of a character, formatted without a buffer.
struct Repeat(usize, char);

impl fmt::Display for Repeat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for _ in 0..self.0 {
            fmt::Write::write_char(f, self.1)?;
        }
        Ok(())
    }
}

/// The application under test. It holds the handles of deferred requests.
#[derive(Default)]
struct FuzzHandler {
    bad_schema: bool,
    /// Whether the engine has a task table.
    #[cfg_attr(not(feature = "tasks"), allow(dead_code))]
    task_table: bool,
    deferred: Vec<Deferred>,
    /// The keys of the deferred requests that are tasks' (a subset of `deferred`).
    task_handles: HashSet<DeferredKey>,
    /// How often the engine told of the cancellation of a task's deferred request.
    task_cancellations: usize,
    events: usize,
}

fn argument_text(call: &ToolCall<'_>) -> Option<String> {
    call.argument("text").and_then(|v| v.as_str()).map(|s| s.chars().collect())
}

impl FuzzHandler {
    fn keep(&mut self, deferred: Result<Deferred, mcp_sansio::server::DeferError>, task: bool) {
        // On error the engine has answered already.
        if let Ok(deferred) = deferred {
            if task {
                self.task_handles.insert(deferred.key());
            }
            self.deferred.push(deferred);
        }
    }

    /// Makes the call a task where it can be one: `Some((reply, is_task))`, or `None` when a tool
    /// that runs only as a task (`required`) cannot be one and was refused as the reason says.
    /// Checks the reason against what the request declared: a call may become a task exactly when
    /// the engine has a table and the request is a 2026-07-28 one declaring the extension (a task
    /// run again after its input carries its first request's `_meta`).
    fn as_task<'r>(&self, call: &ToolCall<'_>, reply: ToolReply<'r>, required: bool) -> Option<(ToolReply<'r>, bool)> {
        #[cfg(feature = "tasks")]
        {
            let mut reply = reply;
            let may = self.task_table
                && call.context.version.era() == mcp_sansio::version::Era::Modern
                && call.context.client.tasks;
            match reply.run_as_task() {
                Ok(()) => {
                    assert!(may, "a call that cannot be a task became one");
                    Some((reply, true))
                }
                Err(why) => {
                    assert_eq!(why == NoTask::Unavailable, !may, "run_as_task refused: {why:?}");
                    if !required {
                        return Some((reply, false));
                    }
                    // The engine refuses such a call before the handler runs.
                    assert_eq!(why, NoTask::Full, "a tool that must be a task ran where it cannot be one");
                    reply.refuse_task(why);
                    None
                }
            }
        }
        #[cfg(not(feature = "tasks"))]
        {
            let _ = (call, required);
            Some((reply, false))
        }
    }

    /// The tool `job` (a task whenever it runs): by `n % 5` it answers at once, defers, asks for
    /// input (`ok` and `more`; once both are in, by `n / 5 % 3`: answers, defers, or asks `again`),
    /// fails, or answers `n` bytes (more than a task's share of the table).
    fn job(&mut self, call: &ToolCall<'_>, reply: ToolReply<'_>, n: u64, task: bool) {
        let form = InputRequest::ElicitForm { message: "Go on?", requested_schema: FORM };
        match n % 5 {
            0 => reply.text("job done").finish(),
            1 => self.keep(reply.defer(), task),
            2 => {
                let input = |key| call.context.input(key);
                if input("again").is_some() {
                    reply.text("job: second round answered").finish()
                } else if let (Some(ok), Some(_)) = (input("ok"), input("more")) {
                    match n / 5 % 3 {
                        0 => reply.text(&String::from_utf8_lossy(ok.as_bytes())).finish(),
                        1 => self.keep(reply.defer(), task),
                        _ => reply.input_required().request("again", form).state(b"round 2").finish(),
                    }
                } else {
                    reply.input_required().request("ok", form).request("more", form).state(b"round 1").finish()
                }
            }
            3 => reply.fail(-32000, "the job failed"),
            _ => reply.text_fmt(format_args!("{}", Repeat(n.min(1 << 13) as usize, 'j'))).finish(),
        }
    }
}

impl Handler for FuzzHandler {
    const RESOURCE_TEMPLATES: &'static [ResourceTemplate<'static>] = &TEMPLATES;

    fn capabilities(&self) -> ServerCapabilities {
        ServerCapabilities::NONE
            .with_tools(ListCapability { list_changed: true })
            .with_resources(ResourceCapability { subscribe: true, list_changed: true })
            .with_prompts(ListCapability { list_changed: false })
            .with_logging()
            .with_completions()
    }

    fn complete(&mut self, request: CompletionRequest<'_>, reply: CompletionReply<'_>) {
        let n = request.value.len() * 7;
        let values: Vec<String> = (0..n).map(|i| format!("{}{i}", request.value)).collect();
        reply.values(values.iter().map(String::as_str)).finish()
    }

    fn tool(&self, index: usize) -> Option<Tool<'_>> {
        TOOLS.get(index).copied().or((self.bad_schema && index == TOOLS.len()).then_some(BAD_SCHEMA_TOOL))
    }

    fn resource(&self, index: usize) -> Option<Resource<'_>> {
        RESOURCES.get(index).copied()
    }

    fn prompt(&self, index: usize) -> Option<Prompt<'_>> {
        PROMPTS.get(index).copied()
    }

    fn call_tool(&mut self, call: ToolCall<'_>, reply: ToolReply<'_>) {
        let n = call.argument("n").and_then(|v| v.as_u64()).unwrap_or(0);
        match call.name {
            "ask" => {
                let Some((reply, _)) = self.as_task(&call, reply, false) else { return };
                match call.context.input("ok") {
                    Some(answer) => reply.text(&String::from_utf8_lossy(answer.as_bytes())).finish(),
                    None => reply
                        .input_required()
                        .request("ok", InputRequest::ElicitForm { message: "Sure?", requested_schema: FORM })
                        .state(&n.to_be_bytes())
                        .finish(),
                }
            }
            "notes" => {
                let mut reply = reply;
                for step in 0..n.min(8) {
                    let _ = reply.log(LoggingLevel::ALL[step as usize % 8], Some("fz"), format_args!("step {step}"));
                    let _ = reply.progress(step, Some(8), None);
                }
                reply.text("noted").finish()
            }
            "echo" => match call.argument("text").and_then(|v| v.as_str()) {
                Some(text) => reply.text_json(text).finish(),
                None => reply.finish_error_text("\"text\" must be a string"),
            },
            "echo_fmt" => match call.argument("text").and_then(|v| v.as_str()) {
                Some(text) => reply.text_fmt(format_args!("{text}")).finish(),
                None => reply.finish_error(),
            },
            "defer" => {
                let Some((reply, task)) = self.as_task(&call, reply, false) else { return };
                self.keep(reply.defer(), task)
            }
            "job" => {
                let Some((reply, task)) = self.as_task(&call, reply, true) else { return };
                self.job(&call, reply, n, task)
            }
            "big" => reply.text_fmt(format_args!("{}", Repeat(n.min(1 << 13) as usize, 'é'))).finish(),
            "structured" => {
                let text = argument_text(&call).unwrap_or_default();
                reply.structured(&(n, text.as_str(), true)).text("done").finish()
            }
            "misorder" => reply.text("first").structured(&[1u8, 2]).finish(),
            "image" => reply.image("image/png", argument_text(&call).unwrap_or_default().as_bytes()).finish(),
            "fail" => reply.fail(n as i32, "the tool failed"),
            "error" => reply.finish_error_text(&argument_text(&call).unwrap_or_default()),
            _ => drop(reply),
        }
    }

    fn read_resource(&mut self, read: ResourceRead<'_>, reply: ResourceReply<'_>) {
        match read.uri {
            "fz://text" => reply.text(read.uri, Some("text/plain"), "line one\nline two\u{0}").finish(),
            "fz://blob" => reply
                .blob(read.uri, None, &[0, 1, 2, 0xff])
                .cache(CacheHints::new(u64::MAX, CacheScope::Public))
                .finish(),
            "fz://json" => reply.json(read.uri, &(1u8, "two", [3.5f32])).finish(),
            "fz://defer" => self.keep(reply.defer(), false),
            "fz://empty" => reply.finish(),
            "fz://fail" => reply.fail(-1, "unreadable"),
            uri => reply.not_found(uri),
        }
    }

    fn get_prompt(&mut self, get: PromptGet<'_>, reply: PromptReply<'_>) {
        match get.name {
            "hello" => {
                let name = get.argument("name");
                reply
                    .description("A greeting")
                    .text_fmt(
                        Role::User,
                        format_args!("Say hello to {}", name.map(|n| n.to_string()).unwrap_or_default()),
                    )
                    .text(Role::Assistant, "Hello!")
                    .finish()
            }
            "later" => self.keep(reply.defer(), false),
            _ => reply.fail(-32000, "no prompt today"),
        }
    }

    fn on_event(&mut self, _now: Instant, event: Event<'_>) {
        self.events += 1;
        if let Event::Cancelled { request } = event
            && self.task_handles.contains(&request)
        {
            self.task_cancellations += 1;
        }
        if let Event::Endpoint(endpoint::Event::Rejected { code, reason }) = event {
            assert!((-32800..=-32000).contains(&code), "unexpected error code {code}");
            assert!(!reason.is_empty());
        }
    }
}

/// An id as the check compares them: string ids unescaped.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum IdKey {
    Number(i64),
    String(String),
}

impl IdKey {
    fn of(id: Id<'_>) -> Self {
        match id {
            Id::Number(n) => IdKey::Number(n),
            Id::String(s) => IdKey::String(s.chars().collect()),
        }
    }
}

/// Methods the generator picks from.
const METHODS: [&str; 26] = [
    "completion/complete",
    "subscriptions/listen",
    "resources/subscribe",
    "tools/call",
    "initialize",
    "ping",
    "server/discover",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "prompts/list",
    "prompts/get",
    "notifications/initialized",
    "notifications/cancelled",
    "logging/setLevel",
    "no/such/method",
    "notifications/progress",
    "tools/call",
    "tasks/get",
    "tasks/update",
    "tasks/cancel",
    "tasks/update",
    "tasks/result",
    "tasks/list",
];

const VERSIONS: [&str; 7] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28", "1999-01-01", ""];

const TOOL_NAMES: [&str; 18] = [
    "ask",
    "notes",
    "echo",
    "echo_fmt",
    "defer",
    "big",
    "structured",
    "misorder",
    "image",
    "drop",
    "fail",
    "error",
    "bad_schema",
    "nope",
    "\\u0065cho",
    "de\\u0066er",
    "job",
    "job",
];

const URIS: [&str; 9] = [
    "fz://text",
    "fz://blob",
    "fz://json",
    "fz://defer",
    "fz://empty",
    "fz://fail",
    "fz://missing",
    "fz:\\/\\/text",
    "fz://t/a/b",
];

const MODERN_META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"fuzz","version":"1"}}"#;
/// The same, from a client that can be asked, with what a request may opt into.
const MODERN_META_ASKABLE: [&str; 3] = [
    r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{},"sampling":{},"roots":{}},"progressToken":"p"}"#,
    r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}},"io.modelcontextprotocol/logLevel":"info","progressToken":7}"#,
    r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"loud"}"#,
];
/// The same, from clients that declare the tasks extension (the first two) or seem to.
const MODERN_META_TASKS: [&str; 5] = [
    r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}},"elicitation":{}}}"#,
    r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{},"x":1}},"progressToken":"tp","io.modelcontextprotocol/logLevel":"debug"}"#,
    r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":true},"elicitation":{}}}"#,
    r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":[{"io.modelcontextprotocol/tasks":{}}]}}"#,
    r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol\/tasks":{}},"elicitation":{}}}"#,
];
/// What a client answers to the server's requests (elicitation, roots, ping).
const CLIENT_RESULTS: [&str; 4] =
    [r#"{"action":"accept","content":{"ok":true}}"#, r#"{"action":"decline"}"#, r#"{"roots":[]}"#, "{}"];

/// Generates JSON-RPC messages from the input.
#[derive(Default)]
struct Generator {
    next_id: u64,
    /// Ids generated so far (as JSON text), for cancellations and duplicates.
    ids: Vec<String>,
    /// The task ids the server handed out so far (read from its output).
    task_ids: Vec<String>,
}

fn json_text(input: &mut Input<'_>) -> String {
    serde_json::to_string(&String::from_utf8_lossy(input.chunk())).expect("strings serialize")
}

impl Generator {
    /// A `taskId` (as JSON): mostly one the server handed out, else one it never makes, one
    /// escaped or in capitals, or not a string.
    fn task_id(&self, input: &mut Input<'_>) -> String {
        let known = self.task_ids.get(input.below(self.task_ids.len().max(1))).cloned();
        match (input.below(12), known) {
            (0..=6, Some(known)) => format!("\"{known}\""),
            (7, Some(known)) => format!("\"\\u{:04x}{}\"", known.as_bytes()[0], &known[1..]),
            (8, Some(known)) => format!("\"{}\"", known.to_uppercase()),
            (9, _) => ["5", "null", "{}", "\"\"", "[\"f00d\"]"][input.below(5)].to_string(),
            (10, _) => json_text(input),
            // One the table never makes (its counter stays far below 2^31).
            _ => format!("\"{}\"", task_id_text(0x8000_0000 | u32::from(input.byte()))),
        }
    }

    /// The `inputResponses` member of a `tasks/update` (or nothing): answers to the keys the tools
    /// ask (`ok`, `more`, `again`), to keys never asked, answers that are not objects, escaped and
    /// duplicate keys, large answers, and `inputResponses` that are not an object.
    fn input_responses(input: &mut Input<'_>) -> String {
        let answer = |input: &mut Input<'_>| CLIENT_RESULTS[input.below(CLIENT_RESULTS.len())];
        let responses = match input.below(13) {
            0 => format!(r#"{{"ok":{}}}"#, answer(input)),
            1 | 2 => format!(r#"{{"ok":{},"more":{}}}"#, answer(input), answer(input)),
            3 => format!(r#"{{"more":{}}}"#, answer(input)),
            4 => format!(r#"{{"again":{},"zzz":{{}}}}"#, answer(input)),
            5 => r#"{"zzz":{}}"#.to_string(),
            6 => r#"{"ok":5,"more":"x","again":null}"#.to_string(),
            7 => "[1]".to_string(),
            8 => return String::new(),
            9 => format!(r#"{{"ok":{{"action":"accept","content":{{"note":{}}}}},"more":{{}}}}"#, json_text(input)),
            10 => format!(r#"{{"\u006fk":{},"more":{}}}"#, answer(input), answer(input)),
            11 => r#"{"ok":{},"ok":{"x":1},"more":{}}"#.to_string(),
            _ => "{}".to_string(),
        };
        format!(r#""inputResponses":{responses}"#)
    }

    fn id(&mut self, input: &mut Input<'_>) -> Option<String> {
        self.next_id += 1;
        let n = self.next_id;
        let id = match input.byte() % 12 {
            0..=3 => format!("{}", 1_000_000 + n),
            4 => format!("-{n}"),
            5 | 6 => format!("\"r{n}\""),
            7 => format!("\"\\u0072{n}\\n\""),
            8 => format!("\"{}{n}\"", "L".repeat(80)),
            9 => self.ids.get(input.below(self.ids.len())).cloned().unwrap_or_else(|| "0".into()),
            10 => ["1.5", "null", "true", "{}", "[1]", "1e2"][input.below(6)].to_string(),
            _ => return None,
        };
        self.ids.push(id.clone());
        Some(id)
    }

    fn params(&mut self, input: &mut Input<'_>, method: &str) -> String {
        let text = |input: &mut Input<'_>| json_text(input);
        match method {
            "initialize" => {
                let version = match input.below(VERSIONS.len() + 2) {
                    i if i < VERSIONS.len() => format!("\"{}\"", VERSIONS[i]),
                    i if i == VERSIONS.len() => text(input),
                    _ => "5".to_string(),
                };
                let name = text(input);
                let capabilities =
                    ["{}", r#"{"elicitation":{}}"#, r#"{"elicitation":{},"sampling":{},"roots":{}}"#][input.below(3)];
                format!(
                    r#""protocolVersion":{version},"capabilities":{capabilities},"clientInfo":{{"name":{name},"version":"1"}}"#
                )
            }
            "tools/list" | "resources/list" | "prompts/list" | "resources/templates/list" => match input.below(8) {
                0 => String::new(),
                1 => format!(r#""cursor":"{}""#, input.below(12)),
                2 => r#""cursor":"x""#.to_string(),
                3 => r#""cursor":7"#.to_string(),
                4 => r#""cursor":null"#.to_string(),
                5 => r#""cursor":"99999999999999999999""#.to_string(),
                6 => format!(r#""cursor":{}"#, text(input)),
                _ => r#""cursor":"1""#.to_string(),
            },
            "tools/call" => {
                let name = match input.below(TOOL_NAMES.len() + 2) {
                    i if i < TOOL_NAMES.len() => format!("\"{}\"", TOOL_NAMES[i]),
                    i if i == TOOL_NAMES.len() => text(input),
                    _ => format!("\"{}\"", "x".repeat(300)),
                };
                let arguments = match input.below(6) {
                    0 => String::new(),
                    1 => r#","arguments":[1]"#.to_string(),
                    2 => r#","arguments":null"#.to_string(),
                    3 => format!(r#","arguments":{{"n":{}}}"#, input.u16()),
                    _ => format!(r#","arguments":{{"text":{},"n":{}}}"#, text(input), input.u16() % 512),
                };
                // A retry of an input round: answers, and state that may or may not be the server's.
                let retry = match input.below(8) {
                    0 => format!(r#","inputResponses":{{"ok":{}}}"#, CLIENT_RESULTS[input.below(4)]),
                    1 => format!(r#","inputResponses":{{"ok":{{}}}},"requestState":{}"#, text(input)),
                    2 => r#","inputResponses":[1],"requestState":"AAAAAAAAAAA="#.to_string(),
                    3 => r#","requestState":"AAAAAAAAAAA=""#.to_string(),
                    _ => String::new(),
                };
                format!(r#""name":{name}{arguments}{retry}"#)
            }
            "resources/read" => match input.below(URIS.len() + 2) {
                i if i < URIS.len() => format!(r#""uri":"{}""#, URIS[i]),
                i if i == URIS.len() => format!(r#""uri":{}"#, text(input)),
                _ => r#""uri":5"#.to_string(),
            },
            "prompts/get" => {
                let name = ["\"hello\"", "\"later\"", "\"fail\"", "\"missing\"", "5"][input.below(5)];
                let arguments = match input.below(5) {
                    0 => String::new(),
                    1 => r#","arguments":{}"#.to_string(),
                    2 => r#","arguments":{"name":5}"#.to_string(),
                    _ => format!(r#","arguments":{{"name":{}}}"#, text(input)),
                };
                format!(r#""name":{name}{arguments}"#)
            }
            "notifications/cancelled" => {
                let target = match self.task_ids.get(input.below(self.task_ids.len().max(1))) {
                    // A task's id: not a request id of the client's (tasks end with `tasks/cancel`).
                    Some(task) if input.byte().is_multiple_of(2) => format!("\"{task}\""),
                    _ => self.ids.get(input.below(self.ids.len().max(1))).cloned().unwrap_or_else(|| "1".into()),
                };
                format!(r#""requestId":{target},"reason":{}"#, text(input))
            }
            "logging/setLevel" => ["\"level\":\"debug\"", "\"level\":\"error\"", "\"level\":\"loud\"", "\"level\":3"]
                [input.below(4)]
            .to_string(),
            "completion/complete" => {
                let reference = [
                    r#""ref":{"type":"ref/prompt","name":"hello"}"#,
                    r#""ref":{"type":"ref/resource","uri":"fz://t/{+x}"}"#,
                    r#""ref":{"type":"ref/prompt","name":"nope"}"#,
                    r#""ref":5"#,
                ][input.below(4)];
                format!(r#"{reference},"argument":{{"name":"name","value":{}}}"#, text(input))
            }
            "subscriptions/listen" => match input.below(4) {
                0 => String::new(),
                1 => r#""notifications":{"toolsListChanged":true,"resourcesListChanged":true}"#.to_string(),
                _ => format!(
                    r#""notifications":{{"promptsListChanged":true,"resourceSubscriptions":["fz://text",{}]}}"#,
                    text(input)
                ),
            },
            "resources/subscribe" => format!(r#""uri":"{}""#, URIS[input.below(URIS.len())]),
            "tasks/get" | "tasks/update" | "tasks/cancel" | "tasks/result" | "tasks/list" => {
                let task = self.task_id(input);
                let mut members: Vec<String> = Vec::new();
                if !input.byte().is_multiple_of(10) {
                    members.push(format!(r#""taskId":{task}"#));
                }
                if method == "tasks/update" {
                    members.push(Self::input_responses(input));
                }
                members.retain(|m| !m.is_empty());
                members.join(",")
            }
            _ => String::new(),
        }
    }

    /// One JSON-RPC message, without a newline.
    fn message(&mut self, input: &mut Input<'_>) -> String {
        let method = METHODS[input.below(METHODS.len())];
        let is_notification = method.starts_with("notifications/");
        let id = if is_notification && !input.byte().is_multiple_of(4) { None } else { self.id(input) };
        let params = self.params(input, method);
        let sep = if params.is_empty() { "" } else { "," };
        let params = match input.byte() % 17 {
            // `tasks/*` mostly from clients that declared the extension, `tools/call` often.
            0..=4 if method.starts_with("tasks/") || (method == "tools/call" && input.byte() & 1 == 0) => {
                format!(r#","params":{{{params}{sep}{}}}"#, MODERN_META_TASKS[0])
            }
            0..=4 => format!(r#","params":{{{params}{sep}{MODERN_META}}}"#),
            14..=16 => {
                format!(r#","params":{{{params}{sep}{}}}"#, MODERN_META_TASKS[input.below(MODERN_META_TASKS.len())])
            }
            12 | 13 => format!(r#","params":{{{params}{sep}{}}}"#, MODERN_META_ASKABLE[input.below(3)]),
            5..=8 => format!(r#","params":{{{params}}}"#),
            9 => format!(
                r#","params":{{{params}{sep}"_meta":{{"io.modelcontextprotocol/protocolVersion":{},"io.modelcontextprotocol/clientCapabilities":{{}}}}}}"#,
                ["\"2025-11-25\"".to_string(), "5".into(), json_text(input)][input.below(3)]
            ),
            10 => [
                r#","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}"#,
                r#","params":{"_meta":[]}"#,
                r#","params":[1]"#,
                r#","params":{"_meta":{"io.modelcontextprotocol/clientInfo":{}}}"#,
            ][input.below(4)]
            .to_string(),
            _ => String::new(),
        };
        let id = id.map(|id| format!(r#","id":{id}"#)).unwrap_or_default();
        match input.byte() % 16 {
            // A response or error from the client, perhaps to a request the server sent (its ids are
            // small integers).
            0 if input.byte() & 1 == 0 => {
                format!(
                    r#"{{"jsonrpc":"2.0","id":{},"result":{}}}"#,
                    1 + input.below(4),
                    CLIENT_RESULTS[input.below(4)]
                )
            }
            0 => format!(r#"{{"jsonrpc":"2.0"{id},"result":{{}}}}"#),
            1 => format!(r#"{{"jsonrpc":"2.0"{id},"error":{{"code":1,"message":"x"}}}}"#),
            2 => format!(r#"{{"jsonrpc":"1.0"{id},"method":"{method}"{params}}}"#),
            3 => format!(r#"{{"method":"{method}"{id},"jsonrpc":"2.0"{params},"jsonrpc":"2.0"}}"#),
            _ => format!(r#"{{"jsonrpc":"2.0"{id},"method":"{method}"{params}}}"#),
        }
    }
}

/// Whether to print every line in and out on stderr (`MCP_FUZZ_TRACE=1`), to triage a crash.
fn tracing() -> bool {
    static TRACE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *TRACE.get_or_init(|| std::env::var_os("MCP_FUZZ_TRACE").is_some())
}

/// Where a slice lies in memory.
fn address_range(bytes: &[u8]) -> Range<usize> {
    let start = bytes.as_ptr() as usize;
    start..start + bytes.len()
}

fn contains_range(outer: &Range<usize>, inner: &Range<usize>) -> bool {
    inner.is_empty() || (outer.start <= inner.start && inner.end <= outer.end)
}

thread_local! {
    /// How many task ids the run's table has asked for (reset by [`run`]).
    static TASKS_MADE: Cell<u32> = const { Cell::new(0) };
}

/// The text of the `n`th task id [`next_task_id`] makes: `f00d`, 20 zeros, `n` in 8 hex digits.
fn task_id_text(n: u32) -> String {
    format!("f00d{:020}{n:08x}", 0)
}

/// The task table's id source: deterministic (ids need not be secret here), one id per task made.
#[cfg_attr(not(feature = "tasks"), allow(dead_code))]
fn next_task_id(id: &mut [u8; 16]) {
    let n = TASKS_MADE.get();
    TASKS_MADE.set(n.wrapping_add(1));
    *id = [0; 16];
    id[..2].copy_from_slice(&[0xf0, 0x0d]);
    id[12..].copy_from_slice(&n.to_be_bytes());
}

/// Whether `id` can name a task of a run: the shape [`task_id_text`] writes, with a counter below
/// 2^31 (a run makes far fewer tasks; the generator names the others as unknown ids).
fn possible_task_id(id: &str) -> bool {
    let hex = |s: &str| s.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    id.len() == 32
        && id.starts_with("f00d")
        && id[4..24].bytes().all(|b| b == b'0')
        && hex(&id[24..])
        && u32::from_str_radix(&id[24..], 16).is_ok_and(|n| n < 0x8000_0000)
}

/// The buffer sizes, limits and handler options of one run.
struct Setup {
    rx: usize,
    tx: usize,
    limits: Limits,
    bad_schema: bool,
    instructions: bool,
    /// The task table: slots and bytes per task, or none.
    tasks: Option<(usize, usize)>,
    /// The table's time to live for tasks, in milliseconds.
    #[cfg_attr(not(feature = "tasks"), allow(dead_code))]
    task_ttl: u64,
    /// Whether the table's wall clock is set at the end of time (`createdAt` from `u64::MAX` ms).
    #[cfg_attr(not(feature = "tasks"), allow(dead_code))]
    far_clock: bool,
}

impl Setup {
    fn read(input: &mut Input<'_>) -> Self {
        const RX: [usize; 16] = [0, 1, 2, 16, 64, 100, 200, 256, 300, 512, 700, 1024, 2048, 4096, 150, 8192];
        const TX: [usize; 16] =
            [256, 257, 300, 400, 512, 600, 800, 1024, 1500, 2048, 4096, 8192, 320, 768, 3000, 16384];
        // Task tables (by the top bits of the depth byte): small shares, so that requests, results
        // and answers outgrow them; one configuration has none.
        const TASK_TABLES: [Option<(usize, usize)>; 8] = [
            Some((2, 1024)),
            Some((2, 512)),
            Some((2, 320)),
            Some((1, 768)),
            Some((3, 2048)),
            None,
            Some((2, 200)),
            Some((2, 4096)),
        ];
        // Times to live (by the top bits of the transmit byte), within reach of the clock steps.
        const TASK_TTLS: [u64; 8] = [60_000, 1_000, 5_000, 0, 3_600_000, 100, 30_000, 1];
        let rx = RX[usize::from(input.byte() & 15)];
        let tx_byte = input.byte();
        let tx = TX[usize::from(tx_byte & 15)];
        let limits_byte = input.byte();
        let max_response = [usize::MAX, 0, 256, 300, 400, 512, 1024, tx / 4][usize::from(limits_byte & 7)];
        let page_size = [100, 0, 1, 2, 3, 5, 8, usize::MAX][usize::from(limits_byte >> 3 & 7)];
        let write_threshold = [1024, 0, 1, usize::MAX][usize::from(limits_byte >> 6)];
        let depth_byte = input.byte();
        let max_depth = [64, 0, 1, 2, 3, 4, 8, 300][usize::from(depth_byte & 7)];
        Setup {
            rx,
            tx,
            limits: Limits { max_depth, max_response, page_size, write_threshold },
            bad_schema: depth_byte & 8 != 0,
            instructions: depth_byte & 16 != 0,
            tasks: TASK_TABLES[usize::from(depth_byte >> 5)],
            task_ttl: TASK_TTLS[usize::from(tx_byte >> 4 & 7)],
            far_clock: tx_byte & 0x80 != 0,
        }
    }
}

/// One run: the engine, what was sent and received, and the bookkeeping for the checks.
struct Run<'a> {
    server: Server<'a, FuzzHandler, IN_FLIGHT>,
    rx_range: Range<usize>,
    tx_range: Range<usize>,
    rx_capacity: usize,
    max_depth: usize,
    now: u64,
    eof: bool,
    /// Generated bytes not yet taken by the engine.
    queued: Vec<u8>,
    /// Taken bytes after the last newline.
    line_tail: Vec<u8>,
    /// Transmitted bytes after the last newline.
    out_tail: Vec<u8>,
    /// How often each id arrived in a complete line (requests, batch elements, invalid envelopes).
    received: BTreeMap<IdKey, usize>,
    /// Ids named by a cancellation.
    cancel_targets: BTreeSet<IdKey>,
    /// Requests alone on a complete line within the limits: they must be answered exactly once.
    must_answer: Vec<IdKey>,
    /// Texts sent to `echo` by those requests.
    echoes: BTreeMap<IdKey, String>,
    answers: BTreeMap<IdKey, usize>,
    lines_out: usize,
    /// The error code [`crate::oracle`] expects for a request, by id (requests alone on a line).
    expected: BTreeMap<IdKey, i32>,
    /// Whether a line taken so far may have opened a legacy session (it names `initialize`, or has an
    /// escape that might spell it).
    session_possible: bool,
    /// Whether the engine has a task table.
    task_table: bool,
    /// The method of each request received (the last one with that id) and its `taskId` param.
    requests: BTreeMap<IdKey, (String, Option<String>)>,
    /// The task ids the server handed out (results with `resultType: "task"`), in order.
    task_ids: Vec<String>,
    /// The status each task was last seen with (its creation, `tasks/get`).
    task_status: BTreeMap<String, String>,
    /// How many `tasks/cancel` requests arrived (in any form, batches included).
    task_cancels: usize,
}

impl Run<'_> {
    fn now(&self) -> Instant {
        Instant::from_millis(self.now)
    }

    /// Checks that hold after every operation.
    fn check(&mut self) {
        if let Some(pending) = self.server.poll_transmit() {
            assert!(!pending.is_empty(), "poll_transmit returned an empty slice");
            assert!(contains_range(&self.tx_range, &address_range(pending)), "output outside the transmit buffer");
            assert_eq!(pending.last(), Some(&b'\n'), "the transmit buffer holds a partial message");
        }
        assert_eq!(self.server.in_flight(), self.server.handler().deferred.len(), "in-flight count disagrees");
        // Only `tasks/cancel` cancels a task (and so its deferred request), once per request.
        let cancellations = self.server.handler().task_cancellations;
        assert!(
            cancellations <= self.task_cancels,
            "{cancellations} tasks' requests cancelled by {} tasks/cancel requests",
            self.task_cancels
        );
        if self.server.is_finished() {
            assert!(self.eof && self.server.poll_transmit().is_none() && self.server.in_flight() == 0);
        }
    }

    /// Accounts for a complete input line taken by the engine.
    fn received_line(&mut self, line: &[u8]) {
        self.account_line(line);
        if line.windows(b"initialize".len()).any(|w| w == b"initialize") || line.contains(&b'\\') {
            self.session_possible = true;
        }
    }

    fn account_line(&mut self, line: &[u8]) {
        if tracing() {
            eprintln!("-> {}", String::from_utf8_lossy(line));
        }
        // Nested deeper than the engine's limit: the engine answers only that, with the request's id
        // if it can read one (the same scanner meets the same first error).
        if line.len() <= self.rx_capacity
            && parse(line, self.max_depth).is_err_and(|e| e.kind == mcp_sansio::json::ScanErrorKind::TooDeep)
        {
            if mcp_sansio::json::peek_member(line, "method").is_some()
                && let Some(id) =
                    mcp_sansio::json::peek_member(line, "id").and_then(|v| parse(v, 0).ok()).and_then(Id::from_value)
            {
                *self.received.entry(IdKey::of(id)).or_default() += 1;
            }
            return;
        }
        let Ok(value) = parse(line, MAX_DEPTH_LIMIT) else { return };
        if value.kind() == Kind::Array {
            for element in value.elements() {
                self.received_message(element);
            }
            return;
        }
        let Some(id) = self.received_message(value) else { return };
        let id_len = value.get("id").map_or(usize::MAX, |v| v.as_bytes().len());
        let within_limits = line.len() <= self.rx_capacity && parse(line, self.max_depth).is_ok();
        if within_limits && id_len <= MAX_CHECKED_ID_LEN {
            if let Ok(Message::Request { method, params, .. }) = classify(value)
                && method.eq_str("tools/call")
                && params.and_then(|p| p.get("name")).and_then(|n| n.as_str()).is_some_and(|n| n.eq_str("echo"))
                && let Some(text) = params.and_then(|p| p.get("arguments")).and_then(|a| a.get("text"))
                && let Some(text) = text.as_str()
            {
                self.echoes.insert(id.clone(), text.chars().collect());
            }
            let context = oracle::Context {
                session_possible: self.session_possible,
                task_table: self.task_table,
                possible_task_id,
            };
            match oracle::expected_code(value, self.server.handler(), context) {
                Some(code) => self.expected.insert(id.clone(), code),
                None => self.expected.remove(&id),
            };
            self.must_answer.push(id);
        }
    }

    /// Counts the id of one received message; returns it if the engine answers it with that id.
    fn received_message(&mut self, value: Value<'_>) -> Option<IdKey> {
        let id = match classify(value) {
            Ok(Message::Request { id, method, params }) => {
                if method.eq_str("tasks/cancel") {
                    self.task_cancels += 1;
                }
                let task = params.and_then(|p| p.get("taskId")).and_then(|t| t.as_str()).map(|t| t.chars().collect());
                self.requests.insert(IdKey::of(id), (method.chars().collect(), task));
                id
            }
            Err(EnvelopeError { id: Some(id), .. }) => {
                self.requests.remove(&IdKey::of(id));
                id
            }
            Ok(Message::Notification { method, params }) => {
                if method.eq_str("notifications/cancelled")
                    && let Some(target) = params.and_then(|p| p.get("requestId")).and_then(Id::from_value)
                {
                    self.cancel_targets.insert(IdKey::of(target));
                }
                return None;
            }
            _ => return None,
        };
        let key = IdKey::of(id);
        *self.received.entry(key.clone()).or_default() += 1;
        Some(key)
    }

    fn took(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            if byte == b'\n' {
                let line = std::mem::take(&mut self.line_tail);
                self.received_line(&line);
            } else {
                self.line_tail.push(byte);
            }
        }
    }

    /// Checks one complete output line.
    fn sent_line(&mut self, line: &[u8]) {
        if tracing() {
            eprintln!("<- {}", String::from_utf8_lossy(line));
        }
        self.lines_out += 1;
        assert!(!line.contains(&b'\r'), "a raw carriage return in the output");
        let value = match parse(line, MAX_DEPTH_LIMIT) {
            Ok(value) => value,
            Err(error) => panic!("invalid output line {:?}: {error}", String::from_utf8_lossy(line)),
        };
        let theirs: serde_json::Value = match serde_json::from_slice(line) {
            Ok(theirs) => theirs,
            Err(error) => panic!("serde_json rejects output {:?}: {error}", String::from_utf8_lossy(line)),
        };
        if value.kind() == Kind::Array {
            // A batch answered as one array: responses and errors only, at least one.
            let elements: Vec<Value<'_>> = value.elements().collect();
            assert!(!elements.is_empty(), "an empty array was sent");
            for (element, theirs) in elements.into_iter().zip(theirs.as_array().into_iter().flatten()) {
                assert!(element.get("method").is_none(), "a notification or request inside an answer array");
                self.sent_message(element, theirs);
            }
            return;
        }
        self.sent_message(value, &theirs);
    }

    /// Checks one message the server sent (a line, or an element of an answer array).
    fn sent_message(&mut self, value: Value<'_>, theirs: &serde_json::Value) {
        let id = match classify(value) {
            Ok(Message::Response { id, result }) => {
                assert_eq!(result.kind(), Kind::Object, "a result that is not an object");
                Some(id)
            }
            Ok(Message::Error { id, error }) => {
                assert!(error.get("code").and_then(|c| c.as_i64()).is_some(), "an error without an integer code");
                assert!(error.get("message").and_then(|m| m.as_str()).is_some(), "an error without a message");
                id
            }
            Ok(Message::Notification { method, params }) => {
                // Notifications the engine sends: listen streams' (which name a request it received),
                // progress and log messages of requests, list changes and updates, cancellations.
                let known = [
                    "notifications/subscriptions/acknowledged",
                    "notifications/progress",
                    "notifications/message",
                    "notifications/tools/list_changed",
                    "notifications/resources/list_changed",
                    "notifications/prompts/list_changed",
                    "notifications/resources/updated",
                    "notifications/cancelled",
                ];
                assert!(known.iter().any(|m| method.eq_str(m)), "unexpected notification {method:?}");
                let meta = params.and_then(|p| p.get("_meta"));
                if let Some(id) = meta.and_then(|m| m.get("io.modelcontextprotocol/subscriptionId")) {
                    let key = IdKey::of(Id::from_value(id).expect("a subscription id that is an id"));
                    assert!(self.received.contains_key(&key), "a listen {key:?} that was never received");
                }
                return;
            }
            Ok(Message::Request { id, method, .. }) => {
                // A request to the client: an integer id of the server's own.
                assert!(matches!(id, Id::Number(n) if n > 0), "a server request with id {id:?}");
                let known = ["ping", "roots/list", "sampling/createMessage", "elicitation/create"];
                assert!(known.iter().any(|m| method.eq_str(m)), "unexpected server request {method:?}");
                return;
            }
            other => panic!("the server sent something other than a response: {other:?}"),
        };
        let Some(id) = id else { return };
        let key = IdKey::of(id);
        let answers = self.answers.entry(key.clone()).or_default();
        *answers += 1;
        let received = self.received.get(&key).copied().unwrap_or(0);
        if let IdKey::String(task) = &key
            && received == 0
            && self.task_ids.contains(task)
        {
            panic!("the answer of task {task} reached the wire: {theirs}");
        }
        assert!(*answers <= received, "id {key:?} answered {answers} times but received {received} times");
        if let Some(result) = theirs.get("result") {
            self.check_task_result(&key, received, result);
        }
        if received == 1
            && let Some(&expected) = self.expected.get(&key)
        {
            let code = theirs.get("error").and_then(|e| e.get("code")).and_then(|c| c.as_i64());
            assert_eq!(code, Some(i64::from(expected)), "request {key:?} answered {theirs}, expected code {expected}");
        }
        if received == 1
            && let Some(expected) = self.echoes.get(&key)
            && let Some(result) = theirs.get("result")
            && result.get("isError").is_none()
        {
            assert_eq!(result["content"][0]["text"].as_str(), Some(expected.as_str()), "echo changed the text");
        }
    }

    /// Checks a result that is a task (the answer of a `tools/call` that became one) or tells of one
    /// (`tasks/get`), and keeps the task ids handed out.
    fn check_task_result(&mut self, key: &IdKey, received: usize, result: &serde_json::Value) {
        // What the request was, when only one request had this id.
        let request = self.requests.get(key).filter(|_| received == 1);
        let method = request.map(|(method, _)| method.as_str());
        let is_task = result.get("resultType").and_then(|t| t.as_str()) == Some("task");
        if !is_task && method != Some("tasks/get") {
            return;
        }
        let task = result.get("taskId").and_then(|t| t.as_str());
        let Some(task) = task.filter(|task| possible_task_id(task)) else {
            panic!("a task without a task id of the table's: {result}")
        };
        let status = result.get("status").and_then(|s| s.as_str()).unwrap_or_default();
        let Some(parsed) = TaskStatus::from_wire(status) else { panic!("a task with status {status:?}: {result}") };
        for member in ["createdAt", "lastUpdatedAt"] {
            assert!(result.get(member).is_some_and(|t| t.is_string()), "a task without {member}: {result}");
        }
        // A 2025-11-25 session's `tasks/get` answers with that version's `Task`: no `resultType`,
        // `ttl` and `pollInterval`, and nothing of the task's outcome (that is `tasks/result`'s).
        let legacy = !is_task && result.get("resultType").is_none();
        let (ttl, other) = if legacy { ("ttl", "ttlMs") } else { ("ttlMs", "ttl") };
        assert!(result.get(ttl).is_some_and(|t| t.is_u64()), "a task without {ttl}: {result}");
        assert!(result.get(other).is_none(), "a task with both {ttl} and {other}: {result}");
        if legacy {
            for member in ["result", "error", "inputRequests"] {
                assert!(result.get(member).is_none(), "a 2025-11-25 task with {member}: {result}");
            }
            let failed = parsed == TaskStatus::Failed;
            assert_eq!(
                result.get("statusMessage").is_some_and(|m| m.is_string()),
                failed,
                "a 2025-11-25 task's statusMessage is a failed one's: {result}"
            );
        } else if is_task {
            // The answer of the call that made it: the task alone, not what it holds.
            if let Some(method) = method {
                assert_eq!(method, "tools/call", "a {method} answered with a task: {result}");
            }
            assert_ne!(parsed, TaskStatus::Cancelled, "a task cancelled before it was handed out: {result}");
            for member in ["result", "error", "inputRequests", "content"] {
                assert!(result.get(member).is_none(), "a new task with {member}: {result}");
            }
            if !self.task_ids.iter().any(|t| t == task) {
                self.task_ids.push(task.to_string());
            }
        } else {
            let asked = request.and_then(|(_, task)| task.as_deref());
            assert_eq!(Some(task), asked, "tasks/get answered with another task: {result}");
            assert_eq!(result.get("resultType").and_then(|t| t.as_str()), Some("complete"), "{result}");
            let holds = match parsed {
                TaskStatus::Completed => result.get("result").is_some_and(|r| r.is_object()),
                TaskStatus::Failed => result.get("error").and_then(|e| e.get("code")).is_some_and(|c| c.is_i64()),
                TaskStatus::InputRequired => result.get("inputRequests").is_some_and(|r| r.is_object()),
                TaskStatus::Working | TaskStatus::Cancelled => {
                    ["result", "error", "inputRequests"].iter().all(|m| result.get(m).is_none())
                }
            };
            assert!(holds, "a {status} task that does not hold what its status says: {result}");
        }
        // A task that ended stays as it ended.
        if let Some(last) = self.task_status.get(task)
            && TaskStatus::from_wire(last).is_some_and(TaskStatus::is_terminal)
        {
            assert_eq!(last, status, "task {task} was {last}, then {status}");
        }
        self.task_status.insert(task.to_string(), status.to_string());
    }

    /// One `poll_transmit`/`transmit_done` round reporting `n` bytes written.
    fn transmit(&mut self, n: usize) -> bool {
        let Some(pending) = self.server.poll_transmit() else { return false };
        let written = pending[..n.min(pending.len())].to_vec();
        if tracing() {
            eprintln!("<< {:?}", String::from_utf8_lossy(&written));
        }
        let now = self.now();
        self.server.transmit_done(now, n);
        for byte in written {
            if byte == b'\n' {
                let line = std::mem::take(&mut self.out_tail);
                self.sent_line(&line);
            } else {
                self.out_tail.push(byte);
            }
        }
        true
    }

    fn flush(&mut self) {
        while self.transmit(usize::MAX) {
            self.check();
        }
    }

    /// The engine took nothing although input is waiting: output must be pending (back-pressure).
    fn assert_not_stalled(&self) {
        assert!(self.server.poll_transmit().is_some(), "the engine refuses input with nothing to transmit");
    }

    fn deliver_with_handle_input(&mut self, limit: usize) {
        if self.eof || self.queued.is_empty() {
            return;
        }
        let n = limit.min(self.queued.len());
        if n == 0 {
            return;
        }
        let now = self.now();
        let taken = self.server.handle_input(now, &self.queued[..n]);
        assert!(taken <= n);
        if taken == 0 {
            self.assert_not_stalled();
        }
        let bytes: Vec<u8> = self.queued.drain(..taken).collect();
        self.took(&bytes);
    }

    fn deliver_with_spare(&mut self, limit: usize, overcommit: usize) {
        if self.eof {
            assert!(self.server.rx_spare().is_empty(), "rx_spare offers room after the end of input");
            return;
        }
        if self.queued.is_empty() {
            return;
        }
        let server_range = {
            let start = &self.server as *const _ as usize;
            start..start + size_of_val(&self.server)
        };
        let spare_range = address_range(self.server.rx_spare());
        assert!(
            contains_range(&self.rx_range, &spare_range)
                || (spare_range.len() == 1 && contains_range(&server_range, &spare_range)),
            "rx_spare outside the receive buffer"
        );
        if spare_range.is_empty() {
            self.assert_not_stalled();
            return;
        }
        // Asking twice must offer the same room.
        let spare = self.server.rx_spare();
        assert_eq!(address_range(spare), spare_range, "a second rx_spare call changed the room");
        let room = spare.len();
        let n = room.min(limit.max(1)).min(self.queued.len());
        spare[..n].copy_from_slice(&self.queued[..n]);
        let committed = if n == room { n + overcommit } else { n };
        let now = self.now();
        self.server.rx_commit(now, committed);
        let bytes: Vec<u8> = self.queued.drain(..n).collect();
        self.took(&bytes);
    }

    /// Answers (or fails, or drops) the deferred request at `index` in the application's list.
    fn answer(&mut self, index: usize, how: u8, text: &str) {
        let handler = self.server.handler_mut();
        if handler.deferred.is_empty() {
            return;
        }
        let deferred = handler.deferred.swap_remove(index % handler.deferred.len());
        let is_task = handler.task_handles.remove(&deferred.key());
        let was_cancelled = self.server.is_cancelled(&deferred);
        let result = match (deferred.kind(), how % 8) {
            (ReplyKind::Tool, 7) => {
                // The wrong kind of reply is refused and leaves the request pending.
                assert!(matches!(self.server.reply_prompt(&deferred), Err(ReplyError::Unknown)));
                self.server.handler_mut().keep(Ok(deferred), is_task);
                return;
            }
            (ReplyKind::Tool, how) => self.server.reply_tool(&deferred).map(|reply| match how {
                0 => reply.text(text).finish(),
                1 => reply.text_fmt(format_args!("{}", Repeat((text.len() * 40).min(20_000), 'z'))).finish(),
                2 => reply.structured(&(text, 1.5f64)).finish(),
                3 => reply.fail(-32001, text),
                4 => drop(reply),
                5 => reply.image("image/gif", text.as_bytes()).finish_error(),
                _ => reply.finish_error_text(text),
            }),
            (ReplyKind::Resource, how) => self.server.reply_resource(&deferred).map(|reply| match how {
                0 => reply.text("fz://defer", None, text).finish(),
                1 => reply.blob("fz://defer", Some("application/octet-stream"), text.as_bytes()).finish(),
                2 => reply.not_found(text),
                3 => drop(reply),
                4 => reply.finish(),
                _ => reply.json("fz://defer", &[text]).finish(),
            }),
            (ReplyKind::Prompt, how) => self.server.reply_prompt(&deferred).map(|reply| match how {
                0 => reply.text(Role::User, text).finish(),
                1 => reply.fail(-32002, text),
                2 => drop(reply),
                _ => reply.description(text).finish(),
            }),
            (kind, _) => panic!("a deferred request of an unknown kind: {kind:?}"),
        };
        match result {
            Ok(()) => assert!(!was_cancelled, "a cancelled request was answered"),
            Err(ReplyError::Busy) => self.server.handler_mut().keep(Ok(deferred), is_task),
            // A task's answer is refused as cancelled also when the task has expired meanwhile (which
            // `is_cancelled` does not tell).
            Err(ReplyError::Cancelled) => {
                assert!(was_cancelled || is_task, "refused as cancelled but not cancelled")
            }
            Err(ReplyError::Unknown) => panic!("a pending deferred request is unknown"),
            Err(error) => panic!("unexpected reply error: {error:?}"),
        }
    }

    /// The application speaks unasked: a request to the client, list changes, resource updates,
    /// progress and log messages for deferred requests, the end of listen streams. Whatever the
    /// engine refuses (no session, a full buffer, no progress token) is refused with an error, never
    /// a panic.
    fn server_speaks(&mut self, how: u8, input: &mut Input<'_>) {
        let now = self.now();
        let selector = input.byte();
        match (how, selector % 4) {
            (4, 0) => {
                let _ = self.server.ping(now);
            }
            (4, _) => {
                let method = ["roots/list", "sampling/createMessage", "elicitation/create"][usize::from(selector % 3)];
                let _ = self.server.send_request(now, method, Some(&|w: &mut JsonWriter<'_>| w.raw(b"{}")));
            }
            (5, 0) => {
                let _ = self.server.list_changed(ListChanged::Tools);
            }
            (5, 1) => {
                let _ = self.server.list_changed(ListChanged::Resources);
            }
            (5, 2) => {
                let _ = self.server.resource_updated(URIS[input.below(URIS.len())]);
            }
            (5, _) => {
                let _ = self.server.end_listens();
            }
            (6, _) | (7, _) => {
                let handler = self.server.handler_mut();
                let Some(deferred) = handler.deferred.pop() else { return };
                let progress = u64::from(input.u16());
                if how == 6 {
                    let _ = self.server.progress(&deferred, progress, None, Some("fz"));
                } else {
                    let level = LoggingLevel::ALL[usize::from(selector % 8)];
                    let _ = self.server.log_for(&deferred, level, None, format_args!("log {progress}"));
                }
                self.server.handler_mut().deferred.push(deferred);
            }
            _ => {}
        }
    }

    fn end_of_input(&mut self) {
        let now = self.now();
        self.server.handle_eof(now);
        self.eof = true;
        self.queued.clear();
    }

    /// Delivers everything, ends the input, answers every deferred request and drains the output.
    fn finish(&mut self) {
        let mut rounds = 0usize;
        while !self.server.is_finished() {
            rounds += 1;
            assert!(rounds < 100_000, "the engine does not finish");
            self.flush();
            if !self.eof {
                if self.queued.is_empty() {
                    self.end_of_input();
                } else {
                    self.deliver_with_handle_input(usize::MAX);
                }
            }
            while !self.server.handler().deferred.is_empty() {
                let before = self.server.in_flight();
                self.answer(0, 0, "late");
                self.check();
                if self.server.in_flight() == before {
                    break; // busy: transmit first
                }
            }
            // The next deadline is served, as a driver serves `poll_timeout`, time passing up to
            // it: an answered task's status is told (and a waiting 2025-11-25 `tasks/result`
            // answered) when it comes. After time went back, "due now" is the latest time the
            // engine was given, ahead of the clock.
            if let Some(deadline) = self.server.poll_timeout() {
                self.now = self.now.max(deadline.as_millis());
                let now = self.now();
                self.server.handle_timeout(now);
            }
            self.check();
        }
        self.check();
        assert!(self.out_tail.is_empty(), "the output ends inside a line");
        assert!(self.server.rx_spare().is_empty(), "rx_spare offers room after the end of input");
        for id in &self.must_answer {
            if self.received.get(id) == Some(&1) && !self.cancel_targets.contains(id) {
                let answers = self.answers.get(id).copied().unwrap_or(0);
                assert_eq!(answers, 1, "request {id:?} was answered {answers} times");
            }
        }
    }
}

/// A seed: the configuration bytes (see [`Setup`]), then each of `lines` queued as raw bytes,
/// delivered with `handle_input` in pieces of at most `chunk` bytes and transmitted; then the
/// deferred requests answered and the input ended.
pub fn encode(config: [u8; 4], lines: &[Vec<u8>], chunk: u16) -> Vec<u8> {
    let mut out = Encoder::new();
    for byte in config {
        out.byte(byte);
    }
    for line in lines {
        out.byte(1).chunk(line); // queue raw bytes
        out.byte(2).u16(chunk); // deliver with `handle_input`
        out.byte(4).u16(u16::MAX); // transmit everything pending
    }
    for how in [0, 2] {
        out.byte(6).byte(0).byte(how).chunk(b"answered later"); // answer a deferred request
        out.byte(4).u16(u16::MAX);
    }
    out.byte(7).byte(0); // end of input
    out.finish()
}

/// Runs one input. Panics on any violated invariant.
pub fn run(data: &[u8]) {
    let mut input = Input::new(data);
    let setup = Setup::read(&mut input);
    let mut rx = vec![0u8; setup.rx];
    let mut tx = vec![0u8; setup.tx];
    let (rx_range, tx_range) = (address_range(&rx), address_range(&tx));
    let mut config = Config::new("fuzz-server", "0.0.1").with_limits(setup.limits);
    if setup.instructions {
        config = config.with_instructions("Instructions with \"quotes\"\nand a newline").with_title("Fuzz\tServer");
    }
    let task_table = cfg!(feature = "tasks") && setup.tasks.is_some();
    let handler = FuzzHandler { bad_schema: setup.bad_schema, task_table, ..FuzzHandler::default() };
    // Room for legacy requests to wait for the client's input (as large as the receive buffer).
    let mut input_buffer = vec![0u8; setup.rx];
    // The task table's memory: its slots, and one share per slot plus one (the request run again).
    #[cfg(feature = "tasks")]
    let (mut task_slots, mut task_data) = {
        let (slots, bytes) = setup.tasks.unwrap_or((0, 0));
        (vec![TaskSlot::EMPTY; slots], vec![0u8; bytes * (slots + 1)])
    };
    TASKS_MADE.set(0);
    let mut server = Server::new(handler, config, Buffers { rx: &mut rx, tx: &mut tx });
    server.parts_mut().0.set_input_buffer(&mut input_buffer);
    #[cfg(feature = "tasks")]
    if task_table {
        let ttl = mcp_sansio::time::Duration::from_millis(setup.task_ttl);
        let mut table = TaskTable::new(&mut task_slots, &mut task_data, next_task_id).with_ttl(ttl);
        if setup.far_clock {
            table = table.with_wall_clock(Instant::from_millis(0), u64::MAX);
        }
        server.parts_mut().0.set_task_table(table);
    }
    let mut run = Run {
        server,
        rx_range,
        tx_range,
        rx_capacity: setup.rx,
        max_depth: setup.limits.max_depth,
        now: 0,
        eof: false,
        queued: Vec::new(),
        line_tail: Vec::new(),
        out_tail: Vec::new(),
        received: BTreeMap::new(),
        cancel_targets: BTreeSet::new(),
        must_answer: Vec::new(),
        echoes: BTreeMap::new(),
        answers: BTreeMap::new(),
        lines_out: 0,
        expected: BTreeMap::new(),
        session_possible: false,
        task_table,
        requests: BTreeMap::new(),
        task_ids: Vec::new(),
        task_status: BTreeMap::new(),
        task_cancels: 0,
    };
    let mut generator = Generator::default();

    for _ in 0..MAX_OPS {
        if input.is_empty() {
            break;
        }
        if generator.task_ids.len() != run.task_ids.len() {
            generator.task_ids.clone_from(&run.task_ids);
        }
        match input.byte() % 12 {
            0 | 11 => {
                let message = generator.message(&mut input);
                run.queued.extend_from_slice(message.as_bytes());
                run.queued.extend_from_slice(if input.byte() & 1 == 0 { b"\n" } else { b"\r\n" });
            }
            1 => {
                let raw = input.chunk();
                run.queued.extend_from_slice(raw);
            }
            2 => {
                let limit = usize::from(input.u16());
                run.deliver_with_handle_input(limit);
            }
            3 => {
                let limit = usize::from(input.byte()) * 8;
                let overcommit = usize::from(input.byte() & 3);
                run.deliver_with_spare(limit, overcommit);
            }
            4 => {
                let n = usize::from(input.u16());
                run.transmit(n);
            }
            5 => {
                let step = input.u16();
                // Mostly forward; sometimes past every task's time to live, or back, which must not
                // matter.
                run.now = match step {
                    u16::MAX => run.now / 2,
                    0xfffe => run.now.saturating_add(3_700_000),
                    _ => run.now.saturating_add(u64::from(step)),
                };
                let _ = run.server.poll_timeout();
                let now = run.now();
                run.server.handle_timeout(now);
            }
            6 => {
                let (index, how) = (input.below(IN_FLIGHT + 1), input.byte());
                let text = String::from_utf8_lossy(input.chunk()).into_owned();
                run.answer(index, how, &text);
            }
            7 => {
                if input.byte().is_multiple_of(4) {
                    run.end_of_input();
                }
            }
            8 => {
                let count = input.below(5);
                let elements: Vec<String> = (0..count).map(|_| generator.message(&mut input)).collect();
                run.queued.extend_from_slice(format!("[{}]\n", elements.join(",")).as_bytes());
            }
            9 => {
                let mut message = generator.message(&mut input).into_bytes();
                let at = input.below(message.len().max(1));
                match input.byte() % 3 {
                    0 => message.truncate(at),
                    1 => message[at] = input.byte(),
                    _ => message.insert(at, input.byte()),
                }
                run.queued.extend_from_slice(&message);
                run.queued.push(b'\n');
            }
            _ => match input.byte() % 8 {
                0..=3 => {
                    for _ in 0..input.below(64) {
                        run.deliver_with_handle_input(1);
                        run.check();
                    }
                }
                how => run.server_speaks(how, &mut input),
            },
        }
        run.check();
    }
    run.finish();
}
