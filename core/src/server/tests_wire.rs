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

/// Everything `connection` has to transmit, marked transmitted, one JSON value per line.
pub(super) fn drain_json(connection: &mut impl Connection, now: Instant) -> Vec<Json> {
    let mut out = Vec::new();
    while let Some(bytes) = connection.poll_transmit() {
        out.extend_from_slice(bytes);
        let n = bytes.len();
        connection.transmit_done(now, n);
    }
    out.split(|&b| b == b'\n').filter(|l| !l.is_empty()).map(|l| serde_json::from_slice(l).unwrap()).collect()
}
