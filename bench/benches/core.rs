//! Micro-benchmarks of the core, per message, no IO.
//!
//! - `engine/<era>/<method>`: one request line copied into the server's receive buffer, decoded,
//!   dispatched to the example device, encoded and drained (`rx_commit` + `poll_transmit` /
//!   `transmit_done`), on a [`Server`](mcp_sansio::server::Server) configured like `mcp-device`.
//!   Legacy: a session opened with `initialize` in 2025-11-25; modern: 2026-07-28 requests carrying
//!   `_meta` (that era has no `ping`; `server/discover` takes its place).
//! - `json/<parser>/<document>`: validating one document with the core's scanner
//!   (`mcp_sansio::json::parse`) against serde_json doing the same job (`IgnoredAny`: validate,
//!   build nothing) and building a `serde_json::Value`; throughput in bytes.
//!
//! The group names carry the core's features (`[no alloc]` or `[alloc]`): run once as is and
//! once with `--features alloc`.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;

use mcp_sansio::time::Instant;
use mcp_sansio_bench::{FEATURES, Memory, exchange, json_documents, requests, server};

fn engine(c: &mut Criterion) {
    for (era, lines) in requests() {
        let mut group = c.benchmark_group(format!("engine{FEATURES}/{era}"));
        for (name, line) in &lines {
            let mut memory = Memory::default();
            let mut server = server(&mut memory, era, line);
            let now = Instant::from_millis(1000);
            group.throughput(Throughput::Elements(1));
            group.bench_function(*name, |b| b.iter(|| exchange(&mut server, now, black_box(line.as_bytes()))));
        }
        group.finish();
    }
}

fn json(c: &mut Criterion) {
    let mut group = c.benchmark_group(format!("json{FEATURES}"));
    for (name, doc) in &json_documents() {
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
