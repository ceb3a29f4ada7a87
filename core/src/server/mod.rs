//! The server engine: a sans-IO MCP server for both protocol eras.
//!
//! [`Engine`] is the protocol state of one connection (a stdio or serial session, one legacy HTTP
//! session, or the stateless 2026-07-28 requests of an HTTP endpoint) over caller-provided buffers,
//! with its tables of deferred requests and of requests sent to the client. The application, a
//! [`Handler`], is passed to each call, so any number of engines share one application. [`Server`]
//! bundles an engine with its handler for the common one-connection case; both implement
//! [`Connection`](crate::connection::Connection) (an engine through [`Engine::bind`]), so any
//! adapter can drive them.
//!
//! Protocol methods are answered by the engine; the handler only sees tool calls, resource reads and
//! prompt requests, already validated, and the answers to requests it sent.

mod calls;
mod dispatch;
mod engine;
pub mod handler;
pub mod input;
mod items;
pub mod legacy_input;
mod lists;
mod methods;
mod notify;
#[cfg(feature = "alloc")]
mod owned;
mod params;
#[cfg(feature = "alloc")]
pub mod registry;
pub mod reply;
mod seal;
mod serve;
mod streams;
mod subscriptions;
mod suspend;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_endpoint;
#[cfg(all(test, feature = "hmac"))]
mod tests_input;
#[cfg(test)]
mod tests_limits;
#[cfg(test)]
mod tests_replies;
#[cfg(test)]
mod tests_surface;
#[cfg(test)]
mod tests_suspend;

use crate::frame::FrameError;
use crate::json::JsonStr;
use crate::mcp::ServerCapabilities;
use crate::time::Duration;
use crate::version::ProtocolVersion;

pub use crate::storage::Storage;
pub use engine::{Bound, Engine, InputError, Received};
#[cfg(feature = "alloc")]
pub use owned::OwnedBuffers;
pub use serve::Server;
pub use suspend::SessionState;

pub use dispatch::MAX_BATCH_LEN;
pub use handler::{
    CompletionRef, CompletionRequest, Handler, Implementation, Prompt, PromptArgument, PromptGet, RequestContext,
    Resource, ResourceRead, ResourceTemplate, Tool, ToolAnnotations, ToolCall,
};
pub use input::{InputReply, InputRequest, MAX_INPUT_REQUESTS};
#[cfg(feature = "alloc")]
pub use registry::{PromptInfo, Registry, ResourceInfo, TemplateInfo, ToolInfo};
pub use reply::{
    CacheHints, CacheScope, CompletionReply, Content, DeferError, Deferred, DeferredKey, MAX_COMPLETION_VALUES,
    PromptReply, ReplyError, ReplyKind, ResourceContents, ResourceReply, ResultType, Role, ToolReply,
};
#[cfg(feature = "hmac")]
pub use seal::HmacSealer;
pub use seal::{MAX_REQUEST_STATE, MAX_SEALED_STATE, SealError, StateBinding, StateSealer};
pub use subscriptions::{ListChanged, ListChanges, MAX_SUBSCRIPTIONS};

/// Default JSON nesting limit for received messages.
pub const DEFAULT_MAX_DEPTH: usize = 64;
/// Default deadline of a request the server sends to the client (see [`Config::request_timeout`]).
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(30);
/// Default number of items on one page of `tools/list`, `resources/list` and `prompts/list`.
pub const DEFAULT_PAGE_SIZE: usize = 100;
/// Default of [`Limits::write_threshold`]: about seven 64-byte echo answers.
pub const DEFAULT_WRITE_THRESHOLD: usize = 1024;
/// Smallest transmit window the engine accepts: room for any error it writes itself.
pub const MIN_RESPONSE_WINDOW: usize = 256;
/// Longest tool name, prompt name or resource URI that may arrive with JSON escapes in it (unescaped
/// length in bytes). Names without escapes have no limit beyond the frame length.
pub const MAX_ESCAPED_NAME_LEN: usize = 256;

/// The caller-owned memory a server works in.
pub struct Buffers<'a> {
    /// Receive buffer. Its length is the longest message accepted; longer lines are rejected with an
    /// error and skipped.
    pub rx: &'a mut [u8],
    /// Transmit buffer. Must be at least [`MIN_RESPONSE_WINDOW`] bytes.
    pub tx: &'a mut [u8],
}

/// Limits on received and transmitted messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Deepest JSON nesting accepted in a received message (clamped to
    /// [`crate::json::MAX_DEPTH_LIMIT`]); deeper messages are rejected with `-32600`.
    pub max_depth: usize,
    /// Largest message the server writes, in bytes (clamped to the transmit buffer, and to at least
    /// [`MIN_RESPONSE_WINDOW`]). A result that does not fit becomes a `-32603` error; list results end
    /// the page early instead. The engine only reads the next request when this much transmit space is
    /// free: with the default (the whole transmit buffer) it answers one request at a time; a transmit
    /// buffer several times larger lets it answer a burst of requests before the adapter writes
    /// (up to [`Limits::write_threshold`] bytes of them).
    pub max_response: usize,
    /// Items per page of the list methods.
    pub page_size: usize,
    /// Output, in bytes, after which the engine takes no further request from the receive buffer
    /// until the adapter has written what waits ([`Engine::transmit_done`]); it then goes on with
    /// the requests it holds. A peer that pipelines requests (sends many before reading) thus reads
    /// its first answers while the later ones are computed, instead of after the whole burst: on two
    /// CPUs both sides work at once. The cost is a write per this many bytes of answers (or per
    /// answer, for answers larger than it); `usize::MAX` answers everything buffered before the
    /// first write. Values below 1 count as 1. It is measured,
    /// on both counts, in the README's performance section. Applies to byte streams
    /// ([`Engine::rx_commit`]); whole messages ([`Engine::handle_message`]) are one request each.
    pub write_threshold: usize,
}

