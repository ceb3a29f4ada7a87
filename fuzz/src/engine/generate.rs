//! The messages a run sends, generated from the input.

use super::*;

/// An id as the check compares them: string ids unescaped.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum IdKey {
    Number(i64),
    String(String),
}

impl IdKey {
    pub(super) fn of(id: Id<'_>) -> Self {
        match id {
            Id::Number(n) => IdKey::Number(n),
            Id::String(s) => IdKey::String(s.chars().collect()),
        }
    }
}

/// Methods the generator picks from.
pub(super) const METHODS: [&str; 26] = [
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

pub(super) const VERSIONS: [&str; 7] =
    ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28", "1999-01-01", ""];

pub(super) const TOOL_NAMES: [&str; 18] = [
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

pub(super) const URIS: [&str; 9] = [
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

pub(super) const MODERN_META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"fuzz","version":"1"}}"#;
/// The same, from a client that can be asked, with what a request may opt into.
pub(super) const MODERN_META_ASKABLE: [&str; 3] = [
    r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{},"sampling":{},"roots":{}},"progressToken":"p"}"#,
    r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}},"io.modelcontextprotocol/logLevel":"info","progressToken":7}"#,
    r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"loud"}"#,
];
/// The same, from clients that declare the tasks extension (the first two) or seem to.
pub(super) const MODERN_META_TASKS: [&str; 5] = [
    r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}},"elicitation":{}}}"#,
    r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{},"x":1}},"progressToken":"tp","io.modelcontextprotocol/logLevel":"debug"}"#,
    r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":true},"elicitation":{}}}"#,
    r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":[{"io.modelcontextprotocol/tasks":{}}]}}"#,
    r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol\/tasks":{}},"elicitation":{}}}"#,
];
/// What a client answers to the server's requests (elicitation, roots, ping).
pub(super) const CLIENT_RESULTS: [&str; 4] =
    [r#"{"action":"accept","content":{"ok":true}}"#, r#"{"action":"decline"}"#, r#"{"roots":[]}"#, "{}"];

/// Generates JSON-RPC messages from the input.
#[derive(Default)]
pub(super) struct Generator {
    pub(super) next_id: u64,
    /// Ids generated so far (as JSON text), for cancellations and duplicates.
    pub(super) ids: Vec<String>,
    /// The task ids the server handed out so far (read from its output).
    pub(super) task_ids: Vec<String>,
}

pub(super) fn json_text(input: &mut Input<'_>) -> String {
    serde_json::to_string(&String::from_utf8_lossy(input.chunk())).expect("strings serialize")
}

impl Generator {
    /// A `taskId` (as JSON): mostly one the server handed out, else one it never makes, one
    /// escaped or in capitals, or not a string.
    pub(super) fn task_id(&self, input: &mut Input<'_>) -> String {
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
    pub(super) fn input_responses(input: &mut Input<'_>) -> String {
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

    pub(super) fn id(&mut self, input: &mut Input<'_>) -> Option<String> {
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

    pub(super) fn params(&mut self, input: &mut Input<'_>, method: &str) -> String {
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
    pub(super) fn message(&mut self, input: &mut Input<'_>) -> String {
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
