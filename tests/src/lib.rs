//! Conformance tests for `mcp-sansio`, run against the example device.
//!
//! The tests in `tests/` check the engine against the specification rather than against itself:
//!
//! - `schema.rs` runs a realistic session in every protocol version and validates every message
//!   the server writes against that version's official JSON schema (`spec/<version>/schema.json`).
//! - `spec_examples.rs` feeds the 2026-07-28 example requests of the specification to the server
//!   and checks that the core's JSON scanner reads every example as serde_json does.
//! - `golden.rs` replays the transcripts in `golden/` byte for byte, whole and split at random
//!   points. Regenerate them with `UPDATE_GOLDEN=1 cargo test -p mcp-sansio-tests --test golden`,
//!   then review the difference against the specification before committing it.
//!
//! This library holds what they share: a deterministic [`driver`] (the example device on a
//! simulated board, with a clock that moves per input line), the [`schema`] helpers, the
//! [`golden`] transcript format, a tiny PRNG and request builders.

#![forbid(unsafe_code)]

pub mod driver;
pub mod golden;
pub mod schema;

/// A tiny xorshift64 PRNG, for reproducible random splits.
#[derive(Clone, Debug)]
pub struct XorShift(u64);

impl XorShift {
    /// A generator from `seed` (a zero seed is replaced, since xorshift would stay at zero).
    pub fn new(seed: u64) -> Self {
        XorShift(if seed == 0 { 0x9E37_79B9_7F4A_7C15 } else { seed })
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    /// A number in `0..bound` (`bound` > 0).
    pub fn below(&mut self, bound: usize) -> usize {
        let bound64 = u64::try_from(bound).expect("usize fits u64");
        usize::try_from(self.next_u64() % bound64).expect("below a usize bound")
    }
}

/// Splits `bytes` into chunks of 1 to `max_chunk` bytes at random points.
pub fn random_chunks<'b>(bytes: &'b [u8], rng: &mut XorShift, max_chunk: usize) -> Vec<&'b [u8]> {
    let mut chunks = Vec::new();
    let mut rest = bytes;
    while !rest.is_empty() {
        let n = (1 + rng.below(max_chunk.max(1))).min(rest.len());
        let (chunk, tail) = rest.split_at(n);
        chunks.push(chunk);
        rest = tail;
    }
    chunks
}

/// The `_meta` key of the protocol version (2026-07-28).
pub const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// The `_meta` key of the client capabilities (2026-07-28).
pub const META_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// The `_meta` key of the client information (2026-07-28).
pub const META_CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";

/// A request line without modern `_meta`: `{"jsonrpc":"2.0","id":ID,"method":METHOD[,"params":PARAMS]}`.
pub fn legacy_request(id: i64, method: &str, params: Option<serde_json::Value>) -> String {
    let mut request = serde_json::json!({"jsonrpc": "2.0", "id": id, "method": method});
    if let Some(params) = params {
        request["params"] = params;
    }
    request.to_string()
}

/// A 2026-07-28 request line: `params` (an object, or none) with the full per-request `_meta`.
pub fn modern_request(id: i64, method: &str, params: Option<serde_json::Value>) -> String {
    let mut params = params.unwrap_or_else(|| serde_json::json!({}));
    // The era's fields join whatever `_meta` the caller gave (a `progressToken`, say).
    let mut meta = params.get("_meta").cloned().unwrap_or_else(|| serde_json::json!({}));
    meta[META_VERSION] = serde_json::json!(schema::MODERN);
    meta[META_CAPABILITIES] = serde_json::json!({"elicitation": {}});
    meta[META_CLIENT_INFO] = serde_json::json!({"name": "conformance-tests", "version": "1.0.0"});
    params["_meta"] = meta;
    legacy_request(id, method, Some(params))
}

/// The `initialize` request line for `version`.
pub fn initialize_request(id: i64, version: &str) -> String {
    legacy_request(
        id,
        "initialize",
        Some(serde_json::json!({
            "protocolVersion": version,
            // What the device may ask for (the factory reset's confirmation).
            "capabilities": {"elicitation": {}},
            "clientInfo": {"name": "conformance-tests", "version": "1.0.0"},
        })),
    )
}

/// The `notifications/initialized` line.
pub const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

/// The README's Rust examples, compiled and run as doctests here, where the adapters they use are
/// dependencies (the core's own doctests cannot reach them).
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct ReadmeDoctests;

/// The example of docs/client.md (the client engine driven by hand), compiled and run likewise.
#[cfg(doctest)]
#[doc = include_str!("../../docs/client.md")]
struct ClientDocDoctests;
