//! Replays the fuzz corpora on stable Rust, so `cargo test` guards every finding of the fuzzers.
//!
//! The bodies of the cargo-fuzz targets (`fuzz/src/*.rs`, built with nightly by `cargo fuzz`) are
//! compiled here as plain modules and run on every file of:
//! - `fuzz/seeds/<target>/`: the committed seed corpus (spec example messages, session transcripts,
//!   hand-made edge cases; see [`generated_seeds`]), and in `fuzz/seeds/<target>/corpus/` the corpus
//!   of the 10-million-execution runs, minimized (`cargo fuzz cmin`);
//! - `fuzz/regressions/<target>/`: every crash the fuzzers ever found, kept once fixed;
//! - `fuzz/corpus/<target>/`: the local working corpus of `cargo fuzz`, when there is one.
//!
//! The seeds are generated from `fuzz/seeds/spec/` and `fuzz/seeds/transcripts/` by
//! [`generated_seeds`]; `seeds_are_up_to_date` fails when the committed files differ. To rewrite
//! them: `MCP_FUZZ_WRITE_SEEDS=1 cargo test -p mcp-sansio --test fuzz_replay`.

#[path = "../../fuzz/src/engine.rs"]
mod engine;
#[path = "../../fuzz/src/http.rs"]
mod http;
#[path = "../../fuzz/src/input.rs"]
mod input;
#[path = "../../fuzz/src/json.rs"]
mod json;
#[path = "../../fuzz/src/line.rs"]
mod line;
#[path = "../../fuzz/src/oracle.rs"]
mod oracle;
#[path = "../../fuzz/src/sse.rs"]
mod sse;
#[path = "../../fuzz/src/writer.rs"]
mod writer;

use std::fs;
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use input::Encoder;

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz")
}

