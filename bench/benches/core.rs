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
//! - `serialize/<serializer>/<value>`: a typed result serialized compactly into a buffer: the
//!   core's serializer (`JsonWriter::serialize`) against serde-json-core 0.7 (which the core used
//!   before) and serde_json (`to_writer` into a cleared `Vec`); throughput in output bytes.
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

/// A structured tool result: what a typed tool returns.
#[derive(serde::Serialize)]
struct Weather<'a> {
    city: &'a str,
    temperature: f64,
    humidity: u8,
    conditions: &'a str,
    forecast: [Day<'a>; 3],
    alerts: Option<&'a str>,
}

#[derive(serde::Serialize)]
struct Day<'a> {
    day: &'a str,
    high: i16,
    low: i16,
    rain_mm: u32,
}

fn serialize(c: &mut Criterion) {
    let day = |day, high, low, rain_mm| Day { day, high, low, rain_mm };
    let weather = Weather {
        city: "São Paulo",
        temperature: 22.5,
        humidity: 64,
        conditions: "Partly cloudy, \"light\" breeze",
        forecast: [day("Mon", 24, 17, 0), day("Tue", 21, 16, 12), day("Wed", 19, 15, 30)],
        alerts: None,
    };
    let expected = serde_json::to_vec(&weather).unwrap();
    let mut group = c.benchmark_group(format!("serialize{FEATURES}"));
    group.throughput(Throughput::Bytes(expected.len() as u64));
    let mut buf = vec![0u8; 1024];
    group.bench_function("mcp_sansio JsonWriter::serialize/weather", |b| {
        b.iter(|| {
            let mut out = mcp_sansio::json::JsonWriter::new(&mut buf);
            out.serialize(black_box(&weather));
            out.len()
        })
    });
    group.bench_function("serde-json-core 0.7 to_slice/weather", |b| {
        b.iter(|| serde_json_core::to_slice(black_box(&weather), &mut buf).unwrap())
    });
    let mut vec = Vec::with_capacity(1024);
    group.bench_function("serde_json to_writer/weather", |b| {
        b.iter(|| {
            vec.clear();
            serde_json::to_writer(&mut vec, black_box(&weather)).unwrap();
            vec.len()
        })
    });
    group.finish();
    let mut out = mcp_sansio::json::JsonWriter::new(&mut buf);
    out.serialize(&weather);
    assert_eq!(out.written(), expected.as_slice(), "the same JSON as serde_json");
}

criterion_group!(benches, engine, json, serialize);
criterion_main!(benches);
