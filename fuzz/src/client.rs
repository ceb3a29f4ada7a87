//! Target `client`: the client engine driven by a scripted, arbitrary server, in both protocol eras.
//!
//! Input: four configuration bytes (era policy, declared capabilities, how the application answers
//! requests for input, receive and transmit buffer sizes, retry buffer, input rounds, limits,
//! timeouts, and whether 1 or 4 requests may await answers), then operations until the input ends:
//! queue a server line (an answer to a request the client wrote, chosen by what the client really
//! sent: discover and initialize results, tool results, `input_required` with `inputRequests` and
//! `requestState`, errors, malformed envelopes; a request from the server: `ping`, `roots/list`,
//! `elicitation/create`, `sampling/createMessage`, unknown methods; a notification; raw bytes; a
//! corrupted line); deliver queued bytes through `handle_input`, `rx_spare`/`rx_commit` or one byte
//! at a time; transmit part of the output; let time pass and call `handle_timeout`; send a typed
//! request (`call_tool`, `list_tools`, `ping`, `read_resource`, `get_prompt`, …) or cancel one;
//! change how the application answers input; end the input. Then the run is finished: everything
//! delivered, the input ended, the output drained.
//!
//! Checked after every operation (and inside the handler's callbacks):
//! - the engine never panics, and a call's work is bounded (libFuzzer's `-timeout`);
//! - the output is complete lines, each valid JSON (for the scanner and serde_json) and a JSON-RPC
//!   2.0 request, notification (`notifications/initialized`, `notifications/cancelled` of a request
//!   it sent, at most once each) or answer, without a raw carriage return;
//! - the first request is `server/discover` (Auto, Modern) or `initialize` (Legacy); request ids
//!   are positive integers and never reused; once connected at 2026-07-28 every request carries
//!   `params._meta["io.modelcontextprotocol/protocolVersion"]` = `"2026-07-28"`, and once connected
//!   in a legacy version none does;
//! - a retry with `inputResponses` echoes a `requestState` the server sent, byte for byte;
//! - no server request is answered more often than it arrived;
//! - the handshake ends at most once (`Connected` or `ConnectFailed`), in the era the policy allows;
//!   `ConnectFailed(Closed)` and `Outcome::Closed` only after the end of input;
//! - [`Handler::on_input`] is only asked for inputs whose capability the client declared;
//! - each key the application got has at most one [`Handler::on_response`], none after it was
//!   cancelled; `cancel` succeeds exactly for keys without an outcome; a request is refused
//!   `NotAvailable` before the connection and `TooManyRequests` only when `OUTBOUND` await answers;
//! - `awaiting_answers()` never exceeds `OUTBOUND`; after `handle_timeout(now)` no deadline is due;
//! - refused input means output is waiting (no stall).
//!
//! At the end: the engine is finished, every key the application got and did not cancel had exactly
//! one outcome, every server request that arrived once on a complete line within the limits was
//! answered exactly once, and a handshake that started has ended.

use std::collections::{BTreeMap, BTreeSet};

use mcp_sansio::client::{Client, Config, ConnectError, EraPolicy, Event, Handler, InputAnswer, Notification};
use mcp_sansio::endpoint::{self, Buffers, Limits, OutboundKey, Outcome, Response, SendError, StreamId};
use mcp_sansio::json::{JsonWriter, Kind, MAX_DEPTH_LIMIT, ScanErrorKind, parse, peek_member};
use mcp_sansio::jsonrpc::{EnvelopeError, Id, Message, classify};
use mcp_sansio::mcp::input::ReceivedInput;
use mcp_sansio::mcp::{ClientCapabilities, ListCapability, LoggingLevel};
use mcp_sansio::time::Instant;
use mcp_sansio::version::{Era, ProtocolVersion};

use crate::input::{Encoder, Input};

/// Operations per run; the rest of a longer input is ignored.
const MAX_OPS: usize = 400;
/// Ids longer than this (as JSON text) are exempt from the exactly-once check: an error that does not
/// fit the transmit window even with the id is answered without it.
const MAX_CHECKED_ID_LEN: usize = 64;
/// The `_meta` key every 2026-07-28 request carries.
const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// The clock at the start of a run, in milliseconds.
const START: u64 = 1_000;

/// The operation codes (the first byte of an operation, modulo 16).
pub mod op {
    /// Queue an answer to a request the client sent: flags, target, kind, details.
    pub const ANSWER: u8 = 0;
    /// Queue a request from the server: flags, then its id, method and params.
    pub const SERVER_REQUEST: u8 = 1;
    /// Queue a notification from the server: flags, then which.
    pub const NOTIFICATION: u8 = 2;
    /// Queue raw bytes (a `u16`-prefixed chunk).
    pub const RAW: u8 = 3;
    /// Queue a generated line, cut, changed or extended at one byte.
    pub const CORRUPT: u8 = 4;
    /// Deliver up to `u16` queued bytes with `handle_input`.
    pub const DELIVER: u8 = 5;
    /// Deliver through `rx_spare`/`rx_commit`: a limit byte (×8) and an over-commit byte.
    pub const DELIVER_SPARE: u8 = 6;
    /// Deliver one byte at a time, up to a byte's count.
    pub const DELIVER_BYTES: u8 = 7;
    /// Transmit: report `u16` bytes written (`u16::MAX`: everything pending, in one go).
    pub const TRANSMIT: u8 = 8;
    /// Let `u16` milliseconds pass (`u16::MAX`: up to the next deadline), then `handle_timeout`.
    pub const CLOCK: u8 = 9;
    /// Send a typed request: kind, details.
    pub const REQUEST: u8 = 10;
    /// Cancel the key the application got at an index.
    pub const CANCEL: u8 = 11;
    /// Change how the application answers requests for input; or call `connect` again.
    pub const INPUT_MODE: u8 = 12;
    /// End the input (when the next byte is a multiple of 4).
    pub const EOF: u8 = 13;
    /// Transmit everything, then deliver everything queued.
    pub const SETTLE: u8 = 14;
    /// Another code for [`ANSWER`], the operation that reaches the most states.
    pub const ANSWER_TOO: u8 = 15;
}

