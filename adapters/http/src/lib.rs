#![warn(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]
//! Serves an mcp-sansio application over Streamable HTTP, both protocol eras on one endpoint, with
//! hyper 1.x on tokio.
//!
//! Every decision about a request (era, headers, statuses, sessions, event ids) is the core's
//! [`mcp_sansio::http`]; this crate moves bytes between hyper and the engines: one stateless
//! [`Engine`](mcp_sansio::server::Engine) for 2026-07-28 requests, one engine per legacy session
//! (2025-03-26 … 2025-11-25), all sharing one [`Handler`](mcp_sansio::server::Handler).
//!
//! It is a crate of its own, not a feature of `mcp-sansio-tokio`, so that stdio users do not build
//! hyper.
//!
//! ```no_run
//! use mcp_sansio::server::{Config, Handler};
//! use mcp_sansio_http::{HttpConfig, McpHttp, serve, shutdown_signal};
//!
//! struct App;
//! impl Handler for App {}
//!
//! # async fn run() -> std::io::Result<()> {
//! let addr: std::net::SocketAddr = "127.0.0.1:8080".parse().unwrap();
//! let listener = tokio::net::TcpListener::bind(addr).await?;
//! let endpoint = McpHttp::new(App, HttpConfig::new(Config::new("app", "1.0.0"), addr));
//! serve(listener, endpoint, shutdown_signal()).await
//! # }
//! ```
//!
//! # What it serves
//! - **2026-07-28**: stateless POSTs, answered as JSON, or SSE when the request streams or the
//!   client takes only SSE; 202 for notifications; GET and DELETE without a session are 405.
//! - **Legacy Streamable HTTP**: `initialize` opens a session named by a random `Mcp-Session-Id`
//!   (16 bytes from the OS CSPRNG); later requests need it (400 without, 404 when unknown or
//!   expired); DELETE ends it; GET opens its standalone stream (notifications and requests to the
//!   client); sessions live in a [`SessionStore`], and SSE events are kept in an [`EventStore`]
//!   (within [`EventLimits`]: of the streams delivered whole, only the most recent) so `GET` with
//!   `Last-Event-ID` replays the rest of that stream; 2025-11-25 streams start with a priming event
//!   carrying `retry`. With [`HttpConfig::legacy_json_answers`] an answer given at once and alone is
//!   a JSON body instead.
//!
//! # Security defaults
//! - `Host` and `Origin` must name a loopback host when bound to a loopback address (403
//!   otherwise); set [`HttpConfig::allowed_hosts`] / [`HttpConfig::allowed_origins`] for others.
//! - Bodies at most 4 MiB (413), heads at most 16 KiB, head read 10 s, body read 30 s;
//!   `Content-Length` with `Transfer-Encoding` is refused; at most 256 sessions, idle ones end after
//!   30 minutes; SSE readers that fall 256 messages behind are dropped. See [`HttpConfig`].
//! - `TCP_NODELAY` on every connection; graceful shutdown on SIGINT/SIGTERM with
//!   [`shutdown_signal`].
//!
//! # Replicas
//! Several processes of one server behind a load balancer with no session affinity share their
//! legacy sessions through a store outside the process ([`McpHttp::with_shared_sessions`], a
//! [`SharedSessions`]; `mcp-sansio-redis` keeps them in Redis), each with its own
//! [`HttpConfig::replica`] number: any replica serves any request of any session. 2026-07-28
//! requests need nothing shared but, for multi-round-trip input, one `requestState` sealing key.
//! What is shared, when, and what is not yet: [`shared`].
//!
//! # Service
//! [`McpHttp`] is a hyper `Service` and a tower `Service` (for axum: `Router::route_service`).
//! `tracing` spans name each HTTP request (`http`) and the MCP request it carries (`mcp`); nothing is
//! logged unless the application installs a subscriber.
//!
//! # Answering later
//! A handler that [defers](mcp_sansio::server::ToolReply::defer) keeps its handle and answers through
//! [`McpHttp::with_engine`], which also sends notifications and requests to a legacy client; the
//! waiting response (JSON or SSE) gets the answer. In 2026-07-28 a client that closes the response
//! stream first cancels the request ([`Engine::cancel_stream`](mcp_sansio::server::Engine::cancel_stream)):
//! the handler sees [`Event::Cancelled`](mcp_sansio::server::Event::Cancelled) and the late answer
//! is refused. In legacy sessions a disconnection is not a cancellation.
//!
//! A handler that [asks the client for input](mcp_sansio::server::input) in a legacy session needs
//! nothing more: each session's engine has an input buffer ([`HttpConfig::session_input_bytes`]),
//! sends `elicitation/create`, `sampling/createMessage` or `roots/list` on the request's SSE stream
//! (on the standalone GET stream when the POST is answered as JSON), and answers the request once
//! the client's answers, POSTed to the session, are in.
//!
//! - **HTTP+SSE (2024-11-05, deprecated)**, when [`HttpConfig::legacy_sse`] names its paths: GET
//!   `/sse` opens a session and names `/messages?sessionId=…` in its first event; POSTs there get 202
//!   and their answers go on the stream; the session ends with the stream.
//!
//! # Client
//! [`client::connect`] is the other side: the client engine ([`mcp_sansio::client`]) on the host API,
//! POSTing each message to an MCP endpoint (both eras), with hyper's HTTP/1.1 client.
//!
//! # Authorization
//! With [`HttpConfig::auth`] every MCP request needs `Authorization: Bearer <token>`, which the
//! application's [`BearerAuth::validate`] checks (signature, expiry, audience, scopes): 401 or 403
//! with a `WWW-Authenticate` challenge naming the RFC 9728 metadata document otherwise, which is
//! served at `/.well-known/oauth-protected-resource` (and `…/mcp`). Challenges follow RFC 6750:
//! no `error` without a token, `error="invalid_token"` for a refused one (401),
//! `error="insufficient_scope"` with the `scope` needed (403); a 401 also names the document's
//! `scopes_supported` as `scope`. The adapter issues no tokens.
//!
//! With the `jwt` feature, `jwt::JwtValidator` is such a check for JWT access tokens: issuer,
//! audience (the endpoint's canonical URI), asymmetric algorithms only, leeway on `exp`/`nbf`,
//! required scopes, keys from the issuer's JWKS (cached; fetched again in the background on an
//! unknown `kid`, at most once per cooldown, and periodically); `jwt::JwtValidator::bearer_auth`
//! builds the whole [`BearerAuth`].

mod body;
pub mod client;
mod config;
#[cfg(any(feature = "oauth", feature = "jwt"))]
mod fetch;
mod hash;
mod head;
#[cfg(feature = "jwt")]
#[cfg_attr(docsrs, doc(cfg(feature = "jwt")))]
pub mod jwt;
mod owned;
mod response;
mod server;
mod service;
mod serving;
pub mod shared;
mod shared_events;
#[cfg(unix)]
mod spin;
mod sse_transport;
mod state;
mod store;
mod tasks;

pub use body::ResponseBody;
pub use config::{
    BearerAuth, HttpConfig, ProofRequest, ProofVerifier, TaskLimits, TokenGrant, TokenRejection, TokenValidator,
    VerifiedProof,
};
pub use owned::{HttpEngine, IN_FLIGHT, OUTBOUND};
pub use server::{serve, shutdown_signal};
pub use service::{MAX_SHARDS, McpHttp, WeakMcpHttp};
pub use serving::{Serving, serving};
pub use shared::{Notice, SharedSessions, StoreError};
pub use state::LegacySession;
pub use store::{EventLimits, EventStore, MemoryEventStore, MemorySessionStore, SessionStore, StreamState};
