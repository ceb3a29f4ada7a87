//! Fuzz targets for mcp-sansio. Each module holds one target's body, shared by the cargo-fuzz binaries
//! in `fuzz_targets/` and by the stable replay test (`core/tests/fuzz_replay.rs`), which runs every
//! seed, corpus entry and past crash through the same code.
//!
//! | target   | module       | what it checks                                                        |
//! |----------|--------------|-----------------------------------------------------------------------|
//! | `line`   | [`line`]     | line decoder under arbitrary bytes and chunking, against a model      |
//! | `json`   | [`json`]     | JSON scanner, differential against serde_json                         |
//! | `writer` | [`writer`]   | envelope writer: what it writes, the scanner reads back identically    |
//! | `engine` | [`engine`]   | server engine under operation sequences, invariants after every step, and the exact error code where the message determines it ([`oracle`]) |
//! | `sse`    | [`sse`]      | SSE decoder under arbitrary bytes and chunking, against a model; encoder read back |
//! | `http`   | [`http`]     | Streamable HTTP rules: planning, refusals, header values, ids, statuses |
//! | `client` | [`client`]   | client engine against an arbitrary server in both eras, invariants after every step |
//!
//! [`chunked`] is what `line` and `sse` share: a decoder fed in chunks a schedule chooses.

pub mod chunked;
pub mod client;
pub mod engine;
pub mod http;
pub mod input;
pub mod json;
pub mod line;
pub mod oracle;
pub mod sse;
pub mod writer;