/// Every file under `dir` (recursively), sorted; none if it does not exist.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = fs::read_dir(&dir) else { continue };
        for entry in entries {
            let path = entry.expect("a readable directory entry").path();
            if path.is_dir() {
                pending.push(path);
            } else {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// Runs `body` on every seed, regression and corpus file of `target`; returns how many there were.
fn replay(target: &str, body: fn(&[u8])) -> usize {
    let fuzz = fuzz_dir();
    let seeds = files_under(&fuzz.join("seeds").join(target));
    let regressions = files_under(&fuzz.join("regressions").join(target));
    let corpus = files_under(&fuzz.join("corpus").join(target));
    assert!(!seeds.is_empty(), "no seeds for {target} in {}", fuzz.display());
    let count = seeds.len() + regressions.len() + corpus.len();
    for path in seeds.iter().chain(&regressions).chain(&corpus) {
        let data = fs::read(path).expect("a readable fuzz input");
        if let Err(panic) = panic::catch_unwind(AssertUnwindSafe(|| body(&data))) {
            eprintln!("fuzz target {target} fails on {}", path.display());
            panic::resume_unwind(panic);
        }
    }
    eprintln!(
        "{target}: replayed {count} inputs ({} seeds, {} regressions, {} corpus)",
        seeds.len(),
        regressions.len(),
        corpus.len()
    );
    count
}

#[test]
fn replay_line() {
    replay("line", line::run);
}

#[test]
fn replay_json() {
    replay("json", json::run);
}

#[test]
fn replay_writer() {
    replay("writer", writer::run);
}

#[test]
fn replay_sse() {
    replay("sse", sse::run);
}

#[test]
fn replay_http() {
    replay("http", http::run);
}

#[test]
fn replay_engine() {
    replay("engine", engine::run);
}

#[test]
fn regressions_are_kept_for_the_engine() {
    // The crashes found while writing the fuzzers; each has a unit test in `core/src/server/tests.rs`.
    let regressions = files_under(&fuzz_dir().join("regressions/engine"));
    let names: Vec<_> = regressions.iter().filter_map(|p| p.file_name()?.to_str()).collect();
    for expected in ["error-fallback-drops-id", "exact-fit-drops-newline"] {
        assert!(names.contains(&expected), "missing regression {expected}: {names:?}");
    }
}

/// The targets themselves detect what they must: a harness that cannot fail proves nothing.
#[test]
fn targets_reject_broken_expectations() {
    // The line model reports a truncated last line; a decoder that dropped it silently would differ.
    assert_eq!(
        line::model(8, b"ab\ncd"),
        vec![
            line::Event::Line(b"ab".to_vec()),
            line::Event::Error(mcp_sansio::frame::FrameError::Truncated { len: 2 })
        ]
    );
    assert_eq!(
        line::model(2, b"abc\r\n\r\n \n"),
        vec![line::Event::Error(mcp_sansio::frame::FrameError::TooLong { limit: 2 })]
    );
    // A document serde_json accepts and the scanner would reject (or the reverse) makes `json` panic:
    // simulate one by checking a tree against a different serde_json value.
    let value = mcp_sansio::json::parse(br#"{"a":[1,"x"]}"#, 8).unwrap();
    let other: serde_json::Value = serde_json::from_str(r#"{"a":[1,"y"]}"#).unwrap();
    let caught = panic::catch_unwind(AssertUnwindSafe(|| json::check_same_tree(value, &other)));
    assert!(caught.is_err(), "a differing tree went unnoticed");
    // The SSE model joins data lines, keeps the last valid id, skips the BOM, counts it toward the
    // limit and reports an unfinished event; a decoder that did otherwise would differ.
    let message = |data: &[u8], id: Option<&[u8]>| sse::Event::Event {
        data: data.to_vec(),
        has_data: true,
        event_type: b"message".to_vec(),
        id: id.map(<[u8]>::to_vec),
        retry: None,
    };
    assert_eq!(
        sse::model(64, b"\xEF\xBB\xBFdata: a\r\ndata:b\nid: 1\nid: \0\r\rdata: c\n"),
        vec![message(b"a\nb", Some(b"1")), sse::Event::Error(mcp_sansio::frame::SseError::Truncated { len: 8 })]
    );
    assert_eq!(
        sse::model(9, b"\xEF\xBB\xBFdata: a\n\ndata: a\n\n"),
        vec![sse::Event::Error(mcp_sansio::frame::SseError::TooLong { limit: 9 }), message(b"a", None)]
    );
}

/// The seeds, as (target, file name, bytes): generated from the spec examples and the transcripts.
fn generated_seeds() -> Vec<(&'static str, String, Vec<u8>)> {
    let fuzz = fuzz_dir();
    let mut seeds = Vec::new();

    // Spec example messages (pretty-printed JSON documents), and each as one compact NDJSON line.
    let mut spec_lines: Vec<(String, Vec<u8>)> = Vec::new();
    for path in files_under(&fuzz.join("seeds/spec")) {
        if path.extension().and_then(|e| e.to_str()) != Some("json") {
            continue;
        }
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        let document = fs::read(&path).unwrap();
        let value: serde_json::Value = serde_json::from_slice(&document).expect("spec examples are JSON");
        let mut compact = serde_json::to_vec(&value).unwrap();
        compact.push(b'\n');
        seeds.push(("json", name.clone(), document));
        spec_lines.push((name, compact));
    }
    assert!(spec_lines.len() > 50, "the spec examples are missing from fuzz/seeds/spec");

    // Session transcripts: NDJSON streams a client could send.
    let mut transcripts: Vec<(String, Vec<u8>)> = Vec::new();
    for path in files_under(&fuzz.join("seeds/transcripts")) {
        if path.extension().and_then(|e| e.to_str()) != Some("jsonl") {
            continue;
        }
        let name = path.file_stem().unwrap().to_str().unwrap().to_string();
        transcripts.push((name, fs::read(&path).unwrap()));
    }
    assert!(transcripts.len() >= 9, "the transcripts are missing from fuzz/seeds/transcripts");
    let lines_of =
        |stream: &[u8]| -> Vec<Vec<u8>> { stream.split_inclusive(|&b| b == b'\n').map(<[u8]>::to_vec).collect() };

    // json: every transcript line, and edge cases around the documented limits.
    for (name, stream) in &transcripts {
        for (i, line) in lines_of(stream).iter().enumerate() {
            seeds.push(("json", format!("transcript-{name}-{i:02}.json"), line.clone()));
        }
    }
    let nested = |depth: usize| [vec![b'['; depth], vec![b']'; depth]].concat();
    for (name, document) in [
        ("depth-127", nested(json::SERDE_DEPTH)),
        ("depth-128", nested(json::SERDE_DEPTH + 1)),
        ("depth-300-objects", [b"{\"a\":".repeat(300), b"1".to_vec(), b"}".repeat(300)].concat()),
        ("numbers", b"[0,-0,-0.0e-0,1E+2,1e400,-1e309,1e-400,18446744073709551616,-9223372036854775809]".to_vec()),
        ("escapes", br#"["\u0000\"\\\/\b\f\n\r\t","\uD83D\uDE00","\udbff\udfff","\u00e9"]"#.to_vec()),
        ("lone-surrogate", br#""\ud800""#.to_vec()),
        ("invalid-utf8", b"\"\xc3\x28\xed\xa0\x80\xf4\x90\x80\x80\"".to_vec()),
        ("bom", b"\xef\xbb\xbf{}".to_vec()),
        ("duplicate-keys", br#"{"id":1,"id":2,"a":{"b":1,"b":[2]}}"#.to_vec()),
        ("whitespace", b" \t\r\n{ \"a\" : [ 1 , 2 ] }\r\n ".to_vec()),
        ("trailing-comma", b"[1,2,]".to_vec()),
        ("nul", b"\x00".to_vec()),
    ] {
        seeds.push(("json", format!("edge-{name}.json"), document));
    }

    // line: the transcripts and spec lines through decoders of several sizes and read patterns.
    let schedules: [(&str, &[u8]); 5] = [
        ("bytewise", &[]),
        ("reads", &[0x5f, 0xc0]),
        ("read-all-drain-one", &[0x40, 0xa1]),
        ("pushes", &[0x3f | 0x10]),
        ("mixed", &[0x03, 0x45, 0x80, 0xa2, 0x1f, 0xe0]),
    ];
    for (name, stream) in &transcripts {
        for (capacity_byte, (schedule_name, schedule)) in [0x90u8, 0xff, 40, 0, 0x84].into_iter().zip(schedules) {
            let seed = line::encode(capacity_byte, schedule, stream);
            seeds.push(("line", format!("transcript-{name}-{schedule_name}"), seed));
        }
    }
    let all_spec: Vec<u8> = spec_lines.iter().flat_map(|(_, line)| line.clone()).collect();
    seeds.push(("line", "spec-lines-2032".into(), line::encode(0xff, &[0x5f, 0xc0], &all_spec)));
    seeds.push(("line", "spec-lines-256".into(), line::encode(0x90, &[0x3f], &all_spec)));

    // engine: the transcripts under three configurations and three delivery sizes, and every spec
    // message alone (modern era) and after a legacy handshake.
    let configs: [(&str, [u8; 4]); 3] =
        [("default", [13, 10, 0, 0]), ("tight", [9, 0, 2 << 3 | 2, 6 | 8 | 16]), ("mid", [7, 12, 3 << 3 | 7, 7])];
    for (name, stream) in &transcripts {
        for (config_name, config) in configs {
            for chunk in [u16::MAX, 7] {
                let seed = engine::encode(config, &lines_of(stream), chunk);
                seeds.push(("engine", format!("transcript-{name}-{config_name}-{chunk}"), seed));
            }
        }
        seeds.push((
            "engine",
            format!("transcript-{name}-bytewise"),
            engine::encode(configs[0].1, std::slice::from_ref(stream), 1),
        ));
    }
    let handshake = lines_of(&transcripts.iter().find(|(n, _)| n == "legacy-2025-11-25").unwrap().1)[..2].to_vec();
    for (name, line) in &spec_lines {
        let stem = name.trim_end_matches(".json");
        seeds.push(("engine", format!("spec-{stem}"), engine::encode(configs[0].1, std::slice::from_ref(line), 64)));
        let session = [handshake.clone(), vec![line.clone()]].concat();
        seeds.push(("engine", format!("spec-{stem}-legacy"), engine::encode(configs[1].1, &session, u16::MAX)));
    }

    // writer: envelopes around trees of every kind of node.
    let mut tree = Encoder::new();
    tree.byte(15).byte(5); // an object of five members
    tree.chunk(b"text").byte(5).chunk("h\u{e9}llo \"w\"\n\t\u{0}\u{1f600}".as_bytes());
    tree.chunk(b"numbers").byte(14).byte(4).byte(2).u64(-5i64 as u64).byte(3).u64(u64::MAX);
    tree.byte(4).u64(0.1f64.to_bits()).byte(4).u64(f64::NAN.to_bits());
    tree.chunk(b"blob").byte(9).chunk(&[0, 1, 2, 0xfe, 0xff]);
    tree.chunk(b"copy").byte(10).chunk(b"{\"a\":[1,\n2],\r\n\"b\":1e400}");
    tree.chunk(b"record").byte(12).u64(42).byte(3).u64(u64::from(1.5f32.to_bits())).chunk(b"r\"ec");
    let tree = tree.finish();
    for (name, buffer) in [("roomy", 4096u16), ("tight", 200), ("tiny", 16)] {
        seeds.push(("writer", format!("result-{name}"), writer::encode(buffer, 7, &tree, None)));
        seeds.push(("writer", format!("error-{name}"), writer::encode(buffer, -1, &tree, Some("failed \"here\""))));
    }
    let strings: Vec<u8> = [5u8, 6, 7, 8]
        .iter()
        .flat_map(|&style| {
            let mut node = Encoder::new();
            node.byte(style).chunk("quote \" backslash \\ newline \n é 😀".as_bytes());
            node.finish()
        })
        .collect();
    let array = [vec![14, 4], strings].concat();
    seeds.push(("writer", "string-styles".into(), writer::encode(1024, 0, &array, None)));

    // sse: the spec messages as an event stream (priming event, ids, keep-alives), in every line-end
    // style, through decoders of several sizes and read patterns; the WHATWG examples; edge cases.
    let mut events = b"id: 1-0\nretry: 3000\ndata:\n\n".to_vec();
    for (sequence, (_, line)) in spec_lines.iter().enumerate() {
        let json = line.strip_suffix(b"\n").unwrap_or(line);
        events.extend_from_slice(format!("id: 1-{}\nevent: message\ndata: ", sequence + 1).as_bytes());
        events.extend_from_slice(json);
        events.extend_from_slice(b"\n\n");
        if sequence % 10 == 9 {
            events.extend_from_slice(b": keep-alive\n\n");
        }
    }
    let crlf: Vec<u8> = events.iter().flat_map(|&b| if b == b'\n' { vec![b'\r', b'\n'] } else { vec![b] }).collect();
    let cr: Vec<u8> = events.iter().map(|&b| if b == b'\n' { b'\r' } else { b }).collect();
    let schedules: [(&str, &[u8]); 4] = [
        ("reads", &[0x5f, 0xc0]),
        ("bytewise", &[]),
        ("mixed", &[0x03, 0x45, 0x80, 0xa2, 0x1f, 0xe0]),
        ("pushes", &[0x3f | 0x10]),
    ];
    for (ending, stream) in [("lf", &events), ("crlf", &crlf), ("cr", &cr)] {
        for (capacity_byte, (schedule_name, schedule)) in [0xffu8, 0x90, 0x84, 40].into_iter().zip(schedules) {
            let seed = sse::encode(capacity_byte, schedule, stream);
            seeds.push(("sse", format!("spec-events-{ending}-{schedule_name}"), seed));
        }
    }
    for (name, stream) in [
        ("whatwg-1", &b"data: This is the first message.\n\ndata: This is the second message, it\ndata: has two lines.\n\ndata: This is the third message.\n\n"[..]),
        ("whatwg-2", b"event: add\ndata: 73857293\n\nevent: remove\ndata: 2153\n\nevent: add\ndata: 113411\n\n"),
        ("whatwg-3", b": test stream\n\ndata: first event\nid: 1\n\ndata:second event\nid\n\ndata:  third event\n\n"),
        ("whatwg-4", b"data\n\ndata\ndata\n\ndata:"),
        ("whatwg-5", b"data:test\n\ndata: test\n\n"),
        ("bom", b"\xEF\xBB\xBFdata: x\n\n\xEF\xBB\xBFdata: y\n\n\xEF\xBB\ndata: z\n\n"),
        ("fields", b"id: 1\nid: a\0b\nretry: 12x\nretry: 300\nretry: 99999999999999999999999\nevent:\nfoo\n:c\ndata:  x \n\n"),
        ("over-long", b"data: 0123456789abcdef0123456789abcdef0123456789\r\n\r\ndata: ok\r\r\ndata: 0123456789abcdef0123456789abcdef0123456789"),
        ("crlf-at-limit", b"data: 0123456789012345678901234567890\r\n\r\ndata: 01234567890123456789012345678901\r\n\r\n"),
    ] {
        seeds.push(("sse", format!("edge-{name}"), sse::encode(40, &[0x20, 0x41, 0x62, 0xe3], stream)));
    }
    for (name, seed) in [
        (
            "message",
            sse::encode_writer(4096, Some((1, 7)), Some(5000), b"message", br#"{"jsonrpc":"2.0","id":1,"result":{}}"#),
        ),
        ("multiline", sse::encode_writer(4096, Some((u32::MAX, u64::MAX)), None, b"", b"a\r\nb\rc\n\n d")),
        ("tight", sse::encode_writer(20, Some((3, 42)), Some(0), b"t", b"0123456789")),
        ("bad-type", sse::encode_writer(4096, None, None, b"a\nb", b"{}")),
        ("empty", sse::encode_writer(4096, None, None, b"", b"")),
    ] {
        seeds.push(("sse", format!("writer-{name}"), seed));
    }

    // HTTP requests of both eras, and refusals.
    let json: (&str, &[u8]) = ("content-type", b"application/json");
    let both: (&str, &[u8]) = ("accept", b"application/json, text/event-stream");
    let host: (&str, &[u8]) = ("host", b"127.0.0.1:3000");
    let meta = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
    let call = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"echo",{meta}}}}}"#);
    let modern = [host, json, both, ("mcp-protocol-version", b"2026-07-28"), ("mcp-method", b"tools/call")];
    for (name, method, headers, session, body) in [
        ("modern-call", 0, [&modern[..], &[("mcp-name", b"=?base64?ZWNobw==?=")]].concat(), false, call.clone()),
        ("modern-mismatch", 0, [&modern[..], &[("mcp-name", b"other")]].concat(), false, call.clone()),
        (
            "initialize",
            0,
            vec![host, json, both],
            false,
            r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}"#.to_string(),
        ),
        (
            "session-call",
            0,
            vec![host, json, both, ("mcp-session-id", b"0123456789abcdef0123456789abcdef"), ("mcp-protocol-version", b"2025-06-18")],
            true,
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#.to_string(),
        ),
        ("rebinding", 0, vec![("host", b"evil.example.com"), ("origin", b"http://evil.example.com"), json, both], false, String::new()),
        ("smuggling", 0, vec![host, json, ("content-length", b"5"), ("transfer-encoding", b"chunked")], false, String::new()),
        (
            "resume",
            1,
            vec![host, ("accept", b"text/event-stream"), ("mcp-session-id", b"0123456789abcdef0123456789abcdef")],
            true,
            "id: 1-2\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32601,\"message\":\"m\"}}\n\n".to_string(),
        ),
        ("delete", 2, vec![host, ("mcp-session-id", b"0123456789abcdef0123456789abcdef")], true, String::new()),
    ] {
        seeds.push(("http", format!("request-{name}"), http::encode(method, b"/mcp", &headers, session, body.as_bytes())));
    }
    let message = b"/messages?sessionId=0123456789abcdef0123456789abcdef";
    let init = br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{}}}"#;
    seeds.push(("http", "sse-message".to_string(), http::encode(0, message, &[host, json], true, init)));
    seeds.push((
        "http",
        "sse-open".to_string(),
        http::encode(1, b"/sse", &[host, ("accept", b"text/event-stream")], true, b""),
    ));
    seeds
}

#[test]
fn seeds_are_up_to_date() {
    let seeds_dir = fuzz_dir().join("seeds");
    let write = std::env::var_os("MCP_FUZZ_WRITE_SEEDS").is_some();
    let mut stale = Vec::new();
    for (target, name, bytes) in generated_seeds() {
        let path = seeds_dir.join(target).join(&name);
        if write {
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(&path, &bytes).unwrap();
        } else if fs::read(&path).ok().as_deref() != Some(&bytes[..]) {
            stale.push(format!("{target}/{name}"));
        }
    }
    assert!(
        stale.is_empty(),
        "seeds differ from what the generator makes (rewrite them with MCP_FUZZ_WRITE_SEEDS=1): {stale:?}"
    );
}
