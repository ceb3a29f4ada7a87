//! The server's lines a run sends, generated from the input.

use super::*;

/// Generates the server's lines.
#[derive(Default)]
pub(super) struct Generator {
    pub(super) next_server_id: u64,
}

pub(super) const VERSIONS: [&str; 8] =
    ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28", "1999-01-01", "", "2025-11\\u002d25"];

pub(super) const CAPABILITIES: [&str; 5] = [
    "{}",
    r#"{"tools":{"listChanged":true}}"#,
    r#"{"tools":{},"resources":{"subscribe":true,"listChanged":true},"prompts":{},"logging":{},"completions":{}}"#,
    r#"{"tools":5,"resources":[]}"#,
    r#"{"experimental":{"x":{}},"tasks":{}}"#,
];

pub(super) const SERVER_INFO: [&str; 5] = [
    "",
    r#","serverInfo":{"name":"fz","version":"1","title":"Fuzz"}"#,
    r#","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"fz\n","version":"1"}}"#,
    r#","instructions":"be \"nice\"\u0000""#,
    r#","serverInfo":{"name":5},"instructions":7"#,
];

/// Entries of an `inputRequests` object.
pub(super) const INPUT_ENTRIES: [&str; 9] = [
    r#"{"method":"elicitation/create","params":{"message":"Sure?","requestedSchema":{"type":"object","properties":{"ok":{"type":"boolean"}}}}}"#,
    r#"{"method":"elicitation/create","params":{"mode":"url","message":"Go","url":"https://example.com/x","elicitationId":"e1"}}"#,
    r#"{"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":5}}"#,
    r#"{"method":"roots/list"}"#,
    r#"{"method":"tools/list"}"#,
    "5",
    r#"{"params":{}}"#,
    r#"{"method":"elicitation/create"}"#,
    r#"{"method":"roots\/list","params":{"_meta":{}}}"#,
];

