//! The server's Streamable HTTP rules: what an MCP server decides about a request to its endpoint
//! before and after an engine serves the body. The overview, and the rules the server shares with
//! a client (header coding, media types, the standard headers' values, the session id's form), are
//! the [parent module](super)'s. Every item here is also re-exported at [`http`](super).
//!
//! - `request.rs`: [`plan_head`] and [`plan_post`], which requests the endpoint serves, by which
//!   engine, framed how, with the standard-header check.
//! - `origin.rs`: [`HostPolicy`], `Host`/`Origin` against DNS rebinding.
//! - `status.rs`: [`Rejection`], [`first_transmit_status`], [`response_status`], the statuses it
//!   answers with; [`sse_events`] reads its SSE output back for an event store.
//! - `param.rs`: [`check_param_headers`], `Mcp-Param-*` headers against the tools' input schemas.
//! - `auth.rs`: [`bearer_token`], [`write_challenge`], bearer-token authorization of a resource
//!   server.
//! - `session.rs`: [`SessionId::from_random`](crate::http::SessionId::from_random), minting legacy
//!   session ids.
//! - `sse.rs`: [`SsePaths`], [`write_endpoint_event`], the deprecated 2024-11-05 HTTP+SSE transport.
//! - `index.rs`: [`HeaderIndex`], the header fields these rules read, found in one pass.

mod auth;
mod index;
mod origin;
mod param;
mod request;
mod session;
mod sse;
mod status;

pub use auth::{
    RESOURCE_METADATA_PATH, TokenScheme, access_token, bearer_token, dpop_proof, is_resource_metadata_path,
    write_challenge,
};
pub use index::HeaderIndex;
pub use origin::{HostPolicy, LOOPBACK_HOSTS};
pub use param::{
    MAX_PARAM_HEADER_NAME_LEN, MAX_PARAM_HEADERS, ToolSchemas, check_param_headers, check_param_headers_parsed,
};
pub use request::{
    DEFAULT_MAX_BODY, DEFAULT_PATH, HeadPlan, HttpMethod, Policy, PostPlan, Serve, plan_head, plan_post,
    plan_post_parsed, request_id,
};
pub use session::MAX_SESSION_ID_LEN;
pub use sse::{SsePaths, write_endpoint_event};
pub use status::{
    OutputEvent, Rejection, SESSION_NOT_FOUND, first_transmit_status, response_status, sse_events, sse_output_status,
};

#[cfg(test)]
mod tests;
