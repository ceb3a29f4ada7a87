//! The server's Streamable HTTP rules: what an MCP server decides about a request to its endpoint
//! before and after an engine serves the body (the overview is the [parent module](super)'s). Every
//! item here is also re-exported at [`http`](super).
//!
//! - [`plan_head`] and [`plan_post`]: which requests the endpoint serves, by which engine, framed how.
//! - [`HostPolicy`]: `Host`/`Origin` against DNS rebinding.
//! - [`Rejection`], [`first_transmit_status`], [`response_status`]: the statuses it answers with;
//!   [`sse_events`] reads its SSE output back for an event store.
//! - [`check_param_headers`]: `Mcp-Param-*` headers against the tools' input schemas.
//! - [`bearer_token`], [`write_challenge`]: bearer-token authorization of a resource server.
//! - [`write_endpoint_event`]: the deprecated 2024-11-05 HTTP+SSE transport.

mod auth;
mod index;
mod origin;
mod param;
mod request;
mod session;
mod sse;
mod status;

pub use auth::{RESOURCE_METADATA_PATH, bearer_token, is_resource_metadata_path, write_challenge};
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
pub use status::{OutputEvent, Rejection, SESSION_NOT_FOUND, first_transmit_status, response_status, sse_events};

#[cfg(test)]
mod tests;