impl Limits {
    /// The defaults: [`DEFAULT_MAX_DEPTH`], the whole transmit buffer, [`DEFAULT_PAGE_SIZE`],
    /// [`DEFAULT_WRITE_THRESHOLD`].
    pub const DEFAULT: Limits = Limits {
        max_depth: DEFAULT_MAX_DEPTH,
        max_response: usize::MAX,
        page_size: DEFAULT_PAGE_SIZE,
        write_threshold: DEFAULT_WRITE_THRESHOLD,
    };
}

impl Default for Limits {
    fn default() -> Self {
        Limits::DEFAULT
    }
}

/// Server identity and policy.
#[derive(Clone, Copy, Debug)]
pub struct Config<'a> {
    /// `serverInfo`: name, version, title.
    pub server_info: Implementation<'a>,
    /// Guidance for the model, sent in `initialize` and `server/discover` results.
    pub instructions: Option<&'a str>,
    /// Limits.
    pub limits: Limits,
    /// Cache hints of `server/discover` and list results (2026-07-28).
    pub list_cache: CacheHints,
    /// Default cache hints of `resources/read` results (2026-07-28).
    pub resource_cache: CacheHints,
    /// The capabilities declared and served; `None` derives them from the handler (`tools` when it
    /// has a tool at index 0, and so on). Declare them when the tables start empty and fill later.
    pub capabilities: Option<ServerCapabilities>,
    /// How long a request sent to the client (`ping`, sampling, elicitation, roots) may wait for its
    /// answer before it is cancelled and reported as [timed out](crate::endpoint::Outcome::TimedOut);
    /// `None` waits for ever.
    pub request_timeout: Option<Duration>,
    /// Seals the state handlers keep across input rounds (`requestState`); `None` sends it as plain
    /// base64, which the client can read and forge (see [`StateSealer`]).
    pub state_sealer: Option<&'a dyn StateSealer>,
}

impl<'a> Config<'a> {
    /// A configuration with default limits and no caching (`ttlMs: 0`).
    pub const fn new(name: &'a str, version: &'a str) -> Self {
        Config {
            server_info: Implementation::new(name, version),
            instructions: None,
            limits: Limits::DEFAULT,
            list_cache: CacheHints { ttl_ms: 0, scope: CacheScope::Public },
            resource_cache: CacheHints { ttl_ms: 0, scope: CacheScope::Private },
            capabilities: None,
            request_timeout: Some(DEFAULT_REQUEST_TIMEOUT),
            state_sealer: None,
        }
    }
}

/// Something the application may want to know or log; see [`Handler::on_event`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Event<'a> {
    /// A legacy client sent `initialize`; the session speaks `version`.
    SessionStarted {
        /// The negotiated version.
        version: ProtocolVersion,
        /// `clientInfo.name`, if given.
        client_name: Option<JsonStr<'a>>,
    },
    /// The legacy client sent `notifications/initialized`.
    SessionReady,
    /// The client cancelled a deferred request; its answer will be suppressed.
    Cancelled {
        /// Which request.
        request: DeferredKey,
    },
    /// A received message was answered with an error (`code`) instead of being served.
    Rejected {
        /// The JSON-RPC error code sent.
        code: i32,
        /// The error message's fixed text, after the code's name (`"params" must be an object` of
        /// `Invalid params: "params" must be an object`); for a message with a formatted part (a
        /// tool's name, a limit, …) the code's name itself ([`code::name`](crate::jsonrpc::code::name)).
        reason: &'static str,
    },
    /// A frame was dropped by the framing layer (too long, or cut off by the end of input).
    FrameDropped(FrameError),
    /// The client sent a response or an error that answers no request this server is waiting for
    /// (it sent none with that id, or the request timed out already).
    UnexpectedResponse,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Session {
    /// No `initialize` yet.
    None,
    /// `initialize` answered; `ready` after `notifications/initialized`. Log messages at `log_level`
    /// and above are sent (`logging/setLevel`; everything until then), `notifications/resources/updated`
    /// for the URIs in `subscriptions`.
    Legacy {
        version: ProtocolVersion,
        ready: bool,
        client: crate::mcp::ClientCapabilities,
        log_level: crate::mcp::LoggingLevel,
        subscriptions: subscriptions::UriSet,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Eof {
    Open,
    Pending,
    Done,
}

/// A batch whose elements are being answered, one message each (see `dispatch`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct BatchCursor {
    pub(crate) frame: crate::frame::Frame,
    pub(crate) next: usize,
    /// Where the batch's answers start in the transmit queue (to join them into one array).
    pub(crate) mark: crate::endpoint::TxMark,
}