/// Flags of the operations that queue a line.
pub mod flag {
    /// End the line with `\r\n` instead of `\n`.
    pub const CRLF: u8 = 1;
    /// Deliver everything queued right after.
    pub const DELIVER: u8 = 2;
    /// Transmit everything pending first (so the client's latest request is known).
    pub const TRANSMIT_FIRST: u8 = 4;
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

    fn of_json(id: &serde_json::Value) -> Option<Self> {
        match id {
            serde_json::Value::Number(n) => n.as_i64().map(IdKey::Number),
            serde_json::Value::String(s) => Some(IdKey::String(s.clone())),
            _ => None,
        }
    }
}

/// Whether to print every line in and out on stderr (`MCP_FUZZ_TRACE=1`), to triage a crash.
fn tracing() -> bool {
    static TRACE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *TRACE.get_or_init(|| std::env::var_os("MCP_FUZZ_TRACE").is_some())
}

fn json_text(input: &mut Input<'_>) -> String {
    serde_json::to_string(&String::from_utf8_lossy(input.chunk())).expect("strings serialize")
}

/// What the application does when asked for input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum InputMode {
    /// Writes a fitting result.
    Answer,
    /// Refuses without writing.
    Refuse,
    /// Writes a result, then refuses (nothing of it may go out).
    WriteThenRefuse,
    /// Writes a result of several kilobytes (may not fit).
    Large,
}

impl InputMode {
    fn from_byte(byte: u8) -> Self {
        [InputMode::Answer, InputMode::Refuse, InputMode::WriteThenRefuse, InputMode::Large][usize::from(byte & 3)]
    }
}

/// What the application knows of one key it got.
#[derive(Clone, Copy, Debug, Default)]
struct KeyState {
    outcomes: u32,
    cancelled: bool,
}

/// The application under test: records what it is told and checks it as it comes.
struct Host {
    policy: EraPolicy,
    capabilities: ClientCapabilities,
    mode: InputMode,
    /// Every key the application got, by id.
    keys: BTreeMap<i64, KeyState>,
    connected: Option<ProtocolVersion>,
    failed: Option<ConnectError>,
    fell_back: bool,
    /// `handle_eof` was called.
    eof: bool,
    inputs: usize,
}

fn is_declared(input: &ReceivedInput<'_>, declared: &ClientCapabilities) -> bool {
    match input {
        ReceivedInput::ElicitForm { .. } => declared.elicitation_form,
        ReceivedInput::ElicitUrl { .. } => declared.elicitation_url,
        ReceivedInput::Sample { .. } => declared.sampling,
        ReceivedInput::ListRoots => declared.roots.is_some(),
        _ => false,
    }
}

impl Handler for Host {
    fn on_response(&mut self, _now: Instant, response: Response<'_>) {
        let id = response.request.id();
        let Some(state) = self.keys.get_mut(&id) else {
            panic!("on_response for {id}, a key the application never got (keys: {:?})", self.keys.keys());
        };
        assert!(!state.cancelled, "on_response for {id} after the application cancelled it");
        assert_eq!(state.outcomes, 0, "a second outcome for {id}: {:?}", response.outcome);
        state.outcomes += 1;
        if response.outcome == Outcome::Closed {
            assert!(self.eof, "Outcome::Closed for {id} before the end of input");
        }
    }

    fn on_notification(&mut self, _now: Instant, notification: Notification<'_>) {
        if let Notification::Progress { progress, .. } = notification {
            assert_eq!(progress.kind(), mcp_sansio::json::Kind::Number, "a progress that is not a number");
        }
    }

