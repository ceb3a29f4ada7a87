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

use crate::input::{Encoder, Input, LineTail};

mod checks;
mod generate;
mod host;
mod ops;

use checks::Run;
use generate::Generator;
use host::{Host, InputMode, KeyState};

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
        line_tail: LineTail::default(),
        out_tail: LineTail::default(),
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