pub(super) const REQUEST_STATES: [&str; 7] =
    ["\"s\"", r#""a\u0062 \"c\"""#, r#"{"n":[1,2.50,"x"]}"#, "null", "42", "true", "\"\""];

impl Generator {
    /// An answer to the request `id` (JSON text), without a newline.
    pub(super) fn answer(&mut self, id: &str, input: &mut Input<'_>) -> String {
        let kind = input.byte() % 10;
        let v = input.byte();
        let result = |body: String| format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{body}}}"#);
        match kind {
            0 => {
                let versions =
                    [r#"["2026-07-28"]"#, r#"["2025-11-25","2026-07-28"]"#, r#"["2026-07-28","2099-01-01"]"#]
                        [usize::from(v % 3)];
                let capabilities = CAPABILITIES[usize::from(v >> 2) % CAPABILITIES.len()];
                let extra = SERVER_INFO[usize::from(v >> 5) % SERVER_INFO.len()];
                result(format!(r#"{{"supportedVersions":{versions},"capabilities":{capabilities}{extra}}}"#))
            }
            1 => {
                let body = [
                    r#"{"supportedVersions":["2025-11-25"],"capabilities":{}}"#,
                    r#"{"supportedVersions":"2026-07-28","capabilities":{}}"#,
                    r#"{"supportedVersions":["2026-07-28"]}"#,
                    r#"{"supportedVersions":["2026-07-28"],"capabilities":[]}"#,
                    "{}",
                    r#"{"supportedVersions":["2026\u002d07-28"],"capabilities":{}}"#,
                    r#"{"supportedVersions":[],"capabilities":{},"resultType":"complete"}"#,
                ][usize::from(v) % 7];
                result(body.to_string())
            }
            2 => {
                let version = match usize::from(v & 15) {
                    i if i < VERSIONS.len() => format!("\"{}\"", VERSIONS[i]),
                    8 => "20251125".to_string(),
                    9 => json_text(input),
                    _ => "\"2025-11-25\"".to_string(),
                };
                let capabilities = match v >> 4 & 7 {
                    5 => String::new(),
                    6 => r#","capabilities":[]"#.to_string(),
                    i => format!(r#","capabilities":{}"#, CAPABILITIES[usize::from(i) % CAPABILITIES.len()]),
                };
                let extra = SERVER_INFO[usize::from(input.byte()) % SERVER_INFO.len()];
                result(format!(r#"{{"protocolVersion":{version}{capabilities}{extra}}}"#))
            }
            3 => {
                let body = match v % 8 {
                    0 => "{}".to_string(),
                    1 => format!(r#"{{"content":[{{"type":"text","text":{}}}]}}"#, json_text(input)),
                    2 => r#"{"tools":[{"name":"echo","inputSchema":{"type":"object"}}],"nextCursor":"c1"}"#.to_string(),
                    3 => r#"{"resultType":"complete","content":[]}"#.to_string(),
                    4 => r#"{"contents":[{"uri":"file:///a","text":"a"}]}"#.to_string(),
                    5 => r#"{"messages":[],"_meta":{"io.modelcontextprotocol/requestState":"x"}}"#.to_string(),
                    6 => r#"{"resultType":"input_required_not"}"#.to_string(),
                    _ => format!(r#"{{"content":[],"pad":"{}"}}"#, "p".repeat(usize::from(input.u16()) % 9000)),
                };
                result(body)
            }
            4 | 5 => {
                let count = usize::from(v & 3);
                let mut entries = Vec::new();
                for i in 0..count {
                    let entry = INPUT_ENTRIES[usize::from(input.byte()) % INPUT_ENTRIES.len()];
                    let key = if input.byte() & 7 == 0 { format!("k\\u003{i}") } else { format!("k{i}") };
                    entries.push(format!(r#""{key}":{entry}"#));
                }
                let requests = match v >> 2 & 7 {
                    5 => String::new(),
                    6 => r#","inputRequests":[]"#.to_string(),
                    7 => r#","inputRequests":"x""#.to_string(),
                    _ => format!(r#","inputRequests":{{{}}}"#, entries.join(",")),
                };
                let state = match usize::from(v >> 5) {
                    0 | 1 => String::new(),
                    2 => format!(r#","requestState":{}"#, json_text(input)),
                    3 => format!(r#","requestState":"{}""#, "S".repeat(usize::from(input.u16()) % 4000)),
                    i => format!(r#","requestState":{}"#, REQUEST_STATES[(i + usize::from(input.byte())) % 7]),
                };
                let result_type =
                    if input.byte().is_multiple_of(8) { "input\\u005frequired" } else { "input_required" };
                result(format!(r#"{{"resultType":"{result_type}"{requests}{state}}}"#))
            }
            6 => {
                let code = [
                    "-32601",
                    "-32600",
                    "-32602",
                    "-32603",
                    "-32022",
                    "-32700",
                    "0",
                    "7",
                    "9223372036854775807",
                    "1.5",
                ][usize::from(v % 10)];
                let data = match v >> 4 & 3 {
                    0 => String::new(),
                    1 => r#","data":{"supported":["2025-11-25"],"requested":"2026-07-28"}"#.to_string(),
                    2 => format!(r#","data":{}"#, json_text(input)),
                    _ => r#","data":null"#.to_string(),
                };
                let message = if v & 64 == 0 { "\"no\"".to_string() } else { json_text(input) };
                format!(r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":{code},"message":{message}{data}}}}}"#)
            }
            7 => result(
                ["5", "null", "[]", "\"x\"", "true", r#"{"resultType":5}"#, r#"{"resultType":"input_required"}"#]
                    [usize::from(v) % 7]
                    .to_string(),
            ),
            8 => {
                let raw = String::from_utf8_lossy(input.chunk()).into_owned();
                if v & 1 == 0 { result(raw) } else { format!(r#"{{"jsonrpc":"2.0","id":{id},"error":{raw}}}"#) }
            }
            _ => match v % 7 {
                0 => format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{}},"error":{{"code":1,"message":"x"}}}}"#),
                1 => format!(r#"{{"id":{id},"result":{{}}}}"#),
                2 => format!(r#"{{"jsonrpc":"1.0","id":{id},"result":{{}}}}"#),
                3 => format!(r#"{{"jsonrpc":"2.0","id":{id},"id":99,"result":{{}}}}"#),
                4 => format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{}},"method":"ping"}}"#),
                5 => format!(r#"{{"jsonrpc":"2.0","id":{id}}}"#),
                _ => format!(r#"{{"jsonrpc":"2.0","id":{id},"error":{{"message":"no code"}}}}"#),
            },
        }
    }

    /// A request from the server, without a newline.
    pub(super) fn server_request(&mut self, input: &mut Input<'_>) -> String {
        self.next_server_id += 1;
        let n = self.next_server_id;
        let id = match input.byte() % 12 {
            0..=4 => format!("{n}"),
            5 | 6 => format!("\"s{n}\""),
            7 => format!("\"\\u0073{n}\\n\""),
            8 => format!("\"{}{n}\"", "L".repeat(80)),
            9 => ["null", "1.5", "{}", "[1]", "true"][input.below(5)].to_string(),
            10 => format!("-{n}"),
            _ => "1".to_string(),
        };
        let (method, params) = match input.byte() % 16 {
            0..=2 => ("ping", ["", r#","params":{}"#, r#","params":[1]"#, r#","params":{"_meta":{"progressToken":1}}"#][input.below(4)].to_string()),
            3 | 4 => ("roots/list", ["", r#","params":{}"#][input.below(2)].to_string()),
            5 | 6 => (
                "elicitation/create",
                [
                    r#","params":{"message":"Sure?","requestedSchema":{"type":"object","properties":{"ok":{"type":"boolean"}}}}"#,
                    r#","params":{"mode":"form","message":"m","requestedSchema":{}}"#,
                    r#","params":{"mode":"url","message":"Go","url":"https://example.com","elicitationId":"e"}"#,
                    r#","params":{"mode":"url","message":"Go"}"#,
                    r#","params":{"requestedSchema":{}}"#,
                    r#","params":{"message":5,"requestedSchema":{}}"#,
                ][input.below(6)]
                    .to_string(),
            ),
            7 | 8 => (
                "sampling/createMessage",
                [
                    r#","params":{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":10}"#,
                    "",
                    r#","params":5"#,
                    r#","params":{"messages":[],"maxTokens":1,"tools":[{"name":"t","inputSchema":{}}]}"#,
                ][input.below(4)]
                    .to_string(),
            ),
            9 => ("tools/list", String::new()),
            10 => ("server/discover", String::new()),
            11 => ("elicitation\\/create", r#","params":{"message":"m","requestedSchema":{}}"#.to_string()),
            12 => ("", String::new()),
            _ => ("x/unknown", format!(r#","params":{{"text":{}}}"#, json_text(input))),
        };
        match input.byte() % 8 {
            0 => format!(r#"{{"jsonrpc":"1.0","id":{id},"method":"{method}"{params}}}"#),
            1 => format!(r#"{{"id":{id},"method":"{method}"{params}}}"#),
            2 => format!(r#"{{"method":"{method}","id":{id},"jsonrpc":"2.0"{params}}}"#),
            _ => format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}"{params}}}"#),
        }
    }

    /// A notification from the server, without a newline; `last` is the id of the client's latest
    /// request (for progress tokens and cancellations).
    pub(super) fn notification(&mut self, last: i64, input: &mut Input<'_>) -> String {
        let (method, params) = match input.byte() % 14 {
            0 | 1 => {
                let token = [format!("{last}"), format!("\"{last}\""), "-1".to_string(), "null".to_string()]
                    [input.below(4)]
                .clone();
                let progress = ["0.5", "1", "\"x\"", "1e400", "-0"][input.below(5)];
                let total = ["", r#","total":2"#, r#","total":"t""#][input.below(3)];
                let message =
                    if input.byte() & 1 == 0 { String::new() } else { format!(r#","message":{}"#, json_text(input)) };
                (
                    "notifications/progress",
                    format!(r#","params":{{"progressToken":{token},"progress":{progress}{total}{message}}}"#),
                )
            }
            2 | 3 => {
                let level = ["\"debug\"", "\"info\"", "\"warning\"", "\"emergency\"", "\"loud\"", "5"][input.below(6)];
                (
                    "notifications/message",
                    format!(r#","params":{{"level":{level},"logger":"fz","data":{{"text":{}}}}}"#, json_text(input)),
                )
            }
            4 => ("notifications/tools/list_changed", String::new()),
            5 => ("notifications/prompts/list_changed", String::new()),
            6 => ("notifications/resources/list_changed", r#","params":{}"#.to_string()),
            7 => (
                "notifications/resources/updated",
                [r#","params":{"uri":"file:///a"}"#, r#","params":{"uri":5}"#, ""][input.below(3)].to_string(),
            ),
            8 => {
                let target = [format!("{last}"), format!("\"{last}\""), "99".to_string(), "null".to_string()]
                    [input.below(4)]
                .clone();
                ("notifications/cancelled", format!(r#","params":{{"requestId":{target},"reason":"r"}}"#))
            }
            9 => (
                "notifications/subscriptions/acknowledged",
                r#","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":3}}"#.to_string(),
            ),
            10 => ("notifications/initialized", String::new()),
            11 => ("notifications/elicitation/complete", r#","params":{"elicitationId":"e"}"#.to_string()),
            12 => ("notifications/progress", r#","params":5"#.to_string()),
            _ => ("x/other", format!(r#","params":{{"a":{}}}"#, json_text(input))),
        };
        format!(r#"{{"jsonrpc":"2.0","method":"{method}"{params}}}"#)
    }
}
