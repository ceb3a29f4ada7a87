//! What the core micro-benchmarks (`benches/core.rs`) and `core-instructions` share: the example
//! device on a fixed board, configured like `mcp-device`, and the measured messages.

pub mod measure;

use std::hint::black_box;

use mcp_example_device::{Device, INSTRUCTIONS, SERVER_NAME};
use mcp_sansio::connection::Connection;
use mcp_sansio::server::{Buffers, CacheHints, CacheScope, Config, Limits, Server};
use mcp_sansio::time::Instant;

/// The core's features in this build, for benchmark names.
pub const FEATURES: &str = if cfg!(feature = "alloc") { "[alloc]" } else { "[no alloc]" };

/// The example device's board whose sensors always read 21.5 °C.
pub use mcp_example_device::FixedBoard;

/// 64 bytes of message, as in the stdio comparison.
pub const ECHO_ARGS: &str =
    r#""name":"echo","arguments":{"message":"abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijkl"}"#;
pub const MODERN_META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
pub const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}"#;

/// A request line with id 7.
pub fn request(method: &str, params: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":7,"method":"{method}","params":{{{params}}}}}"#)
}

/// Feeds one line, drains the answer; the number of bytes answered.
pub fn exchange<S: Connection>(server: &mut S, now: Instant, line: &[u8]) -> usize {
    let spare = server.rx_spare();
    spare[..line.len()].copy_from_slice(line);
    spare[line.len()] = b'\n';
    server.rx_commit(now, line.len() + 1);
    let mut answered = 0;
    while let Some(bytes) = server.poll_transmit() {
        let n = bytes.len();
        black_box(bytes);
        answered += n;
        server.transmit_done(now, n);
    }
    answered
}

/// Feeds one line, drains the answer, and returns it (for checks; [`exchange`] is the measured
/// path).
pub fn answer<S: Connection>(server: &mut S, now: Instant, line: &[u8]) -> Vec<u8> {
    let spare = server.rx_spare();
    spare[..line.len()].copy_from_slice(line);
    spare[line.len()] = b'\n';
    server.rx_commit(now, line.len() + 1);
    let mut out = Vec::new();
    while let Some(bytes) = server.poll_transmit() {
        out.extend_from_slice(bytes);
        let n = bytes.len();
        server.transmit_done(now, n);
    }
    out
}

/// `mcp-device`'s configuration.
pub fn config() -> Config<'static> {
    Config::new(SERVER_NAME, "0.1.0")
        .with_title("Example MCP device")
        .with_instructions(INSTRUCTIONS)
        .with_list_cache(CacheHints::new(3_600_000, CacheScope::Public))
}

