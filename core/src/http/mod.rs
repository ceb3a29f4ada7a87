//! The Streamable HTTP rules, sans-IO. They come in two parts, so that an HTTP client can be
//! written beside the server on the rules both share:
//!
//! - **Shared by both roles** (the files of this module): what an MCP server and an MCP client
//!   both read or write on the wire.
//! - **The server's** ([`server`]): everything an HTTP server needs to decide about a request to
//!   the MCP endpoint before and after an engine serves its body, so an embedded HTTP server and
//!   the tokio adapter share them and the adapters only move bytes. Every item of [`server`] is
//!   also re-exported here, at `http::`.
//!
//! Nothing here depends on the server role's engine ([`crate::server`]): the tools whose headers
//! are checked come through [`ToolSchemas`].
//!
//! # Shared by both roles
//!
//! - Header fields, read from any header map through [`Headers`] ([`HeaderList`] over a slice of
//!   pairs), by the names in [`name`]; [`trim_ows`].
//! - `Mcp-*` header values: [`decode_value`] reads them and [`encode_value`] writes them, as they
//!   are or in the `=?base64?…?=` form; [`matches_value`] compares one to the JSON value it stands
//!   for; [`HeaderValueError`].
//! - Media types: [`media_type_is`] (`Content-Type`), [`accepts`] (`Accept`).
//! - The 2026-07-28 standard headers: [`standard_header_values`] says what `MCP-Protocol-Version`,
//!   `Mcp-Method` and `Mcp-Name` must say of a message ([`StandardHeaders`]); a client writes them
//!   from it, the server checks them against it.
//! - Legacy session ids: [`SessionId`], its form, which the server mints and the client echoes.
//!
//! # The client's
//!
//! [`client`]: the headers of each POST ([`plan_message`]: the media types, the 2026-07-28 standard
//! headers or the legacy version and session, cancellation as closing a stream), reading the
//! answer ([`read_response`], [`EventStream`], [`answers`]), the error answer a client gives itself
//! when the exchange failed ([`write_failure`]), and the legacy session ([`session_id`],
//! [`delete_headers`]), and the legacy standalone stream ([`opens_listen_stream`], [`listen_headers`],
//! [`reopen_after`]). Its items are also re-exported here, except its constants.
//!
//! # The server's
//!
//! One endpoint serves both eras:
//!
//! 1. [`plan_head`] checks the request head: the path, `Host`/`Origin` against DNS rebinding
//!    ([`HostPolicy`]), the method (405), `Content-Type` (415), `Accept` (406), `Content-Length`
//!    against the body limit (413) and together with `Transfer-Encoding` (400), and reads
//!    `Mcp-Session-Id` and `Last-Event-ID`. GET opens or resumes a legacy session's stream, DELETE
//!    ends a session; without a session both are 405 (2026-07-28 is POST only).
//! 2. [`plan_post`] routes the body: a 2026-07-28 request (modern `_meta` or version header) goes to
//!    the stateless engine after the standard-header checks (`MCP-Protocol-Version`, `Mcp-Method`,
//!    `Mcp-Name`, values decoded from `=?base64?…?=`: -32020; then [`check_param_headers`] for the
//!    `Mcp-Param-*` headers of `x-mcp-header` tool arguments); `initialize` opens a legacy session;
//!    anything else needs the session it names (400 without one, 404 for an unknown one). It also
//!    picks the answer's framing: JSON, or SSE when the request streams (progress, logs, listen) or
//!    the client takes only SSE; legacy requests get SSE when accepted, so server-to-client requests
//!    can ride on them.
//! 3. The engine's answer gets its status from [`first_transmit_status`] (400 for -32020/-32021/
//!    -32022, 404 for -32601 in 2026-07-28); notifications and responses get 202. Refusals are
//!    [`Rejection`]s with JSON-RPC bodies.
//! 4. The deprecated 2024-11-05 HTTP+SSE transport, when [`Policy::sse`] names its paths: a GET of
//!    the stream opens a session and gets [`write_endpoint_event`] first; POSTs to the message
//!    path name the session in `?sessionId=` and are answered 202, their answers going on the stream.
//! 5. Bearer-token authorization (optional): [`bearer_token`] reads the token ([`access_token`] and
//!    [`dpop_proof`] a DPoP-bound one and its proof), [`write_challenge`]
//!    writes the 401/403 `WWW-Authenticate` that names the RFC 9728 metadata document served at
//!    [`RESOURCE_METADATA_PATH`] ([`is_resource_metadata_path`]). Validating the token (signature,
//!    expiry, audience) is the application's.
//! 6. Legacy sessions are named by a [`SessionId`] minted from caller-provided random bytes
//!    ([`SessionId::from_random`]); SSE events are named `<stream>-<sequence>`
//!    ([`EventId`](crate::frame::EventId)), so a `Last-Event-ID` names the stream to replay and
//!    where; [`sse_events`] splits the engine's output into events for an event store.
//!
//! A server that parses a request's header list once can index the fields these rules read in a
//! [`HeaderIndex`].
//!
//! # Limits
//! - Request body: [`Policy::max_body`] ([`DEFAULT_MAX_BODY`]).
//! - Decoded `Mcp-*` header values: [`MAX_HEADER_VALUE_LEN`] bytes (longer ones are a mismatch).
//! - Session ids: exactly 32 lower-case hex digits ([`SESSION_ID_RANDOM_BYTES`] random bytes).
//!
//! - `Mcp-Param-*` headers: [`check_param_headers`] checks at most [`MAX_PARAM_HEADERS`] annotated
//!   properties per tool, with names of at most [`MAX_PARAM_HEADER_NAME_LEN`] bytes.

pub mod client;
mod header;
mod media;
pub mod server;
mod session;
mod standard;

pub use client::{
    EventStream, Failure, ListenEnd, Outgoing, Post, PostContext, ResponseBody, answers, delete_headers,
    listen_headers, opens_listen_stream, plan_message, read_response, reopen_after, resume_after, session_id, to_line,
    write_failure,
};
pub use header::{
    HeaderList, HeaderValueError, Headers, MAX_HEADER_VALUE_LEN, decode_value, encode_value, matches_value, name,
    trim_ows,
};
pub use media::{accepts, media_type_is};
pub use server::{
    DEFAULT_MAX_BODY, DEFAULT_PATH, HeadPlan, HeaderIndex, HostPolicy, HttpMethod, LOOPBACK_HOSTS,
    MAX_PARAM_HEADER_NAME_LEN, MAX_PARAM_HEADERS, MAX_SESSION_ID_LEN, OutputEvent, Policy, PostPlan,
    RESOURCE_METADATA_PATH, Rejection, SESSION_NOT_FOUND, Serve, SsePaths, TokenScheme, ToolSchemas, access_token,
    bearer_token, check_param_headers, check_param_headers_parsed, dpop_proof, first_transmit_status,
    is_resource_metadata_path, plan_head, plan_post, plan_post_parsed, request_id, response_status, sse_events,
    sse_output_status, write_challenge, write_endpoint_event,
};
pub use session::{SESSION_ID_RANDOM_BYTES, SessionId};
pub use standard::{StandardHeaders, standard_header_values};
