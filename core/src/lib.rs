#![no_std]
#![forbid(unsafe_code)]
#![warn(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]
//! # mcp-sansio
//!
//! A [Model Context Protocol](https://modelcontextprotocol.io) engine that does no IO, reads no clock,
//! spawns nothing and allocates nothing. The caller feeds it received bytes and the current time, and
//! drains bytes to transmit and the next deadline. The same engine serves a microcontroller over a
//! UART and a tokio process over stdio; the adapters that bind it to a runtime hold no protocol logic.
//!
//! It speaks both protocol eras at once: the legacy era (2024-11-05, 2025-03-26, 2025-06-18,
//! 2025-11-25), where a session opens with `initialize`, and the modern era (2026-07-28), where every
//! request carries its version in `params._meta`. The era is chosen per request.
//!
//! ## Layers
//! - [`time`]: [`Instant`](time::Instant) and [`Duration`](time::Duration), given by the caller.
//! - [`num`]: decimal text of `u64` values with 32-bit division only (for firmware).
//! - [`storage`]: the byte buffers everything works in, borrowed or (with `alloc`) owned.
//! - [`frame`]: input framing (newline-delimited lines with a hard length limit and
//!   resynchronisation).
//! - [`json`]: a strict, iterative JSON scanner with a depth limit, and a writer into fixed buffers.
//! - [`jsonrpc`]: JSON-RPC 2.0 envelopes.
//! - [`mcp`]: MCP types both roles use (implementation info, tools, resources, prompts, capabilities).
//! - [`endpoint`]: the role-neutral layer: the transmit queue with its streams and framings, the
//!   table of requests sent to the peer with their deadlines.
//! - [`server`]: the server engine and the [`Handler`](server::Handler) trait the application implements.
//! - [`connection`]: the byte-stream contract adapters drive.
//!
//! ## The model: endpoints, streams, framings
//!
//! An [`Engine`](server::Engine) is the protocol state of one connection: a stdio or serial session,
//! one legacy Streamable HTTP session, or the stateless 2026-07-28 requests of an HTTP endpoint. It
//! owns no application: the [`Handler`](server::Handler) is passed to each call, so thousands of
//! engines share one application ([`Server`](server::Server) bundles one engine with its handler).
//!
//! Input is a byte stream the engine frames itself (NDJSON lines: [`Connection::rx_spare`] /
//! [`Connection::rx_commit`]) or whole messages ([`Engine::handle_message`](server::Engine::handle_message),
//! for HTTP bodies), each tagged with the [`Route`](endpoint::Route) its answers take. Output is one
//! queue of [`Transmit`](endpoint::Transmit)s: bytes of one [stream](endpoint::StreamId), whole
//! messages framed for that stream ([NDJSON line, SSE event or bare body](endpoint::Framing)), and
//! whether the stream ends there. Requests the engine sends to the peer wait in a table with their
//! deadlines; [`Connection::poll_timeout`] reports the earliest, and
//! [`Connection::handle_timeout`] cancels what expired.
//!
//! ```
//! use mcp_sansio::endpoint::{Framing, Route, StreamId};
//! use mcp_sansio::server::{Buffers, Config, Engine, Handler, Received};
//! use mcp_sansio::time::Instant;
//!
//! struct App; // no tools: answers protocol methods only
//! impl Handler for App {}
//!
//! // One stateless engine for the 2026-07-28 POSTs of an HTTP endpoint; each legacy session would
//! // get an engine of its own. All of them share `app`.
//! let mut app = App;
//! let (mut rx, mut tx) = ([0u8; 512], [0u8; 2048]);
//! let mut engine: Engine<'_> = Engine::new(Config::new("app", "1.0.0"), Buffers { rx: &mut rx, tx: &mut tx });
//! let post = br#"{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
//!
//! // The answer is one SSE event on the POST's response stream, which then ends.
//! let route = Route::new(StreamId(1), Framing::Sse).ending_with_response();
//! let now = Instant::from_millis(0);
//! assert_eq!(engine.handle_message(now, route, post, &mut app), Ok(Received::Request));
//! let transmit = engine.poll_transmit().unwrap();
//! assert_eq!(transmit.stream, StreamId(1));
//! assert!(transmit.bytes.starts_with(b"id: 1-1\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{"));
//! assert!(transmit.bytes.ends_with(b"\n\n") && transmit.end_of_stream);
//! let written = transmit.bytes.len();
//! engine.transmit_done(now, written, &mut app);
//! assert!(engine.poll_transmit().is_none());
//! ```
//!
//! ## The run loop
//!
//! After **every** call that feeds the engine (received bytes, end of input, a timeout, transmitted
//! bytes, a deferred answer), drain its output before waiting again:
//!
//! 1. Read received bytes into [`Connection::rx_spare`] and report them with
//!    [`Connection::rx_commit`]. The engine processes every complete message it has transmit room for;
//!    the [`Handler`](server::Handler) runs inside this call and events reach it synchronously.
//! 2. While [`Connection::poll_transmit`] returns bytes, write them and report the count with
//!    [`Connection::transmit_done`] (which may process input that was held back).
//! 3. Wait for input, for the output to become writable if bytes are pending, or until
//!    [`Connection::poll_timeout`]; then call [`Connection::handle_timeout`] if it passed.
//! 4. At end of input call [`Connection::handle_eof`]; stop once [`Connection::is_finished`].
//!
//! ```
//! use mcp_sansio::connection::Connection;
//! use mcp_sansio::server::{Buffers, Config, Handler, Server, Tool, ToolCall, ToolReply};
//! use mcp_sansio::time::Instant;
//!
//! static TOOLS: [Tool<'static>; 1] =
//!     [Tool::new("echo", "Echoes its input", r#"{"type":"object","properties":{"text":{"type":"string"}}}"#)];
//!
//! struct Echo;
//! impl Handler for Echo {
//!     const TOOLS: &'static [Tool<'static>] = &TOOLS;
//!     fn call_tool(&mut self, call: ToolCall<'_>, reply: ToolReply<'_>) {
//!         match call.argument("text").and_then(|v| v.as_str()) {
//!             Some(text) => reply.text_json(text).finish(),
//!             None => reply.finish_error_text("missing \"text\""),
//!         }
//!     }
//! }
//!
//! let (mut rx, mut tx) = ([0u8; 1024], [0u8; 1024]);
//! let mut server: Server<'_, Echo> =
//!     Server::new(Echo, Config::new("echo", "1.0.0"), Buffers { rx: &mut rx, tx: &mut tx });
//! let request = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
//!
//! let now = Instant::from_millis(0);
//! let spare = server.rx_spare();
//! spare[..request.len()].copy_from_slice(request);
//! spare[request.len()] = b'\n';
//! server.rx_commit(now, request.len() + 1);
//! let mut out = Vec::new();
//! while let Some(bytes) = server.poll_transmit() {
//!     out.extend_from_slice(bytes);
//!     let n = bytes.len();
//!     server.transmit_done(now, n);
//! }
//! assert!(out.starts_with(br#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hi"}]"#));
//! ```
//!
//! ## Features
//! The protocol surface is a set of cargo features, all on by default (`full`): `legacy` and
//! `modern` (the eras), `input` (asking the client: elicitation, sampling, roots), `resources`,
//! `prompts`, `completion`, `logging`, `subscriptions`, `http` (the Streamable HTTP rules) and
//! `client` (the client role). A firmware builds with `default-features = false` and the features
//! it serves, and pays for nothing else: a method whose feature is off is answered `-32601` and its
//! capability is not declared ([`mcp::ServerCapabilities::served_by_build`]); tools are always
//! served. Without `legacy`, `initialize` is answered `-32022` naming the modern versions; without
//! `modern`, every request is served as a legacy server serves it; without `input`, an
//! input-required answer fails with `-32603`. Beside the surface: `alloc`, `std`, `defmt`, `hmac`,
//! `tasks`, and `walk-index` (in `full`: an index of each message's shallow structure that spares
//! walks a rescan, for 340 B of stack on 32-bit targets). The crate's README has the table,
//! `docs/firmware.md` what each profile measures.
//!
//! ## Guarantees
//! - No panics on any input, and bounded work per call: at most the messages held in the receive buffer.
//! - Memory is the caller's buffers plus a fixed-size engine struct; nothing grows.
//! - A message that does not fit its transmit window is replaced by a JSON-RPC error; the output never
//!   contains a partial message, and every request is answered exactly once.
//!
//! ## Limits
//! Every limit is explicit: the longest message is the receive buffer's length; JSON nesting, the
//! largest answer and the list page size are [`server::Limits`]; deferred requests are the `IN_FLIGHT`
//! parameter of [`server::Server`]; string ids kept for deferred answers are at most
//! [`jsonrpc::MAX_ID_LEN`] bytes; batches (2025-03-26) hold at most [`server::MAX_BATCH_LEN`] messages.
//!
//! [`Connection::rx_spare`]: connection::Connection::rx_spare
//! [`Connection::rx_commit`]: connection::Connection::rx_commit
//! [`Connection::poll_transmit`]: connection::Connection::poll_transmit
//! [`Connection::transmit_done`]: connection::Connection::transmit_done
//! [`Connection::poll_timeout`]: connection::Connection::poll_timeout
//! [`Connection::handle_timeout`]: connection::Connection::handle_timeout
//! [`Connection::handle_eof`]: connection::Connection::handle_eof
//! [`Connection::is_finished`]: connection::Connection::is_finished

#[cfg(feature = "alloc")]
extern crate alloc;
#[cfg(any(feature = "std", test))]
extern crate std;

#[cfg(feature = "client")]
pub mod client;
pub mod connection;
pub mod endpoint;
pub mod frame;
#[cfg(feature = "http")]
pub mod http;
pub mod json;
pub mod jsonrpc;
pub mod mcp;
pub mod num;
pub mod server;
pub mod storage;
mod swar;
pub mod text;
pub mod time;
pub mod version;

#[cfg(test)]
mod test_rng;