/// The measured requests of one era: (era, [(name, line)]).
pub fn requests() -> [(&'static str, [(&'static str, String); 4]); 2] {
    [
        (
            "legacy-2025-11-25",
            [
                ("tools_call", request("tools/call", ECHO_ARGS)),
                ("tools_list", request("tools/list", "")),
                ("resources_read", request("resources/read", r#""uri":"device://status""#)),
                ("ping", request("ping", "")),
            ],
        ),
        (
            "modern-2026-07-28",
            [
                ("tools_call", request("tools/call", &format!("{ECHO_ARGS},{MODERN_META}"))),
                ("tools_list", request("tools/list", MODERN_META)),
                ("resources_read", request("resources/read", &format!(r#""uri":"device://status",{MODERN_META}"#))),
                ("server_discover", request("server/discover", MODERN_META)),
            ],
        ),
    ]
}

/// Buffers for [`server`].
pub struct Memory {
    rx: Vec<u8>,
    tx: Vec<u8>,
}

impl Default for Memory {
    fn default() -> Self {
        Memory { rx: vec![0; 4096], tx: vec![0; 65536] }
    }
}

/// A server on `memory`, its session opened with `initialize` for the legacy era; `line` is
/// checked to be answered with a result.
pub fn server<'m>(memory: &'m mut Memory, era: &str, line: &str) -> Server<'m, Device<FixedBoard>> {
    let config = config().with_limits(Limits { max_response: memory.tx.len() / 4, ..Limits::default() });
    let mut server = Server::new(Device::new(FixedBoard), config, Buffers { rx: &mut memory.rx, tx: &mut memory.tx });
    let now = Instant::from_millis(1000);
    if era.starts_with("legacy") {
        assert!(exchange(&mut server, now, INITIALIZE.as_bytes()) > 0);
        exchange(&mut server, now, br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    }
    let answer = String::from_utf8(answer(&mut server, now, line.as_bytes())).unwrap();
    assert!(answer.contains(r#""result":"#) && !answer.contains("isError"), "{line} -> {answer}");
    server
}

/// The `tools/list` answer of the example device: a real, nested, 2 KB-class document.
pub fn tools_list_answer() -> Vec<u8> {
    let mut memory = Memory::default();
    let mut server: Server<'_, _> =
        Server::new(Device::new(FixedBoard), config(), Buffers { rx: &mut memory.rx, tx: &mut memory.tx });
    let now = Instant::from_millis(1000);
    let mut out = answer(&mut server, now, request("tools/list", MODERN_META).as_bytes());
    while out.last() == Some(&b'\n') {
        out.pop();
    }
    out
}

/// The JSON documents of the scanner benchmark.
pub fn json_documents() -> [(&'static str, Vec<u8>); 3] {
    [
        ("tools_call_request", request("tools/call", &format!("{ECHO_ARGS},{MODERN_META}")).into_bytes()),
        ("initialize_request", INITIALIZE.as_bytes().to_vec()),
        ("tools_list_answer", tools_list_answer()),
    ]
}

/// The typed core path against the hand-written one, on one `echo` tool: the same answer from
/// `ToolCall::argument` + `text_json` (hand) and from a `ToolSet` entry with `ToolCall::run`
/// reading a `Deserialize` struct and returning its `JsonStr` (typed).
pub mod typed {
    use mcp_sansio::json::JsonStr;
    use mcp_sansio::server::{Buffers, Config, Handler, Server, Tool, ToolCall, ToolReply, ToolSet};

    const SCHEMA: &str = r#"{"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}"#;

    /// `echo` by hand.
    pub struct Hand;

    impl Handler for Hand {
        const TOOLS: &'static [Tool<'static>] = &[Tool::new("echo", "Echoes", SCHEMA)];

        fn call_tool(&mut self, call: ToolCall<'_>, reply: ToolReply<'_>) {
            match call.argument("message").and_then(|v| v.as_str()) {
                Some(message) => reply.text_json(message).finish(),
                None => reply.finish_error_text("\"message\" must be a string"),
            }
        }
    }

    #[derive(serde::Deserialize)]
    struct Echo<'a> {
        #[serde(borrow)]
        message: JsonStr<'a>,
    }

    /// `echo` typed.
    pub struct Typed;

    const TOOLS: ToolSet<Typed, 1> = ToolSet::new([(Tool::new("echo", "Echoes", SCHEMA), |_, call, reply| {
        call.run(reply, |Echo { message }: Echo<'_>| message)
    })]);

    impl Handler for Typed {
        const TOOLS: &'static [Tool<'static>] = TOOLS.tools();

        fn call_tool(&mut self, call: ToolCall<'_>, reply: ToolReply<'_>) {
            TOOLS.call(self, call, reply)
        }
    }

    /// A server of `handler` on `memory`, its legacy session opened for a legacy `era`.
    pub fn server<'m, H: Handler>(memory: &'m mut super::Memory, handler: H, era: &str) -> Server<'m, H> {
        let mut server =
            Server::new(handler, Config::new("typed", "1"), Buffers { rx: &mut memory.rx, tx: &mut memory.tx });
        let now = mcp_sansio::time::Instant::from_millis(1000);
        if era.starts_with("legacy") {
            super::exchange(&mut server, now, super::INITIALIZE.as_bytes());
            super::exchange(&mut server, now, br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        }
        server
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The typed and the hand-written `echo` give the same answer, so their counts compare.
    #[test]
    fn the_typed_echo_answers_as_the_hand_written_one() {
        for (era, lines) in requests() {
            let (line, now) = (lines[0].1.as_bytes(), Instant::from_millis(1000));
            let mut memory = Memory::default();
            let hand = answer(&mut typed::server(&mut memory, typed::Hand, era), now, line);
            let mut memory = Memory::default();
            let typed = answer(&mut typed::server(&mut memory, typed::Typed, era), now, line);
            let (hand, typed) = (String::from_utf8(hand).unwrap(), String::from_utf8(typed).unwrap());
            assert!(hand.contains("abcdefghijklmnopqrstuvwxyz") && !hand.contains("isError"), "{hand}");
            assert_eq!(hand, typed, "{era}");
        }
    }
}
