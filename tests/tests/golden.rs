//! Golden transcripts (`golden/*.jsonl`, format in `mcp_sansio_tests::golden`): replayed byte for
//! byte, whole and split at random points.
//!
//! `UPDATE_GOLDEN=1 cargo test -p mcp-sansio-tests --test golden` rewrites the answers in the files
//! from what the server writes now. Review the difference against the specification before
//! committing it: the transcripts are the spec's reading, not the implementation's echo.

use std::collections::HashMap;
use std::path::PathBuf;

use mcp_sansio_tests::driver::{Clock, Driver, Memory, run, split_lines};
use mcp_sansio_tests::golden::{Entry, Transcript};
use mcp_sansio_tests::schema::Schema;
use mcp_sansio_tests::{XorShift, random_chunks};
use serde_json::Value;

/// Every transcript, by file stem.
const TRANSCRIPTS: [&str; 5] =
    ["legacy-2025-11-25", "old-2024-11-05", "batch-2025-03-26", "modern-2026-07-28", "errors"];

/// The protocol version each transcript speaks (the errors transcript opens a 2025-11-25 session).
const VERSIONS: [(&str, &str); 5] = [
    ("legacy-2025-11-25", "2025-11-25"),
    ("old-2024-11-05", "2024-11-05"),
    ("batch-2025-03-26", "2025-03-26"),
    ("modern-2026-07-28", "2026-07-28"),
    ("errors", "2025-11-25"),
];

/// Seeds per transcript for the random splits.
const SEEDS: u64 = 200;

fn path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("golden").join(format!("{name}.jsonl"))
}

fn updating() -> bool {
    std::env::var_os("UPDATE_GOLDEN").is_some_and(|v| !v.is_empty() && v != "0")
}

