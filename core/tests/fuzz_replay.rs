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

#[path = "../../fuzz/src/chunked.rs"]
mod chunked;
#[path = "../../fuzz/src/client/mod.rs"]
mod client;
#[path = "../../fuzz/src/engine/mod.rs"]
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
fn replay_client() {
    replay("client", client::run);
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

#[test]
fn regressions_are_kept_for_the_client() {
    // Each has a unit test in `core/src/client/tests.rs`.
    let regressions = files_under(&fuzz_dir().join("regressions/client"));
    let names: Vec<_> = regressions.iter().filter_map(|p| p.file_name()?.to_str()).collect();
    for expected in ["eof-drops-held-server-request", "fallback-fails-on-full-transmit", "retry-params-over-64k"] {
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

    // client: scripted servers of both eras (the client's ids are 1 for the handshake, then 2, 3, …
    // in request order), the same through tight buffers, sessions built from the generator's
    // operations, and every spec message as the server's answer or message in each era.
    seeds.extend(client_seeds(&spec_lines));
    seeds
}

/// The `client` seeds (see `fuzz/src/client/mod.rs` for the configuration bytes and operations).
fn client_seeds(spec_lines: &[(String, Vec<u8>)]) -> Vec<(&'static str, String, Vec<u8>)> {
    use client::Script;
    // Configuration bytes: era policy and capabilities (all four declared), buffers, retry buffer
    // and rounds, limits and timeouts.
    const CAPS: u8 = 4 | 8 | 16 | 32;
    let roomy = |policy: u8| [policy | CAPS, 13 | 10 << 4, 3, 0];
    let tight = |policy: u8| [policy | CAPS, 7 | 4 << 4, 2 | 2 << 3, 2 << 3 | 2 << 5 | 128];
    const LEGACY: u8 = 1;
    const AUTO: u8 = 0;
    const MODERN: u8 = 2;
    let initialize = |id: u32, version: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"result":{{"protocolVersion":"{version}","capabilities":{{"tools":{{"listChanged":true}},"resources":{{"subscribe":true}},"prompts":{{}},"logging":{{}}}},"serverInfo":{{"name":"s","version":"1"}},"instructions":"hi"}}}}"#
        )
    };
    let discover = r#"{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2025-11-25","2026-07-28"],"capabilities":{"tools":{},"resources":{}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}}}}"#;
    let mut seeds = Vec::new();

    let legacy_session = |config: [u8; 4]| {
        let mut s = Script::new(config);
        s.transmit().line(initialize(1, "2025-11-25").as_bytes()).transmit();
        s.request(0, b"echo", 2).transmit(); // tools/call, id 2
        s.line(br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":2,"progress":1,"total":2,"message":"half"}}"#);
        s.line(br#"{"jsonrpc":"2.0","id":"s1","method":"elicitation/create","params":{"message":"Sure?","requestedSchema":{"type":"object"}}}"#);
        s.line(br#"{"jsonrpc":"2.0","id":7,"method":"roots/list"}"#);
        s.line(br#"{"jsonrpc":"2.0","id":8,"method":"sampling/createMessage","params":{"messages":[],"maxTokens":5}}"#);
        s.line(br#"{"jsonrpc":"2.0","id":9,"method":"ping"}"#).transmit();
        s.line(br#"{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"echo"}]}}"#);
        s.request(4, b"", 0).transmit(); // tools/list, id 3
        s.line(br#"{"jsonrpc":"2.0","id":3,"result":{"tools":[],"nextCursor":"c"}}"#);
        s.line(br#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"warning","logger":"l","data":{"a":1}}}"#);
        s.line(br#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#);
        s.line(br#"{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"file:///a"}}"#);
        s.request(6, b"file:///a", 0).request(5, b"", 0).transmit(); // resources/read 4, ping 5
        s.clock(60_000).transmit(); // both time out: cancelled on the wire
        s.line(br#"{"jsonrpc":"2.0","id":4,"result":{"contents":[]}}"#); // late
        s.eof().transmit();
        s.finish()
    };
    seeds.push(("client", "legacy-session".to_string(), legacy_session(roomy(LEGACY))));
    seeds.push(("client", "legacy-session-tight".to_string(), legacy_session(tight(LEGACY))));

    let modern_session = |config: [u8; 4]| {
        let mut s = Script::new(config);
        s.transmit().line(discover.as_bytes()).transmit();
        s.request(0, b"confirm", 2).transmit(); // tools/call, id 2
        s.line(br#"{"jsonrpc":"2.0","id":2,"result":{"resultType":"input_required","inputRequests":{"ok":{"method":"elicitation/create","params":{"message":"Sure?","requestedSchema":{"type":"object"}}},"r":{"method":"roots/list"}},"requestState":"a\u0062c"}}"#);
        s.transmit(); // the retry, id 3
        s.line(br#"{"jsonrpc":"2.0","id":3,"result":{"resultType":"input_required","inputRequests":{"s":{"method":"sampling/createMessage","params":{"messages":[],"maxTokens":1}}},"requestState":{"n":1}}}"#);
        s.transmit(); // id 4
        s.line(br#"{"jsonrpc":"2.0","id":4,"result":{"content":[]}}"#);
        s.request(6, b"file:///a", 0).transmit(); // resources/read, id 5
        s.line(br#"{"jsonrpc":"2.0","id":5,"result":{"resultType":"input_required","requestState":"again"}}"#);
        s.transmit().cancel(1).transmit(); // the retry (id 6) cancelled under the first key
        s.request(4, b"", 0)
            .transmit()
            .line(br#"{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"bad cursor"}}"#);
        s.eof().transmit();
        s.finish()
    };
    seeds.push(("client", "modern-session".to_string(), modern_session(roomy(AUTO))));
    seeds.push(("client", "modern-session-pinned".to_string(), modern_session(roomy(MODERN))));
    seeds.push(("client", "modern-session-tight".to_string(), modern_session(tight(AUTO))));

    let mut s = Script::new(roomy(AUTO));
    s.transmit().line(br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}"#);
    s.transmit().line(initialize(2, "2025-06-18").as_bytes()).transmit();
    s.request(5, b"", 0).transmit().line(br#"{"jsonrpc":"2.0","id":3,"result":{}}"#).eof().transmit();
    seeds.push(("client", "auto-fallback-error".to_string(), s.finish()));

    let mut s = Script::new(roomy(AUTO));
    s.transmit().clock(10_000).transmit();
    s.line(br#"{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2026-07-28"],"capabilities":{}}}"#);
    s.line(initialize(2, "2024-11-05").as_bytes()).transmit().eof().transmit();
    seeds.push(("client", "auto-fallback-timeout".to_string(), s.finish()));

    let mut s = Script::new(roomy(MODERN));
    s.transmit().line(br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}"#);
    s.line(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#).transmit().eof().transmit();
    seeds.push(("client", "modern-refused".to_string(), s.finish()));

    let mut s = Script::new(roomy(LEGACY));
    s.transmit().line(br#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"1999-01-01","capabilities":{}}}"#);
    s.line(b"garbage").line(&b"[".repeat(300)).line(br#"[{"jsonrpc":"2.0","id":2,"result":{}}]"#);
    s.line(br#"{"jsonrpc":"2.0","id":99,"result":{}}"#).transmit().eof().transmit();
    seeds.push(("client", "legacy-unknown-version".to_string(), s.finish()));

    // Sessions through the generator's operations: answers to the latest request of each kind.
    for (name, policy, answers) in [
        (
            "ops-legacy",
            LEGACY,
            &[(2u8, 0x23u8, &[1u8][..]), (3, 1, &[2, 0, b'o', b'k']), (4, 0x81, &[0, 1, 0, 1]), (6, 0, &[])][..],
        ),
        ("ops-modern", AUTO, &[(0, 0x28, &[][..]), (4, 0x85, &[0, 1, 0, 1]), (5, 0x2e, &[2, 1, 3, 1, 1]), (3, 3, &[])]),
        (
            "ops-modern-state",
            MODERN,
            &[(0, 0x08, &[][..]), (4, 0xe1, &[3, 0, 0, 0]), (4, 0x61, &[4, 1, 16, 0, 1]), (9, 5, &[])],
        ),
    ] {
        let mut s = Script::new(roomy(policy));
        for (i, (kind, variant, details)) in answers.iter().enumerate() {
            s.answer(*kind, *variant, details);
            if i < answers.len() - 1 {
                s.request(if i % 2 == 0 { 0 } else { 6 }, b"tool", 2);
            }
        }
        s.raw_op(&[client::op::SERVER_REQUEST, client::flag::DELIVER, 0, 0, 0, 3]);
        s.raw_op(&[client::op::SERVER_REQUEST, client::flag::DELIVER, 5, 3, 0, 3]);
        s.raw_op(&[client::op::NOTIFICATION, client::flag::DELIVER, 0, 0, 0, 1, 0]);
        s.raw_op(&[client::op::TRANSMIT, 10, 0]).clock(u16::MAX).transmit().eof().transmit();
        seeds.push(("client", name.to_string(), s.finish()));
    }

    // Every spec message from the server's side: after a handshake in each era and a tools/call
    // (id 2), as it is, and (documents that are not messages) as the result and the error of id 2.
    for (name, line) in spec_lines {
        let stem = name.trim_end_matches(".json");
        let document = line.strip_suffix(b"\n").unwrap_or(line);
        let is_message = document.starts_with(br#"{"jsonrpc""#) || document.windows(9).any(|w| w == br#""jsonrpc""#);
        for (era, handshake, policy) in
            [("legacy", initialize(1, "2025-11-25"), LEGACY), ("modern", discover.to_string(), MODERN)]
        {
            let mut s = Script::new(roomy(policy));
            s.transmit().line(handshake.as_bytes()).transmit().request(0, b"tool", 2).transmit();
            s.line(document);
            if !is_message {
                let result = [br#"{"jsonrpc":"2.0","id":2,"result":"#.as_slice(), document, b"}"].concat();
                s.line(&result);
            }
            s.transmit().eof().transmit();
            seeds.push(("client", format!("spec-{stem}-{era}"), s.finish()));
        }
    }
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
