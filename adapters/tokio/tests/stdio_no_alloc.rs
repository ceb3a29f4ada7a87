//! No heap allocation per message in a whole tokio stdio server process.
//!
//! Built without the test harness: run normally, this binary spawns itself as a child that does
//! what `mcp-device` does (the example device on a `current_thread` runtime, [`serve_stdio`] on
//! its fds 0 and 1, which are pipes), with a counting global allocator. The child reports on stderr
//! how many allocations the process made from `main` until `serve_stdio` returned. The parent
//! runs it twice, with a short and a long session of the same messages (both eras, pipelined),
//! checks every answer, and requires both counts to be equal: the start-up allocates, each
//! message does not. The counts are printed.
//!
//! [`serve_stdio`]: mcp_sansio_tokio::serve_stdio

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::thread;

use mcp_example_device::{Device, FixedBoard};
use mcp_sansio::server::{Buffers, Config, Limits, Server};

#[path = "../../../core/tests/support/counting_alloc.rs"]
mod counting_alloc;
use counting_alloc::allocations;

/// Set in the child's environment to make it serve instead of testing.
const CHILD_ENV: &str = "MCP_SANSIO_TOKIO_NO_ALLOC_CHILD";
/// What the child prints on stderr, followed by the count.
const REPORT: &str = "allocations: ";

/// The child: `mcp-device`'s set-up (buffers, limits, runtime), then the count.
fn serve_as_child() -> ! {
    let mut rx = vec![0u8; 1 << 20];
    let mut tx = vec![0u8; 1 << 20];
    let mut config = Config::new("mcp-device", "0.1.0");
    config.limits = Limits { max_response: tx.len() / 4, ..Limits::default() };
    let mut server: Server<'_, _> = Server::new(Device::new(FixedBoard), config, Buffers { rx: &mut rx, tx: &mut tx });
    let runtime = tokio::runtime::Builder::new_current_thread().enable_time().enable_io().build().unwrap();
    let served = runtime.block_on(mcp_sansio_tokio::serve_stdio(&mut server));
    let count = allocations();
    eprintln!("{REPORT}{count}");
    std::process::exit(if served.is_ok() { 0 } else { 1 })
}

const MODERN_META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

/// `rounds` rounds of requests of both eras after a legacy `initialize`; the number of requests.
fn session(rounds: usize) -> (String, usize) {
    let mut input = String::new();
    input.push_str(r#"{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#);
    input.push('\n');
    input.push_str("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n");
    let echo =
        r#""name":"echo","arguments":{"message":"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"}"#;
    let mut id = 0;
    let mut line = |input: &mut String, method: &str, params: String| {
        id += 1;
        input.push_str(&format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{{{params}}}}}"#));
        input.push('\n');
    };
    for _ in 0..rounds {
        line(&mut input, "tools/call", echo.to_string());
        line(&mut input, "tools/list", String::new());
        line(&mut input, "resources/read", r#""uri":"device://status""#.to_string());
        line(&mut input, "ping", String::new());
        line(&mut input, "tools/call", format!("{echo},{MODERN_META}"));
        line(&mut input, "tools/list", MODERN_META.to_string());
        line(&mut input, "resources/read", format!(r#""uri":"device://calibration",{MODERN_META}"#));
    }
    (input, 1 + rounds * 7)
}

/// Runs the child on `rounds` rounds over pipes; its allocation count.
fn child_allocations(rounds: usize) -> u64 {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .env(CHILD_ENV, "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (input, requests) = session(rounds);
    let mut stdin = child.stdin.take().unwrap();
    // Pipelined: the whole session is written while the answers are read.
    let writer = thread::spawn(move || stdin.write_all(input.as_bytes()).unwrap());
    let mut answers = 0;
    for line in BufReader::new(child.stdout.take().unwrap()).lines() {
        let line = line.unwrap();
        let ok = line.starts_with(r#"{"jsonrpc":"2.0","id":"#)
            && line.contains(r#""result":"#)
            && !line.contains(r#""isError":true"#);
        assert!(ok, "not a successful answer: {line}");
        answers += 1;
    }
    writer.join().unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "child failed: {:?}", output.status);
    assert_eq!(answers, requests, "every request is answered once");
    let stderr = String::from_utf8(output.stderr).unwrap();
    let count = stderr.lines().find_map(|line| line.strip_prefix(REPORT)).expect("no allocation report");
    count.trim().parse().unwrap()
}

fn main() {
    if std::env::var_os(CHILD_ENV).is_some() {
        serve_as_child();
    }
    let (short, long) = (10, 10_000);
    let few = child_allocations(short);
    let many = child_allocations(long);
    let extra_messages = (long - short) * 7;
    println!(
        "stdio_no_alloc: whole process {few} allocations with {} messages, {many} with {}: {} more for {extra_messages} more messages",
        session(short).1 + 1,
        session(long).1 + 1,
        many as i64 - few as i64,
    );
    if few != many {
        println!("test result: FAILED. 0 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out");
        std::process::exit(1);
    }
    println!("test result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out");
}