fn load(name: &str) -> Transcript {
    let path = path(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    Transcript::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// What the server writes for each send of `transcript`, as text lines.
fn replay(name: &str, transcript: &Transcript) -> Vec<Vec<String>> {
    run(&transcript.inputs())
        .into_iter()
        .map(|lines| {
            lines
                .into_iter()
                .map(|l| String::from_utf8(l).unwrap_or_else(|e| panic!("{name}: the server wrote invalid UTF-8: {e}")))
                .collect()
        })
        .collect()
}

/// The bytes the split replays must reproduce: the file's answers, or (while regenerating) the
/// whole replay's.
fn expected_bytes(name: &str, transcript: &Transcript) -> Vec<u8> {
    if !updating() {
        return transcript.expected_bytes();
    }
    replay(name, transcript).iter().flatten().flat_map(|l| l.bytes().chain([b'\n'])).collect()
}

#[test]
fn every_transcript_is_replayed() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("golden");
    let mut found: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .map(|p| p.file_stem().expect("a file name").to_string_lossy().into_owned())
        .collect();
    found.sort();
    let mut listed: Vec<String> = TRANSCRIPTS.iter().map(|s| s.to_string()).collect();
    listed.sort();
    assert_eq!(found, listed, "golden/*.jsonl and TRANSCRIPTS disagree");
}

#[test]
fn transcripts_replay_byte_for_byte() {
    let mut failures = Vec::new();
    for name in TRANSCRIPTS {
        let transcript = load(name);
        let actual = replay(name, &transcript);
        if updating() {
            let text = transcript.render_with(&actual);
            std::fs::write(path(name), text).unwrap_or_else(|e| panic!("cannot write {name}: {e}"));
            eprintln!("rewrote golden/{name}.jsonl: review the difference before committing it");
            continue;
        }
        let expected = transcript.expected();
        assert_eq!(expected.len(), actual.len(), "{name}: one answer list per send");
        let sends = transcript.entries.iter().filter_map(|e| match e {
            Entry::Send { written, .. } => Some(written),
            _ => None,
        });
        for ((sent, want), got) in sends.zip(&expected).zip(&actual) {
            if want != got {
                failures.push(format!("{name}: after\n  {sent}\nexpected\n{}\ngot\n{}", show(want), show(got)));
                break;
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{}\n(regenerate with UPDATE_GOLDEN=1 only if the new answers are right by the spec)",
        failures.join("\n\n")
    );
}

fn show(lines: &[String]) -> String {
    if lines.is_empty() {
        return "  (nothing)".to_owned();
    }
    lines.iter().map(|l| format!("  < {l}")).collect::<Vec<_>>().join("\n")
}

/// Each line arrives in random pieces (the clock stays at the line's time for all of them).
#[test]
fn transcripts_replay_split_at_random_points() {
    for name in TRANSCRIPTS {
        let transcript = load(name);
        let inputs = transcript.inputs();
        let expected = expected_bytes(name, &transcript);
        for seed in 1..=SEEDS {
            let mut rng = XorShift::new(seed.wrapping_mul(0x2545_F491_4F6C_DD1D));
            let mut memory = Memory::new();
            let mut driver = Driver::new(&mut memory, Clock::DEFAULT);
            let mut out = Vec::new();
            for input in &inputs {
                let max_chunk = 1 + rng.below(input.len());
                let chunks = random_chunks(input, &mut rng, max_chunk);
                out.extend(driver.send_chunks(&chunks));
            }
            out.extend(driver.finish());
            split_lines(&out);
            assert!(
                out == expected,
                "{name}, seed {seed}: the split replay differs{}",
                first_difference(&expected, &out)
            );
        }
    }
}

/// Pieces that span several lines, so one read completes several messages. The clock is frozen, so
/// the answers cannot depend on which read completed a line.
#[test]
fn transcripts_replay_across_line_boundaries() {
    let clock = Clock::frozen(60_000);
    for name in TRANSCRIPTS {
        let inputs = load(name).inputs();
        let mut memory = Memory::new();
        let mut driver = Driver::new(&mut memory, clock);
        let mut reference = Vec::new();
        for input in &inputs {
            reference.extend(driver.send_chunks(&[input]));
        }
        reference.extend(driver.finish());
        let all: Vec<u8> = inputs.concat();
        for seed in 0..=SEEDS {
            let mut rng = XorShift::new(seed.wrapping_add(0x5151));
            // Seed 0 sends the whole transcript in one piece.
            let max_chunk = if seed == 0 { all.len() } else { 1 + rng.below(600) };
            let chunks = random_chunks(&all, &mut rng, max_chunk);
            let mut memory = Memory::new();
            let mut driver = Driver::new(&mut memory, clock);
            let mut out = driver.send_chunks(&chunks);
            out.extend(driver.finish());
            assert!(
                out == reference,
                "{name}, seed {seed}: the replay in pieces across lines differs{}",
                first_difference(&reference, &out)
            );
        }
    }
}

/// The first output line where `actual` departs from `expected`, for a failure message.
fn first_difference(expected: &[u8], actual: &[u8]) -> String {
    let (want, got) = (split_lines(expected), split_lines(actual));
    let index = want.iter().zip(&got).position(|(w, g)| w != g).unwrap_or(want.len().min(got.len()));
    let line =
        |lines: &[Vec<u8>]| lines.get(index).map_or("(nothing)".into(), |l| String::from_utf8_lossy(l).into_owned());
    format!(
        " at output line {}: expected {} lines, got {}\n  expected: {}\n  got:      {}",
        index + 1,
        want.len(),
        got.len(),
        line(&want),
        line(&got)
    )
}

/// Every answer in the transcripts validates against the schema of the transcript's version, so a
/// regenerated transcript cannot enshrine a malformed answer.
///
/// One exception, forced by the schemas: an error answered without an id (the request's id could
/// not be read: a parse error, an invalid request, a refused batch). The schemas up to 2025-06-18
/// require `id` in `JSONRPCError` and allow only strings and integers there, so no answer can satisfy
/// them; 2025-11-25 made `id` optional in `JSONRPCErrorResponse` for exactly this case. Such answers
/// are checked against 2025-11-25.
#[test]
fn golden_answers_match_their_schemas() {
    let fallback = Schema::load("2025-11-25");
    let mut checked = 0;
    for (name, version) in VERSIONS {
        let schema = Schema::load(version);
        let id_required = schema
            .definition(schema.generic_error_response())
            .and_then(|d| d.get("required"))
            .and_then(Value::as_array)
            .is_some_and(|required| required.iter().any(|r| r == "id"));
        let transcript = load(name);
        for (input, answers) in transcript.inputs().iter().zip(transcript.expected()) {
            // The methods of the requests in this input, by id.
            let mut methods = HashMap::new();
            if let Ok(value) = serde_json::from_slice::<Value>(input) {
                let messages = match value {
                    Value::Array(items) => items,
                    other => vec![other],
                };
                for message in messages {
                    if let (Some(id), Some(method)) = (message.get("id"), message.get("method").and_then(Value::as_str))
                    {
                        methods.insert(id.to_string(), method.to_owned());
                    }
                }
            }
            // A batch answered as one array: each element is checked as a message of its own.
            let messages = answers.iter().flat_map(|answer| {
                match serde_json::from_str(answer).unwrap_or_else(|e| panic!("{name}: {e}: {answer}")) {
                    Value::Array(items) => {
                        assert!(!items.is_empty(), "{name}: an empty array was sent");
                        items
                    }
                    message => vec![message],
                }
            });
            for message in messages {
                let method = message.get("id").and_then(|id| methods.get(&id.to_string())).map(String::as_str);
                let idless_error = message.get("id").is_none() && message.get("error").is_some();
                let schema = if idless_error && id_required { &fallback } else { &schema };
                if let Err(report) = schema.check_message(method, &message) {
                    panic!("golden/{name}.jsonl: {report}");
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 60, "only {checked} answers checked");
}
