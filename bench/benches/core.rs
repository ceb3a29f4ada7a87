//! Micro-benchmarks of the core, per message, no IO.
//!
//! - `engine/<era>/<method>`: one request line copied into the server's receive buffer, decoded,
//!   dispatched to the example device, encoded and drained (`rx_commit` + `poll_transmit` /
//!   `transmit_done`), on a [`Server`] configured like `mcp-device`. Legacy: a session opened with
//!   `initialize` in 2025-11-25; modern: 2026-07-28 requests carrying `_meta` (that era has no
//!   `ping`; `server/discover` takes its place).
//! - `json/<document>/<parser>`: validating one document with the core's scanner
//!   (`mcp_sansio::json::parse`) against serde_json doing the same job (`IgnoredAny`: validate,
//!   build nothing) and building a `serde_json::Value`; throughput in bytes.
//!
//! The group names carry the core's features (`[no alloc]` or `[alloc]`): run once as is and
//! once with `--features alloc`.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;

use mcp_example_device::{Board, Device, INSTRUCTIONS, SAMPLE_CALIBRATION, SERVER_NAME, Sensor};
use mcp_sansio::connection::Connection;
use mcp_sansio::server::{Buffers, CacheHints, CacheScope, Config, Limits, Server};
use mcp_sansio::time::Instant;

const FEATURES: &str = if cfg!(feature = "alloc") { "[alloc]" } else { "[no alloc]" };

struct FixedBoard;

impl Board for FixedBoard {
    fn temperature_celsius(&mut self, _sensor: Sensor, _now: Instant) -> Option<f32> {
        Some(21.5)
    }
    fn set_led(&mut self, _on: bool) {}
    fn led(&self) -> bool {
        false
    }
    fn calibration(&self) -> &[u8] {
        &SAMPLE_CALIBRATION
    }
}

/// 64 bytes of message, as in the stdio comparison.
const ECHO_ARGS: &str =
    r#""name":"echo","arguments":{"message":"abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijkl"}"#;
const MODERN_META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}"#;

fn request(method: &str, params: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":7,"method":"{method}","params":{{{params}}}}}"#)
}

/// Feeds one line, drains the answer; the number of bytes answered.
fn exchange<S: Connection>(server: &mut S, now: Instant, line: &[u8]) -> usize {
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

fn config() -> Config<'static> {
    let mut config = Config::new(SERVER_NAME, "0.1.0");
    config.server_info.title = Some("Example MCP device");
    config.instructions = Some(INSTRUCTIONS);
    config.list_cache = CacheHints { ttl_ms: 3_600_000, scope: CacheScope::Public };
    config
}

fn engine(c: &mut Criterion) {
    let legacy = [
        ("tools_call", request("tools/call", ECHO_ARGS)),
        ("tools_list", request("tools/list", "")),
        ("resources_read", request("resources/read", r#""uri":"device://status""#)),
        ("ping", request("ping", "")),
    ];
    let modern = [
        ("tools_call", request("tools/call", &format!("{ECHO_ARGS},{MODERN_META}"))),
        ("tools_list", request("tools/list", MODERN_META)),
        ("resources_read", request("resources/read", &format!(r#""uri":"device://status",{MODERN_META}"#))),
        ("server_discover", request("server/discover", MODERN_META)),
    ];
    for (era, lines) in [("legacy-2025-11-25", &legacy), ("modern-2026-07-28", &modern)] {
        let mut group = c.benchmark_group(format!("engine{FEATURES}/{era}"));
        for (name, line) in lines.iter() {
            let (mut rx, mut tx) = (vec![0u8; 4096], vec![0u8; 65536]);
            let mut config = config();
            config.limits = Limits { max_response: tx.len() / 4, ..Limits::default() };
            let mut server: Server<'_, _> =
                Server::new(Device::new(FixedBoard), config, Buffers { rx: &mut rx, tx: &mut tx });
            let now = Instant::from_millis(1000);
            if era.starts_with("legacy") {
                assert!(exchange(&mut server, now, INITIALIZE.as_bytes()) > 0);
                exchange(&mut server, now, br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
            }
            // The request is served, not rejected.
            let mut check = Vec::new();
            let spare = server.rx_spare();
            spare[..line.len()].copy_from_slice(line.as_bytes());
            spare[line.len()] = b'\n';
            server.rx_commit(now, line.len() + 1);
            while let Some(bytes) = server.poll_transmit() {
                check.extend_from_slice(bytes);
                let n = bytes.len();
                server.transmit_done(now, n);
            }
            let answer = String::from_utf8(check).unwrap();
            assert!(answer.contains(r#""result":"#) && !answer.contains("isError"), "{line} -> {answer}");

            group.throughput(Throughput::Elements(1));
            group.bench_function(*name, |b| b.iter(|| exchange(&mut server, now, black_box(line.as_bytes()))));
        }
        group.finish();
    }
}

/// The `tools/list` answer of the example device: a real, nested, 2 KB-class document.
fn tools_list_answer() -> Vec<u8> {
    let (mut rx, mut tx) = (vec![0u8; 4096], vec![0u8; 65536]);
    let mut server: Server<'_, _> =
        Server::new(Device::new(FixedBoard), config(), Buffers { rx: &mut rx, tx: &mut tx });
    let now = Instant::from_millis(1000);
    let line = request("tools/list", MODERN_META);
    let spare = server.rx_spare();
    spare[..line.len()].copy_from_slice(line.as_bytes());
    spare[line.len()] = b'\n';
    server.rx_commit(now, line.len() + 1);
    let mut out = Vec::new();
    while let Some(bytes) = server.poll_transmit() {
        out.extend_from_slice(bytes);
        let n = bytes.len();
        server.transmit_done(now, n);
    }
    while out.last() == Some(&b'\n') {
        out.pop();
    }
    out
}

fn json(c: &mut Criterion) {
    let documents = [
        ("tools_call_request", request("tools/call", &format!("{ECHO_ARGS},{MODERN_META}")).into_bytes()),
        ("initialize_request", INITIALIZE.as_bytes().to_vec()),
        ("tools_list_answer", tools_list_answer()),
    ];
    let mut group = c.benchmark_group(format!("json{FEATURES}"));
    for (name, doc) in &documents {
        assert!(mcp_sansio::json::parse(doc, 64).is_ok());
        assert!(serde_json::from_slice::<serde_json::Value>(doc).is_ok());
        group.throughput(Throughput::Bytes(doc.len() as u64));
        group.bench_with_input(BenchmarkId::new("mcp_sansio::json::parse", name), doc, |b, doc| {
            b.iter(|| mcp_sansio::json::parse(black_box(doc), 64).is_ok())
        });
        group.bench_with_input(BenchmarkId::new("serde_json IgnoredAny", name), doc, |b, doc| {
            b.iter(|| serde_json::from_slice::<serde::de::IgnoredAny>(black_box(doc)).is_ok())
        });
        group.bench_with_input(BenchmarkId::new("serde_json Value", name), doc, |b, doc| {
            b.iter(|| serde_json::from_slice::<serde_json::Value>(black_box(doc)).is_ok())
        });
    }
    group.finish();
}

criterion_group!(benches, engine, json);
criterion_main!(benches);
