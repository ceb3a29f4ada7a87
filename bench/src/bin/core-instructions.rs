//! `core-instructions ITERATIONS`: serves every micro-benchmark message ITERATIONS times and parses
//! every JSON document ITERATIONS times with each parser, for instruction counting under
//! `valgrind --tool=callgrind` (deterministic, unlike timings on a shared machine).
//!
//! `scripts/bench-instructions` runs it with two iteration counts and prints the difference per
//! message: the set-up cancels out.
//!
//! `core-instructions ITERATIONS WHAT` runs one item only (`legacy-2025-11-25/tools_call`,
//! `json/serde_json-Value/tools_list_answer`, ...); `core-instructions --list` prints them.

use std::hint::black_box;

use mcp_sansio::time::Instant;
use mcp_sansio_bench::{Memory, exchange, json_documents, requests, server, typed};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let list = args.first().is_some_and(|a| a == "--list");
    let iterations: usize = if list { 0 } else { args.first().and_then(|a| a.parse().ok()).expect("ITERATIONS") };
    let only = args.get(1);
    let selected = |name: &str| {
        if list {
            println!("{name}");
        }
        only.is_none_or(|o| o == name)
    };
    let now = Instant::from_millis(1000);
    for (era, lines) in requests() {
        for (name, line) in &lines {
            if selected(&format!("{era}/{name}")) {
                let mut memory = Memory::default();
                let mut server = server(&mut memory, era, line);
                for _ in 0..iterations {
                    exchange(&mut server, now, black_box(line.as_bytes()));
                }
            }
        }
    }
    // The typed core path against the hand-written one: the same `echo` answer.
    for (era, lines) in requests() {
        let line = &lines[0].1;
        if selected(&format!("typed-echo/hand/{era}")) {
            let mut memory = Memory::default();
            let mut server = typed::server(&mut memory, typed::Hand, era);
            for _ in 0..iterations {
                exchange(&mut server, now, black_box(line.as_bytes()));
            }
        }
        if selected(&format!("typed-echo/typed/{era}")) {
            let mut memory = Memory::default();
            let mut server = typed::server(&mut memory, typed::Typed, era);
            for _ in 0..iterations {
                exchange(&mut server, now, black_box(line.as_bytes()));
            }
        }
    }
    for (name, doc) in &json_documents() {
        if selected(&format!("json/mcp_sansio-parse/{name}")) {
            for _ in 0..iterations {
                black_box(mcp_sansio::json::parse(black_box(doc), 64).is_ok());
            }
        }
        if selected(&format!("json/serde_json-IgnoredAny/{name}")) {
            for _ in 0..iterations {
                black_box(serde_json::from_slice::<serde::de::IgnoredAny>(black_box(doc)).is_ok());
            }
        }
        if selected(&format!("json/serde_json-Value/{name}")) {
            for _ in 0..iterations {
                black_box(serde_json::from_slice::<serde_json::Value>(black_box(doc)).is_ok());
            }
        }
    }
}
