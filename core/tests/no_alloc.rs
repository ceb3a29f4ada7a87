//! No heap allocation per message: a [`Server`] driven in memory, with a counting global allocator.
//!
//! The engine is built over caller buffers, then every measured round feeds it a mix of messages
//! of both eras (`tools/call`, `tools/list`, `resources/read`, `ping`, and the legacy session's
//! `initialize`) and drains the answers. The allocator counts every `alloc`/`realloc` of this
//! process; the rounds must add none. Run with default features (`cargo test -p mcp-sansio --test
//! no_alloc`) and with `--features alloc`: the count is printed either way.
//!
//! Built without the test harness: libtest itself allocates on other threads while a test runs,
//! which a process-wide counter would see.

use mcp_sansio::connection::Connection;
use mcp_sansio::json::JsonStr;
use mcp_sansio::server::{
    Buffers, Config, Handler, Resource, ResourceRead, ResourceReply, Server, Tool, ToolCall, ToolReply,
};
use mcp_sansio::time::Instant;

#[path = "support/counting_alloc.rs"]
mod counting_alloc;
use counting_alloc::allocations;

static TOOLS: [Tool<'static>; 2] = [
    Tool::new("echo", "Echoes its input", r#"{"type":"object","properties":{"message":{"type":"string"}}}"#),
    Tool::new("move", "Typed arguments", r#"{"type":"object"}"#),
];

/// The arguments of `move`, read with `ToolCall::arguments`: a borrowed string, an escaped one
/// borrowed as `JsonStr`, one unescaped into a `heapless::String`, numbers, an option.
#[derive(serde::Deserialize)]
struct Move<'a> {
    unit: &'a str,
    #[serde(borrow)]
    axis: JsonStr<'a>,
    label: heapless::String<16>,
    steps: i32,
    speed: Option<f32>,
}
static RESOURCES: [Resource<'static>; 1] = [Resource::new("test://status", "status")];

struct App;

impl Handler for App {
    const TOOLS: &'static [Tool<'static>] = &TOOLS;
    const RESOURCES: &'static [Resource<'static>] = &RESOURCES;

    fn call_tool(&mut self, call: ToolCall<'_>, reply: ToolReply<'_>) {
        if call.name == "move" {
            return match call.arguments::<Move<'_>>() {
                Ok(m) => {
                    let speed = m.speed.unwrap_or(0.0);
                    let text = format_args!("{} {} {} by {} at {speed}", m.label, m.axis, m.unit, m.steps);
                    reply.text_fmt(text).finish()
                }
                Err(error) => reply.invalid_arguments(&error),
            };
        }
        match call.argument("message").and_then(|v| v.as_str()) {
            Some(message) => reply.text_json(message).finish(),
            None => reply.finish_error_text("missing message"),
        }
    }

    fn read_resource(&mut self, read: ResourceRead<'_>, reply: ResourceReply<'_>) {
        match read.uri {
            "test://status" => reply.text(read.uri, Some("text/plain"), "all good").finish(),
            uri => reply.not_found(uri),
        }
    }
}

const MODERN_META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

/// One round: the legacy session opens, then requests of both eras. The answers expected, by id
/// prefix in order, check that every message was served and not rejected.
fn round() -> Vec<String> {
    let echo = r#""arguments":{"message":"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"}"#;
    let typed = r#""arguments":{"unit":"mm","axis":"x","label":"café","steps":-3,"speed":1.5}"#;
    vec![
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}"#.to_string(),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_string(),
        format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"echo",{echo}}}}}"#),
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#.to_string(),
        r#"{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"test://status"}}"#.to_string(),
        r#"{"jsonrpc":"2.0","id":4,"method":"ping"}"#.to_string(),
        format!(r#"{{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{{"name":"echo",{echo},{MODERN_META}}}}}"#),
        format!(r#"{{"jsonrpc":"2.0","id":6,"method":"tools/list","params":{{{MODERN_META}}}}}"#),
        format!(r#"{{"jsonrpc":"2.0","id":7,"method":"resources/read","params":{{"uri":"test://status",{MODERN_META}}}}}"#),
        format!(r#"{{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{{"name":"move",{typed}}}}}"#),
        format!(r#"{{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{{"name":"move",{typed},{MODERN_META}}}}}"#),
        // 2026-07-28 has no `ping`; `server/discover` is its cheapest request.
        format!(r#"{{"jsonrpc":"2.0","id":8,"method":"server/discover","params":{{{MODERN_META}}}}}"#),
    ]
}

/// Feeds `line` and drains the answer into `out` (cleared first; its capacity is kept).
fn exchange<H: Handler>(server: &mut Server<'_, H>, now: Instant, line: &[u8], out: &mut Vec<u8>) {
    out.clear();
    let spare = server.rx_spare();
    assert!(spare.len() > line.len(), "receive buffer too small");
    spare[..line.len()].copy_from_slice(line);
    spare[line.len()] = b'\n';
    server.rx_commit(now, line.len() + 1);
    while let Some(bytes) = server.poll_transmit() {
        assert!(out.len() + bytes.len() <= out.capacity(), "output buffer would grow");
        out.extend_from_slice(bytes);
        let n = bytes.len();
        server.transmit_done(now, n);
    }
}

fn main() {
    let features = match (cfg!(feature = "std"), cfg!(feature = "alloc")) {
        (true, _) => "features std, alloc",
        (false, true) => "feature alloc",
        (false, false) => "default features",
    };
    let lines = round();
    let mut rx = vec![0u8; 4096];
    let mut tx = vec![0u8; 16384];
    let mut out = Vec::with_capacity(64 * 1024);
    let mut server: Server<'_, App> =
        Server::new(App, Config::new("bench", "1.0.0"), Buffers { rx: &mut rx, tx: &mut tx });

    // A warm-up round, then the measured ones. Every answer is checked (without allocating: the
    // messages are only formatted on failure): each request gets a result, notifications nothing.
    let mut now = Instant::from_millis(0);
    let mut serve_round = |server: &mut Server<'_, App>, now: Instant| {
        for line in &lines {
            exchange(server, now, line.as_bytes(), &mut out);
            let text = std::str::from_utf8(&out).unwrap();
            if line.contains(r#""id""#) {
                let ok = text.starts_with(r#"{"jsonrpc":"2.0","id":"#)
                    && text.contains(r#""result":"#)
                    && !text.contains(r#""isError":true"#);
                assert!(ok, "{line}\n-> {text}");
                let typed = !line.contains(r#""name":"move""#) || text.contains("café x mm by -3 at 1.5");
                assert!(typed, "{line}\n-> {text}");
            } else {
                assert!(text.is_empty(), "a notification was answered: {text}");
            }
        }
    };
    serve_round(&mut server, now);

    const ROUNDS: u64 = 1000;
    let before = allocations();
    for _ in 0..ROUNDS {
        now = Instant::from_millis(now.as_millis() + 1);
        serve_round(&mut server, now);
    }
    let during = allocations() - before;
    let messages = ROUNDS * round().len() as u64;
    println!("no_alloc (core, {features}): {during} heap allocations in {messages} messages");
    if during != 0 {
        println!("FAILED: the engine allocated while serving");
        std::process::exit(1);
    }
    // The counter works: an allocation made here is seen.
    let probe = allocations();
    drop(std::hint::black_box(vec![0u8; 16]));
    assert_eq!(allocations(), probe + 1, "the counting allocator does not count");
    println!("test result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out");
}