    fn on_input(&mut self, _now: Instant, input: ReceivedInput<'_>, result: &mut JsonWriter<'_>) -> InputAnswer {
        assert!(is_declared(&input, &self.capabilities), "asked for {} without the capability", input.method());
        self.inputs += 1;
        let body: &[u8] = match input {
            ReceivedInput::ElicitForm { .. } => br#"{"action":"accept","content":{"ok":true}}"#,
            ReceivedInput::ElicitUrl { .. } => br#"{"action":"decline"}"#,
            ReceivedInput::ListRoots => br#"{"roots":[{"uri":"file:///tmp","name":"tmp"}]}"#,
            _ => br#"{"role":"assistant","content":{"type":"text","text":"hi"},"model":"fz"}"#,
        };
        match self.mode {
            InputMode::Answer => {
                result.raw(body);
                InputAnswer::Written
            }
            InputMode::Refuse => InputAnswer::Refused,
            InputMode::WriteThenRefuse => {
                result.raw(body);
                InputAnswer::Refused
            }
            InputMode::Large => {
                result.raw(br#"{"action":"accept","content":{"text":""#);
                for _ in 0..6000 {
                    result.raw(b"x");
                }
                result.raw(b"\"}}");
                InputAnswer::Written
            }
        }
    }

    fn on_event(&mut self, _now: Instant, event: Event<'_>) {
        match event {
            Event::Connected { version, .. } => {
                assert!(self.connected.is_none() && self.failed.is_none(), "a second end of the handshake");
                match self.policy {
                    EraPolicy::Legacy => assert_eq!(version.era(), Era::Legacy, "Legacy policy, modern version"),
                    EraPolicy::Modern => assert_eq!(version, ProtocolVersion::V2026_07_28),
                    _ => {}
                }
                if version.era() == Era::Modern {
                    assert!(!self.fell_back, "modern after falling back");
                }
                self.connected = Some(version);
            }
            Event::FellBack => {
                assert_eq!(self.policy, EraPolicy::Auto, "only Auto falls back");
                assert!(!self.fell_back && self.connected.is_none() && self.failed.is_none());
                self.fell_back = true;
            }
            Event::ConnectFailed(error) => {
                assert!(self.connected.is_none() && self.failed.is_none(), "a second end of the handshake");
                if error == ConnectError::Closed {
                    assert!(self.eof, "ConnectFailed(Closed) before the end of input");
                }
                self.failed = Some(error);
            }
            Event::Endpoint(endpoint::Event::Rejected { code, reason }) => {
                assert!((-32800..=-32000).contains(&code), "unexpected error code {code}");
                assert!(!reason.is_empty());
            }
            _ => {}
        }
    }
}

/// The configuration of one run.
struct Setup {
    policy: EraPolicy,
    capabilities: ClientCapabilities,
    mode: InputMode,
    rx: usize,
    tx: usize,
    retry: Option<usize>,
    max_input_rounds: u8,
    limits: Limits,
    connect_timeout: u64,
    request_timeout: Option<u64>,
    one_outbound: bool,
}

impl Setup {
    fn read(input: &mut Input<'_>) -> Self {
        const RX: [usize; 16] = [0, 1, 2, 16, 64, 100, 200, 256, 300, 512, 700, 1024, 2048, 4096, 150, 8192];
        const TX: [usize; 16] =
            [256, 257, 300, 400, 512, 600, 800, 1024, 1500, 2048, 4096, 8192, 320, 768, 3000, 16384];
        let a = input.byte();
        let policy = [EraPolicy::Auto, EraPolicy::Legacy, EraPolicy::Modern, EraPolicy::Auto][usize::from(a & 3)];
        let mut capabilities = ClientCapabilities::NONE;
        capabilities.elicitation_form = a & 4 != 0;
        capabilities.elicitation_url = a & 8 != 0;
        capabilities.sampling = a & 16 != 0;
        capabilities.roots = (a & 32 != 0).then_some(ListCapability { list_changed: true });
        let mode = InputMode::from_byte(a >> 6);
        let b = input.byte();
        let (rx, mut tx) = (RX[usize::from(b & 15)], TX[usize::from(b >> 4)]);
        let c = input.byte();
        let mut retry =
            [None, Some(256), Some(64), Some(1024), Some(20), Some(0), Some(4096), None][usize::from(c & 7)];
        let max_input_rounds = [8, 0, 1, 2][usize::from(c >> 3 & 3)];
        if c & 32 != 0 {
            // Room for requests of more than 64 KiB, kept for a retry.
            tx = 80_000;
            retry = retry.map(|_| 70_000);
        }
        let max_response = [usize::MAX, 256, 512, tx / 4][usize::from(c >> 6)];
        let d = input.byte();
        let max_depth = [64, 0, 1, 2, 3, 4, 8, 300][usize::from(d & 7)];
        let connect_timeout = [10_000, 1, 100, 2_000][usize::from(d >> 3 & 3)];
        let request_timeout = [Some(60_000), Some(1), Some(50), None][usize::from(d >> 5 & 3)];
        Setup {
            policy,
            capabilities,
            mode,
            rx,
            tx,
            retry,
            max_input_rounds,
            limits: Limits { max_depth, max_response, ..Limits::DEFAULT },
            connect_timeout,
            request_timeout,
            one_outbound: d & 128 != 0,
        }
    }
}

/// Generates the server's lines.
#[derive(Default)]
struct Generator {
    next_server_id: u64,
}

const VERSIONS: [&str; 8] =
    ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28", "1999-01-01", "", "2025-11\\u002d25"];

const CAPABILITIES: [&str; 5] = [
    "{}",
    r#"{"tools":{"listChanged":true}}"#,
    r#"{"tools":{},"resources":{"subscribe":true,"listChanged":true},"prompts":{},"logging":{},"completions":{}}"#,
    r#"{"tools":5,"resources":[]}"#,
    r#"{"experimental":{"x":{}},"tasks":{}}"#,
];

const SERVER_INFO: [&str; 5] = [
    "",
    r#","serverInfo":{"name":"fz","version":"1","title":"Fuzz"}"#,
    r#","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"fz\n","version":"1"}}"#,
    r#","instructions":"be \"nice\"\u0000""#,
    r#","serverInfo":{"name":5},"instructions":7"#,
];

/// Entries of an `inputRequests` object.
const INPUT_ENTRIES: [&str; 9] = [
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

const REQUEST_STATES: [&str; 7] =
    ["\"s\"", r#""a\u0062 \"c\"""#, r#"{"n":[1,2.50,"x"]}"#, "null", "42", "true", "\"\""];

impl Generator {
    /// An answer to the request `id` (JSON text), without a newline.
    fn answer(&mut self, id: &str, input: &mut Input<'_>) -> String {
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
    fn server_request(&mut self, input: &mut Input<'_>) -> String {
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
    fn notification(&mut self, last: i64, input: &mut Input<'_>) -> String {
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

/// One run: the engine and its application, what was sent and received, and the bookkeeping.
struct Run<'a, const N: usize> {
    client: Client<'a, Host, N>,
    setup_rx: usize,
    max_depth: usize,
    now: u64,
    eof: bool,
    /// `connect` returned `Ok`.
    connecting: bool,
    /// Generated bytes not yet taken by the engine.
    queued: Vec<u8>,
    /// Taken bytes after the last newline.
    line_tail: Vec<u8>,
    /// Transmitted bytes after the last newline.
    out_tail: Vec<u8>,
    /// Every request id the client wrote, with its method.
    sent: BTreeMap<i64, String>,
    /// Requests the client wrote that the fake server has not answered yet, oldest first.
    outstanding: Vec<i64>,
    /// `notifications/cancelled` written per id.
    cancels: BTreeMap<i64, usize>,
    /// The keys the application got, in order.
    app_keys: Vec<OutboundKey>,
    /// How often each id arrived in a complete line the client may answer with that id.
    received: BTreeMap<IdKey, usize>,
    /// Server requests alone on a complete line within the limits: answered exactly once.
    must_answer: Vec<IdKey>,
    answers: BTreeMap<IdKey, usize>,
    /// `requestState` values (raw JSON text) sent in `input_required` answers.
    states: BTreeSet<Vec<u8>>,
    generator: Generator,
}

impl<'a, const N: usize> Run<'a, N> {
    fn now(&self) -> Instant {
        Instant::from_millis(self.now)
    }

    fn host(&self) -> &Host {
        self.client.handler()
    }

    /// Checks that hold after every operation.
    fn check(&self) {
        let engine = &*self.client;
        assert!(engine.awaiting_answers() <= N, "{} requests await answers, more than {N}", engine.awaiting_answers());
        if let Some(t) = engine.poll_transmit() {
            assert_eq!(t.stream, StreamId::BYTE_STREAM, "a client writes one byte stream");
            assert!(!t.end_of_stream, "a byte stream has no end to write");
            assert!(!t.bytes.is_empty(), "poll_transmit returned no bytes");
            assert_eq!(t.bytes.last(), Some(&b'\n'), "the transmit buffer holds a partial message");
        }
        let host = self.host();
        assert_eq!(engine.era(), host.connected, "era() disagrees with Event::Connected");
        assert_eq!(engine.is_failed(), host.failed.is_some(), "is_failed() disagrees with Event::ConnectFailed");
        assert_eq!(engine.server_capabilities().is_some(), host.connected.is_some());
        if engine.is_finished() {
            assert!(self.eof, "finished before the end of input");
            assert!(engine.poll_transmit().is_none() && engine.awaiting_answers() == 0);
        }
    }

    /// Accounts for a complete line taken by the engine.
    fn received_line(&mut self, line: &[u8]) {
        if tracing() {
            eprintln!("-> {}", String::from_utf8_lossy(line));
        }
        // Nested deeper than the engine's limit: answered only that, with the request's id if it has
        // a method and an id (the same scanner meets the same first error).
        if line.len() <= self.setup_rx && parse(line, self.max_depth).is_err_and(|e| e.kind == ScanErrorKind::TooDeep) {
            if peek_member(line, "method").is_some()
                && let Some(id) = peek_member(line, "id").and_then(|v| parse(v, 0).ok()).and_then(Id::from_value)
            {
                *self.received.entry(IdKey::of(id)).or_default() += 1;
            }
            return;
        }
        let Ok(value) = parse(line, MAX_DEPTH_LIMIT) else { return };
        if value.kind() == Kind::Array {
            return; // answered with one error without an id
        }
        // The `requestState` of an `input_required` answer, to check its echo.
        if let Some(state) = value.get("result").and_then(|r| r.get("requestState")) {
            self.states.insert(state.as_bytes().to_vec());
        }
        let (id, request) = match classify(value) {
            Ok(Message::Request { id, .. }) => (id, true),
            Err(EnvelopeError { id: Some(id), .. }) => (id, false),
            _ => return,
        };
        let key = IdKey::of(id);
        *self.received.entry(key.clone()).or_default() += 1;
        let id_len = value.get("id").map_or(usize::MAX, |v| v.as_bytes().len());
        let within_limits = line.len() <= self.setup_rx && parse(line, self.max_depth).is_ok();
        if request && within_limits && id_len <= MAX_CHECKED_ID_LEN {
            self.must_answer.push(key);
        }
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
        let text = String::from_utf8_lossy(line);
        assert!(!line.contains(&b'\r'), "a raw carriage return in the output: {text}");
        let ours = match parse(line, MAX_DEPTH_LIMIT) {
            Ok(value) => value,
            Err(error) => panic!("invalid output line {text:?}: {error}"),
        };
        let theirs: serde_json::Value = match serde_json::from_slice(line) {
            Ok(value) => value,
            Err(error) => panic!("serde_json rejects output {text:?}: {error}"),
        };
        assert!(theirs.is_object(), "output is not an object: {text}");
        assert_eq!(theirs["jsonrpc"], "2.0", "output without \"jsonrpc\":\"2.0\": {text}");
        let method = theirs.get("method");
        let id = theirs.get("id");
        match (method, id) {
            (Some(method), Some(id)) => {
                let method = method.as_str().unwrap_or_else(|| panic!("a request without a method name: {text}"));
                let id = id.as_i64().filter(|&id| id > 0).unwrap_or_else(|| panic!("request id not positive: {text}"));
                assert!(!self.sent.contains_key(&id), "request id {id} reused: {text}");
                self.check_request(method, &theirs, ours, &text);
                self.sent.insert(id, method.to_string());
                self.outstanding.push(id);
            }
            (Some(method), None) => match method.as_str() {
                Some("notifications/initialized") => {
                    let connected = self.host().connected;
                    assert!(
                        connected.is_some_and(|v| v.era() == Era::Legacy),
                        "initialized without a legacy handshake"
                    );
                }
                Some("notifications/cancelled") => {
                    let target = theirs["params"]["requestId"].as_i64();
                    let target =
                        target.unwrap_or_else(|| panic!("a cancellation without an integer requestId: {text}"));
                    assert!(self.sent.contains_key(&target), "a cancellation of {target}, never sent: {text}");
                    let count = self.cancels.entry(target).or_default();
                    *count += 1;
                    assert_eq!(*count, 1, "request {target} cancelled twice");
                }
                // The one the application sends with `notify`.
                Some("notifications/roots/list_changed") => {}
                _ => panic!("a notification a client does not send: {text}"),
            },
            (None, Some(id)) => {
                let result = theirs.get("result").is_some();
                let error = theirs.get("error").is_some();
                assert!(result != error, "an answer needs exactly one of result and error: {text}");
                if error {
                    let code = theirs["error"]["code"].as_i64().unwrap_or_else(|| panic!("no error code: {text}"));
                    assert!((-32800..=-32000).contains(&code), "unexpected error code {code}: {text}");
                }
                if id.is_null() {
                    assert!(error, "a result for id null: {text}");
                    return;
                }
                let key = IdKey::of_json(id).unwrap_or_else(|| panic!("an answer with an invalid id: {text}"));
                let answers = self.answers.entry(key.clone()).or_default();
                *answers += 1;
                let received = self.received.get(&key).copied().unwrap_or(0);
                assert!(*answers <= received, "{key:?} answered {answers} times, received {received} times: {text}");
            }
            // An error about a message whose id could not be read has none (as the server writes it).
            (None, None) => {
                let code = theirs["error"]["code"].as_i64();
                let code = code.unwrap_or_else(|| panic!("not a JSON-RPC message: {text}"));
                assert!([-32700, -32600].contains(&code), "an error {code} without an id: {text}");
                assert!(theirs.get("result").is_none(), "a result without an id: {text}");
            }
        }
    }

    /// Checks a request the client wrote.
    fn check_request(&self, method: &str, theirs: &serde_json::Value, ours: mcp_sansio::json::Value<'_>, text: &str) {
        let host = self.host();
        if self.sent.is_empty() {
            let expected = if host.policy == EraPolicy::Legacy { "initialize" } else { "server/discover" };
            assert_eq!(method, expected, "the first request under {:?}", host.policy);
        }
        let version = &theirs["params"]["_meta"][META_VERSION];
        match (method, host.connected) {
            ("server/discover", _) => assert_eq!(version, "2026-07-28", "discover without _meta: {text}"),
            ("initialize", _) => {
                assert_ne!(host.policy, EraPolicy::Modern, "initialize under the Modern policy");
                assert_eq!(theirs["params"]["protocolVersion"], "2025-11-25");
            }
            (_, Some(ProtocolVersion::V2026_07_28)) => {
                assert_eq!(version, "2026-07-28", "a 2026-07-28 request without the version in _meta: {text}")
            }
            (_, Some(_)) => assert!(version.is_null(), "a legacy request with a modern _meta: {text}"),
            (_, None) => panic!("a request before the connection: {text}"),
        }
        let params = ours.get("params");
        if let Some(responses) = params.and_then(|p| p.get("inputResponses")) {
            assert_eq!(host.connected, Some(ProtocolVersion::V2026_07_28), "inputResponses in a legacy request");
            assert!(["tools/call", "prompts/get", "resources/read"].contains(&method), "{method} retried");
            assert_eq!(responses.kind(), Kind::Object, "inputResponses not an object: {text}");
            if let Some(state) = params.and_then(|p| p.get("requestState")) {
                assert!(self.states.contains(state.as_bytes()), "requestState not echoed byte for byte: {text}");
            }
        }
    }

    /// One `poll_transmit`/`transmit_done` round reporting `n` bytes written.
    fn transmit(&mut self, n: usize) -> bool {
        let now = self.now();
        let Some(pending) = self.client.poll_transmit() else { return false };
        let n = n.min(pending.bytes.len());
        let written = pending.bytes[..n].to_vec();
        let (engine, host) = self.client.parts_mut();
        engine.transmit_done(now, n, host);
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
        let mut rounds = 0;
        while self.transmit(usize::MAX) {
            rounds += 1;
            assert!(rounds < 10_000, "the output never drains");
            self.check();
        }
    }

    /// The engine took nothing although input is waiting: output must be pending (back-pressure).
    fn assert_not_stalled(&self) {
        assert!(self.client.poll_transmit().is_some(), "the engine refuses input with nothing to transmit");
    }

    fn deliver(&mut self, limit: usize) {
        if self.eof || self.queued.is_empty() {
            return;
        }
        let n = limit.min(self.queued.len());
        if n == 0 {
            return;
        }
        let now = self.now();
        let data = self.queued[..n].to_vec();
        let taken = self.client.handle_input(now, &data);
        assert!(taken <= n, "took more than it was given");
        if taken == 0 {
            self.assert_not_stalled();
        }
        self.queued.drain(..taken);
        self.took(&data[..taken]);
    }

    fn deliver_all(&mut self) {
        let mut rounds = 0;
        while !self.eof && !self.queued.is_empty() {
            rounds += 1;
            assert!(rounds < 100_000, "the input is never taken");
            let before = self.queued.len();
            self.deliver(usize::MAX);
            self.check();
            if self.queued.len() == before {
                self.flush();
            }
        }
    }

    fn deliver_with_spare(&mut self, limit: usize, overcommit: usize) {
        if self.eof {
            assert!(self.client.rx_spare().is_empty(), "rx_spare offers room after the end of input");
            return;
        }
        if self.queued.is_empty() {
            return;
        }
        let spare = self.client.rx_spare();
        let room = spare.len();
        if room == 0 {
            self.assert_not_stalled();
            return;
        }
        let n = room.min(limit.max(1)).min(self.queued.len());
        spare[..n].copy_from_slice(&self.queued[..n]);
        let committed = if n == room { n + overcommit } else { n };
        let now = self.now();
        let (engine, host) = self.client.parts_mut();
        engine.rx_commit(now, committed, host);
        let bytes: Vec<u8> = self.queued.drain(..n).collect();
        self.took(&bytes);
    }

    fn end_of_input(&mut self) {
        let now = self.now();
        self.client.handler_mut().eof = true;
        let (engine, host) = self.client.parts_mut();
        engine.handle_eof(now, host);
        self.eof = true;
        self.queued.clear();
    }

    fn clock(&mut self, step: u16) {
        self.now = match step {
            u16::MAX => self.client.poll_timeout().map_or(self.now, |t| t.as_millis().max(self.now)),
            step => self.now + u64::from(step),
        };
        let now = self.now();
        let (engine, host) = self.client.parts_mut();
        engine.handle_timeout(now, host);
        if let Some(deadline) = self.client.poll_timeout() {
            assert!(deadline > now, "a deadline at {deadline:?} is still due after handle_timeout({now:?})");
        }
    }

    /// Queues a generated line and applies its flags.
    fn queue_line(&mut self, line: &str, flags: u8) {
        self.queued.extend_from_slice(line.as_bytes());
        self.queued.extend_from_slice(if flags & flag::CRLF != 0 { b"\r\n" } else { b"\n" });
        if flags & flag::DELIVER != 0 {
            self.deliver_all();
        }
    }

    /// The id (JSON text) an answer goes to.
    fn answer_target(&mut self, input: &mut Input<'_>) -> String {
        let last = self.sent.keys().next_back().copied();
        let selector = input.byte();
        match selector % 8 {
            0..=2 => format!("{}", last.unwrap_or(1)),
            3 => {
                if self.outstanding.is_empty() {
                    return format!("{}", last.unwrap_or(1));
                }
                let id = self.outstanding.remove(input.below(self.outstanding.len()));
                format!("{id}")
            }
            4 => {
                let key = self.app_keys.get(input.below(self.app_keys.len()));
                format!("{}", key.map_or(1, |k| k.id()))
            }
            5 => format!("{}", last.unwrap_or(0) + 1 + i64::from(selector >> 6)),
            6 => format!("{}", input.byte()),
            _ => {
                let last = last.unwrap_or(1);
                [
                    format!("\"{last}\""),
                    format!("{last}.0"),
                    "null".to_string(),
                    format!("-{last}"),
                    format!("{last}e0"),
                ][usize::from(selector >> 3) % 5]
                    .clone()
            }
        }
    }

    fn answer(&mut self, input: &mut Input<'_>) {
        let flags = input.byte();
        if flags & flag::TRANSMIT_FIRST != 0 {
            self.flush();
        }
        let target = self.answer_target(input);
        let line = self.generator.answer(&target, input);
        self.queue_line(&line, flags);
    }

    fn last_sent(&self) -> i64 {
        self.sent.keys().next_back().copied().unwrap_or(1)
    }

    /// A typed request from the application.
    fn request(&mut self, input: &mut Input<'_>) {
        let now = self.now();
        let kind = input.byte();
        let text = String::from_utf8_lossy(input.chunk()).into_owned();
        let arguments = match input.byte() % 8 {
            0 => None,
            1 => Some("5".to_string()),
            2 => Some(format!(r#"{{"text":{}}}"#, serde_json::to_string(&text).expect("strings serialize"))),
            3 => {
                // Large params; past 64 KiB when kept for a retry in the large configuration.
                let len = usize::from(input.u16()) + if input.byte() & 1 == 0 { 0 } else { 65_500 };
                Some(format!(r#"{{"pad":"{}"}}"#, "p".repeat(len)))
            }
            4 => Some(r#"{"a":[1,{"b":null}],"inputResponses":{},"requestState":"mine"}"#.to_string()),
            _ => Some("{}".to_string()),
        };
        let arguments = arguments.as_deref().map(|a| parse(a.as_bytes(), MAX_DEPTH_LIMIT).expect("valid arguments"));
        let before = self.client.awaiting_answers();
        let engine = &mut *self.client;
        let result = match kind % 14 {
            0..=3 => engine.call_tool(now, &text, arguments),
            4 => engine.list_tools(now, arguments),
            5 => engine.ping(now),
            6 => engine.read_resource(now, &text),
            7 => engine.get_prompt(now, &text, arguments),
            8 => engine.request_with_progress(
                now,
                "tools/call",
                Some(&|w: &mut JsonWriter<'_>| {
                    w.raw(b"\"name\":");
                    w.string(&text);
                }),
            ),
            9 => match kind >> 4 & 3 {
                0 => engine.list_prompts(now, None),
                1 => engine.list_resources(now, arguments),
                2 => engine.list_resource_templates(now, None),
                _ => engine.subscribe(now, &text),
            },
            10 => match kind >> 4 & 3 {
                0 => engine.unsubscribe(now, &text),
                1 => engine.set_logging_level(now, LoggingLevel::ALL[usize::from(kind >> 6) % 8]),
                _ => {
                    let reference = parse(br#"{"type":"ref/prompt","name":"p"}"#, 8).expect("valid reference");
                    engine.complete(now, reference, "arg", &text)
                }
            },
            11 => engine.request(
                now,
                ["x/unknown", "resources/read", "prompts/get", "tools/call"][usize::from(kind >> 4 & 3)],
                None,
            ),
            12 => engine.request_with_progress(now, "tools/list", None),
            _ => {
                // The application's own notification (the harness accepts this one in the output).
                if let Err(SendError::Closed) = engine.notify("notifications/roots/list_changed", None) {
                    assert!(self.eof, "a notification refused before the end of input");
                }
                return;
            }
        };
        let engine = &*self.client;
        match result {
            Ok(key) => {
                assert!(engine.era().is_some(), "a request sent before the connection");
                assert!(!self.host().keys.contains_key(&key.id()), "key {} handed out twice", key.id());
                assert_eq!(engine.awaiting_answers(), before + 1, "a request sent but not awaited");
                self.app_keys.push(key);
                self.client.handler_mut().keys.insert(key.id(), KeyState::default());
            }
            Err(SendError::NotAvailable) => assert!(engine.era().is_none(), "NotAvailable once connected"),
            Err(SendError::TooManyRequests) => {
                assert_eq!(engine.awaiting_answers(), N, "TooManyRequests with free slots")
            }
            Err(SendError::Closed) => assert!(self.eof, "Closed before the end of input"),
            Err(SendError::Full | SendError::TooLarge) => {}
            Err(error) => panic!("unexpected send error {error:?}"),
        }
    }

    fn cancel(&mut self, index: usize) {
        let Some(&key) = self.app_keys.get(index % self.app_keys.len().max(1)) else { return };
        let state = self.host().keys[&key.id()];
        let open = state.outcomes == 0 && !state.cancelled;
        let cancelled = self.client.cancel(key);
        assert_eq!(
            cancelled,
            open && !self.client.is_finished(),
            "cancel({}) returned {cancelled}; the key had {} outcomes, cancelled: {}",
            key.id(),
            state.outcomes,
            state.cancelled
        );
        if cancelled {
            self.client.handler_mut().keys.get_mut(&key.id()).expect("a known key").cancelled = true;
        }
    }

    /// Delivers everything, ends the input and drains the output; then the end-of-run checks.
    fn finish(&mut self) {
        let mut rounds = 0usize;
        while !self.client.is_finished() {
            rounds += 1;
            assert!(rounds < 100_000, "the engine does not finish");
            self.flush();
            if !self.eof {
                if self.queued.is_empty() {
                    self.end_of_input();
                } else {
                    self.deliver_all();
                }
            }
            self.check();
        }
        self.check();
        assert!(self.out_tail.is_empty(), "the output ends inside a line");
        assert!(self.client.rx_spare().is_empty(), "rx_spare offers room after the end of input");
        assert_eq!(self.client.awaiting_answers(), 0);
        let host = self.host();
        for (id, state) in &host.keys {
            let expected = u32::from(!state.cancelled);
            assert_eq!(
                state.outcomes, expected,
                "request {id} had {} outcomes (cancelled: {})",
                state.outcomes, state.cancelled
            );
        }
        if self.connecting {
            assert!(host.connected.is_some() != host.failed.is_some(), "the handshake never ended");
        }
        for id in &self.must_answer {
            if self.received.get(id) == Some(&1) {
                let answers = self.answers.get(id).copied().unwrap_or(0);
                assert_eq!(answers, 1, "server request {id:?} was answered {answers} times");
            }
        }
    }

    fn step(&mut self, input: &mut Input<'_>) {
        match input.byte() % 16 {
            op::ANSWER | op::ANSWER_TOO => self.answer(input),
            op::SERVER_REQUEST => {
                let flags = input.byte();
                let line = self.generator.server_request(input);
                self.queue_line(&line, flags);
            }
            op::NOTIFICATION => {
                let flags = input.byte();
                let last = self.last_sent();
                let line = self.generator.notification(last, input);
                self.queue_line(&line, flags);
            }
            op::RAW => {
                let raw = input.chunk();
                self.queued.extend_from_slice(raw);
            }
            op::CORRUPT => {
                let which = input.byte();
                let mut line = match which % 3 {
                    0 => {
                        let target = self.answer_target(input);
                        self.generator.answer(&target, input)
                    }
                    1 => self.generator.server_request(input),
                    _ => {
                        let last = self.last_sent();
                        self.generator.notification(last, input)
                    }
                }
                .into_bytes();
                let at = input.below(line.len().max(1));
                match input.byte() % 3 {
                    0 => line.truncate(at),
                    1 => line[at] = input.byte(),
                    _ => line.insert(at, input.byte()),
                }
                self.queued.extend_from_slice(&line);
                self.queued.push(b'\n');
            }
            op::DELIVER => {
                let limit = usize::from(input.u16());
                self.deliver(limit);
            }
            op::DELIVER_SPARE => {
                let limit = usize::from(input.byte()) * 8;
                let overcommit = usize::from(input.byte() & 3);
                self.deliver_with_spare(limit, overcommit);
            }
            op::DELIVER_BYTES => {
                for _ in 0..input.below(64) {
                    self.deliver(1);
                    self.check();
                }
            }
            op::TRANSMIT => {
                let n = input.u16();
                if n == u16::MAX {
                    self.flush();
                } else {
                    self.transmit(usize::from(n));
                }
            }
            op::CLOCK => {
                let step = input.u16();
                self.clock(step);
            }
            op::REQUEST => self.request(input),
            op::CANCEL => {
                let index = input.below(256);
                self.cancel(index);
            }
            op::INPUT_MODE => {
                let byte = input.byte();
                if byte & 4 == 0 {
                    self.client.handler_mut().mode = InputMode::from_byte(byte);
                } else {
                    let now = self.now();
                    let connecting = self.connecting;
                    match self.client.connect(now) {
                        Ok(()) => {
                            assert!(!connecting, "connect accepted twice");
                            self.connecting = true;
                        }
                        Err(SendError::NotAvailable) => assert!(connecting, "connect refused before it started"),
                        Err(SendError::Closed) => assert!(self.eof),
                        Err(SendError::Full | SendError::TooLarge) => {}
                        Err(error) => panic!("unexpected connect error {error:?}"),
                    }
                }
            }
            op::EOF => {
                if input.byte().is_multiple_of(4) {
                    self.end_of_input();
                }
            }
            op::SETTLE => {
                self.flush();
                self.deliver_all();
            }
            _ => unreachable!("an operation code below 16"),
        }
        self.check();
    }
}

fn run_with<const N: usize>(setup: Setup, input: &mut Input<'_>) {
    let mut rx = vec![0u8; setup.rx];
    let mut tx = vec![0u8; setup.tx];
    let mut retry = setup.retry.map(|len| vec![0u8; len]);
    let mut config = Config::new("fuzz-client", "0.0.1")
        .with_era(setup.policy)
        .with_capabilities(setup.capabilities)
        .with_limits(setup.limits)
        .with_max_input_rounds(setup.max_input_rounds)
        .with_connect_timeout(mcp_sansio::time::Duration::from_millis(setup.connect_timeout))
        .with_request_timeout(setup.request_timeout.map(mcp_sansio::time::Duration::from_millis));
    config.client_info.title = Some("Fuzz \"client\"\n");
    let host = Host {
        policy: setup.policy,
        capabilities: setup.capabilities,
        mode: setup.mode,
        keys: BTreeMap::new(),
        connected: None,
        failed: None,
        fell_back: false,
        eof: false,
        inputs: 0,
    };
    let mut client: Client<'_, Host, N> = Client::new(host, config, Buffers { rx: &mut rx, tx: &mut tx });
    if let Some(retry) = retry.as_mut() {
        client.set_retry_buffer(retry.as_mut_slice());
    }
    let now = Instant::from_millis(START);
    let connecting = match client.connect(now) {
        Ok(()) => true,
        Err(SendError::Full | SendError::TooLarge) => false,
        Err(error) => panic!("unexpected connect error {error:?}"),
    };
    let mut run = Run {
        client,
        setup_rx: setup.rx,
        max_depth: setup.limits.max_depth,
        now: START,
        eof: false,
        connecting,
        queued: Vec::new(),
        line_tail: Vec::new(),
        out_tail: Vec::new(),
        sent: BTreeMap::new(),
        outstanding: Vec::new(),
        cancels: BTreeMap::new(),
        app_keys: Vec::new(),
        received: BTreeMap::new(),
        must_answer: Vec::new(),
        answers: BTreeMap::new(),
        states: BTreeSet::new(),
        generator: Generator::default(),
    };
    run.check();
    for _ in 0..MAX_OPS {
        if input.is_empty() {
            break;
        }
        run.step(input);
    }
    run.finish();
}

/// Runs one input. Panics on any violated invariant.
pub fn run(data: &[u8]) {
    let mut input = Input::new(data);
    let setup = Setup::read(&mut input);
    if setup.one_outbound {
        run_with::<1>(setup, &mut input);
    } else {
        run_with::<4>(setup, &mut input);
    }
}

/// Writes inputs for this target (the seeds), one operation at a time.
#[derive(Default)]
pub struct Script {
    out: Encoder,
}

impl Script {
    /// An input with the four configuration bytes (see the module docs and [`Setup`]).
    pub fn new(config: [u8; 4]) -> Self {
        let mut out = Encoder::new();
        for byte in config {
            out.byte(byte);
        }
        Script { out }
    }

    /// Transmits everything the client wrote.
    pub fn transmit(&mut self) -> &mut Self {
        self.out.byte(op::TRANSMIT).u16(u16::MAX);
        self
    }

    /// Queues `line` (a newline is added) and delivers it.
    pub fn line(&mut self, line: &[u8]) -> &mut Self {
        let mut line = line.to_vec();
        if line.last() != Some(&b'\n') {
            line.push(b'\n');
        }
        self.out.byte(op::RAW).chunk(&line);
        self.out.byte(op::DELIVER).u16(u16::MAX);
        self
    }

    /// Answers the client's latest request (after transmitting) with answer `kind` and `variant`,
    /// then `details` (the bytes the kind reads), and delivers it.
    pub fn answer(&mut self, kind: u8, variant: u8, details: &[u8]) -> &mut Self {
        self.out.byte(op::ANSWER).byte(flag::TRANSMIT_FIRST | flag::DELIVER).byte(0).byte(kind).byte(variant);
        self.out.bytes(details);
        self
    }

    /// A typed request of `kind` with the text `text` and arguments `arguments` (selector).
    pub fn request(&mut self, kind: u8, text: &[u8], arguments: u8) -> &mut Self {
        self.out.byte(op::REQUEST).byte(kind).chunk(text).byte(arguments);
        self
    }

    /// Cancels the application's `index`th key.
    pub fn cancel(&mut self, index: u8) -> &mut Self {
        self.out.byte(op::CANCEL).byte(index);
        self
    }

    /// Lets `ms` milliseconds pass (`u16::MAX`: to the next deadline).
    pub fn clock(&mut self, ms: u16) -> &mut Self {
        self.out.byte(op::CLOCK).u16(ms);
        self
    }

    /// Ends the input.
    pub fn eof(&mut self) -> &mut Self {
        self.out.byte(op::EOF).byte(0);
        self
    }

    /// Raw operation bytes.
    pub fn raw_op(&mut self, bytes: &[u8]) -> &mut Self {
        self.out.bytes(bytes);
        self
    }

    /// The encoded input.
    pub fn finish(&mut self) -> Vec<u8> {
        self.out.finish()
    }
}
