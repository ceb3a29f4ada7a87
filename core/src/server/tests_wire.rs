//! The wire of the server tests' harnesses: a message in as one NDJSON line, the server's answers
//! out as JSON values.

use std::string::ToString;
use std::vec::Vec;

use serde_json::Value as Json;

use crate::connection::Connection;
use crate::server::{Handler, Server};
use crate::time::Instant;

/// Feeds `message` to `server` as one line (all of it must be taken) and returns what it sent.
// Its harnesses test input and tasks: with `hmac`.
#[cfg_attr(not(feature = "hmac"), allow(dead_code))]
pub(super) fn send_json<H: Handler, const IN_FLIGHT: usize, const OUTBOUND: usize>(
    server: &mut Server<'_, H, IN_FLIGHT, OUTBOUND>,
    now: Instant,
    message: &Json,
) -> Vec<Json> {
    let line = message.to_string() + "\n";
    assert_eq!(server.handle_input(now, line.as_bytes()), line.len());
    drain_json(server, now)
}

/// Feeds `bytes` to `server` as an adapter would, transmitting in between (each round it must take
/// some or have something to transmit), and returns every message it wrote.
pub(super) fn feed_json<H: Handler, const IN_FLIGHT: usize, const OUTBOUND: usize>(
    server: &mut Server<'_, H, IN_FLIGHT, OUTBOUND>,
    now: Instant,
    bytes: &[u8],
) -> Vec<Json> {
    let mut out = Vec::new();
    let mut rest = bytes;
    while !rest.is_empty() {
        let taken = server.handle_input(now, rest);
        rest = &rest[taken..];
        let written = drain_json(server, now);
        assert!(taken > 0 || !written.is_empty(), "engine made no progress");
        out.extend(written);
    }
    out.extend(drain_json(server, now));
    out
}

/// Everything `connection` has to transmit, marked transmitted, one JSON value per line.
pub(super) fn drain_json(connection: &mut impl Connection, now: Instant) -> Vec<Json> {
    let mut out = Vec::new();
    while let Some(bytes) = connection.poll_transmit() {
        out.extend_from_slice(bytes);
        let n = bytes.len();
        connection.transmit_done(now, n);
    }
    lines(&out)
}

/// The JSON value of each line of `bytes`.
pub(super) fn lines(bytes: &[u8]) -> Vec<Json> {
    bytes
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| {
            serde_json::from_slice(l)
                .unwrap_or_else(|e| panic!("invalid JSON line {:?}: {e}", std::string::String::from_utf8_lossy(l)))
        })
        .collect()
}

/// A 2026-07-28 request's `_meta`: version, capabilities (none) and client.
pub(crate) const MODERN_META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}}"#;

/// A modern (2026-07-28) request line.
pub(crate) fn modern(id: u32, method: &str, params: &str) -> std::string::String {
    let sep = if params.is_empty() { "" } else { "," };
    std::format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{{{params}{sep}{MODERN_META}}}}}"#)
}

/// A legacy request line.
pub(crate) fn legacy(id: u32, method: &str, params: &str) -> std::string::String {
    std::format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{{{params}}}}}"#)
}

/// The error code of `answer`, which must be an error.
pub(super) fn error_code(answer: &Json) -> i64 {
    answer["error"]["code"].as_i64().unwrap_or_else(|| panic!("not an error: {answer}"))
}
