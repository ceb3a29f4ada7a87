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

use crate::input::{Encoder, Input, LineTail};
use crate::oracle;

mod checks;
mod generate;
mod handler;

use checks::Run;
use generate::{Generator, IdKey};
use handler::FuzzHandler;

/// Deferred requests the engine keeps at once (small, so the limit is reached).
const IN_FLIGHT: usize = 2;
/// Operations per run; the rest of a longer input is ignored.
const MAX_OPS: usize = 400;
/// Ids longer than this (as JSON text) are exempt from the exactly-once check: an error that does not
/// fit the transmit window even with the id is answered without it.
const MAX_CHECKED_ID_LEN: usize = 64;

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
        line_tail: LineTail::default(),
        out_tail: LineTail::default(),
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
