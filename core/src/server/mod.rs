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
#[cfg(feature = "completion")]
mod complete;
mod deferred;
mod dispatch;
mod engine;
pub mod handler;
pub mod input;
mod items;
pub mod legacy_input;
#[cfg(feature = "subscriptions")]
mod listen;
mod lists;
mod methods;
mod notify;
#[cfg(feature = "alloc")]
mod owned;
pub(crate) mod params;
#[cfg(feature = "alloc")]
pub mod registry;
pub mod reply;
mod seal;
mod serve;
mod server_info;
mod subscriptions;
mod suspend;
#[cfg(feature = "tasks")]
pub mod tasks;
// The engine's tests serve the whole surface (the default `full`); core/tests/features.rs is the
// test of the smaller builds.
#[cfg(all(test, feature = "full"))]
mod tests;
#[cfg(all(test, feature = "full", feature = "hmac"))]
mod tests_deferred_input;
#[cfg(all(test, feature = "full"))]
mod tests_endpoint;
#[cfg(all(test, feature = "full", feature = "hmac"))]
mod tests_input;
#[cfg(all(test, feature = "full"))]
mod tests_limits;
#[cfg(all(test, feature = "full"))]
mod tests_replies;
#[cfg(all(test, feature = "full"))]
mod tests_streams;
#[cfg(all(test, feature = "full"))]
mod tests_surface;
// Deferred answers on SSE streams.
#[cfg(all(test, feature = "full"))]
mod tests_suspend;
#[cfg(all(test, feature = "full", feature = "hmac", feature = "tasks"))]
mod tests_tasks;
// The full build's harnesses use all of it; test modules of smaller feature sets (`wrapper`,
// `mcp::view`) only its request lines.
#[cfg(test)]
#[cfg_attr(not(feature = "full"), allow(dead_code))]
pub(crate) mod tests_wire;
mod tools;
pub mod wrapper;

use core::fmt;

use crate::json::JsonStr;
use crate::mcp::ServerCapabilities;
use crate::time::Duration;
use crate::version::ProtocolVersion;

pub use crate::storage::Storage;
pub use engine::Engine;
#[cfg(feature = "alloc")]
pub use owned::OwnedBuffers;
pub use serve::Bound;
pub use serve::Server;
pub use suspend::SessionState;
pub use tools::{Structured, ToolFn, ToolResult, ToolSet};
pub use wrapper::Wrapper;

pub use crate::endpoint::{
    Buffers, DEFAULT_MAX_DEPTH, DEFAULT_PAGE_SIZE, DEFAULT_WRITE_THRESHOLD, Limits, MIN_RESPONSE_WINDOW,
};
pub use dispatch::MAX_BATCH_LEN;
pub use handler::{
    CompletionRef, CompletionRequest, Handler, Implementation, Prompt, PromptArgument, PromptGet, RequestContext,
    Resource, ResourceRead, ResourceTemplate, Tool, ToolAnnotations, ToolCall, table_capabilities,
};
pub use input::{InputReply, InputRequest, MAX_INPUT_KEY_LEN, MAX_INPUT_REQUESTS};
#[cfg(feature = "alloc")]
pub use registry::{PromptInfo, Registry, ResourceInfo, TemplateInfo, ToolInfo};
pub use reply::{
    CacheHints, CacheScope, CompletionReply, Content, DeferError, Deferred, DeferredKey, MAX_COMPLETION_VALUES,
    PromptReply, ReplyError, ReplyKind, ResourceContents, ResourceReply, ResultType, Role, ToolReply,
};
#[cfg(feature = "hmac")]
pub use seal::{HmacKeyRing, HmacSealer};
pub use seal::{MAX_REQUEST_STATE, MAX_SEALED_STATE, SealError, StateBinding, StateSealer};
pub use subscriptions::{ListChanged, ListChanges, MAX_SUBSCRIPTIONS};

/// Default deadline of a request the server sends to the client (see [`Config::request_timeout`]).
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(30);
/// Longest tool name, prompt name or resource URI that may arrive with JSON escapes in it (unescaped
/// length in bytes). Names without escapes have no limit beyond the frame length.
pub const MAX_ESCAPED_NAME_LEN: usize = 256;

/// Server identity and policy, [built with `new` and `with_*`](crate::mcp#building-descriptors) like
/// the MCP descriptors.
///
/// ```
/// use mcp_sansio::mcp::Implementation;
/// use mcp_sansio::server::{CacheHints, CacheScope, Config, Limits};
///
/// const CONFIG: Config<'static> = Config::new("thermo", "1.2.0")
///     .with_title("Thermometer")
///     .with_instructions("Read the sensors with the `read` tool.")
///     .with_limits(Limits::DEFAULT)
///     .with_list_cache(CacheHints::new(60_000, CacheScope::Public))
///     .with_request_timeout(None);
/// assert_eq!(CONFIG.request_timeout, None);
/// assert_eq!(CONFIG.server_info, Implementation::new("thermo", "1.2.0").with_title("Thermometer"));
/// ```
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
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
    /// The capabilities declared and served; `None` takes the handler's ([`Handler::capabilities`]:
    /// declared by the handler, or derived from its static tables).
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
            list_cache: CacheHints::new(0, CacheScope::Public),
            resource_cache: CacheHints::new(0, CacheScope::Private),
            capabilities: None,
            request_timeout: Some(DEFAULT_REQUEST_TIMEOUT),
            state_sealer: None,
        }
    }

    /// Sets [`server_info`](Self::server_info) (which [`new`](Self::new) fills with a name and a
    /// version), e.g. to give it a title or icons.
    #[must_use]
    pub const fn with_server_info(mut self, server_info: Implementation<'a>) -> Self {
        self.server_info = server_info;
        self
    }

    /// Sets the title of [`server_info`](Self::server_info) (its
    /// [`with_title`](Implementation::with_title)).
    #[must_use]
    pub const fn with_title(mut self, title: &'a str) -> Self {
        self.server_info.title = Some(title);
        self
    }

    /// Sets [`instructions`](Self::instructions).
    #[must_use]
    pub const fn with_instructions(mut self, instructions: &'a str) -> Self {
        self.instructions = Some(instructions);
        self
    }

    /// Sets [`limits`](Self::limits).
    #[must_use]
    pub const fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Sets [`list_cache`](Self::list_cache).
    #[must_use]
    pub const fn with_list_cache(mut self, list_cache: CacheHints) -> Self {
        self.list_cache = list_cache;
        self
    }

    /// Sets [`resource_cache`](Self::resource_cache).
    #[must_use]
    pub const fn with_resource_cache(mut self, resource_cache: CacheHints) -> Self {
        self.resource_cache = resource_cache;
        self
    }

    /// Declares [`capabilities`](Self::capabilities) instead of deriving them from the handler.
    #[must_use]
    pub const fn with_capabilities(mut self, capabilities: ServerCapabilities) -> Self {
        self.capabilities = Some(capabilities);
        self
    }

    /// Sets [`request_timeout`](Self::request_timeout); `None` waits for ever.
    #[must_use]
    pub const fn with_request_timeout(mut self, request_timeout: Option<Duration>) -> Self {
        self.request_timeout = request_timeout;
        self
    }

    /// Sets [`state_sealer`](Self::state_sealer).
    #[must_use]
    pub const fn with_state_sealer(mut self, state_sealer: &'a dyn StateSealer) -> Self {
        self.state_sealer = Some(state_sealer);
        self
    }
}

/// What [`Engine::handle_message`] made of a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum Received {
    /// A request: its answer goes (now, or when a deferred reply is finished) to the message's route.
    Request,
    /// A notification: nothing is sent in return (Streamable HTTP answers `202 Accepted`).
    Notification,
    /// A response or error from the client: nothing is sent in return (`202 Accepted`).
    Response,
    /// Not a valid message: a JSON-RPC error was sent to the message's route.
    Invalid,
}

/// Why [`Engine::handle_message`] did not take a message. Nothing was read or written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum InputError {
    /// The transmit buffer lacks room for the answer: transmit, then offer the message again.
    Busy,
    /// The input has ended ([`Engine::handle_eof`]).
    Closed,
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            InputError::Busy => "no transmit room for the answer: transmit, then try again",
            InputError::Closed => "the input has ended",
        })
    }
}

impl core::error::Error for InputError {}

/// Something the application may want to know or log; see [`Handler::on_event`]. Its `Debug`
/// shows an [`Event::Endpoint`] as the endpoint event itself (`Rejected { .. }`), as a client logs it.
#[derive(Clone, Copy, PartialEq, Eq)]
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
    /// Something about the connection itself ([`endpoint::Event`](crate::endpoint::Event)): a
    /// received message answered with an error, a dropped frame, an answer nobody waits for.
    Endpoint(crate::endpoint::Event),
}

impl From<crate::endpoint::Event> for Event<'_> {
    fn from(event: crate::endpoint::Event) -> Self {
        Event::Endpoint(event)
    }
}

impl fmt::Debug for Event<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Event::SessionStarted { version, client_name } => {
                f.debug_struct("SessionStarted").field("version", version).field("client_name", client_name).finish()
            }
            Event::SessionReady => f.write_str("SessionReady"),
            Event::Cancelled { request } => f.debug_struct("Cancelled").field("request", request).finish(),
            Event::Endpoint(event) => fmt::Debug::fmt(event, f),
        }
    }
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

/// A batch whose elements are being answered, one message each (see `dispatch`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct BatchCursor {
    pub(crate) frame: crate::frame::Frame,
    pub(crate) next: usize,
    /// Where the batch's answers start in the transmit queue (to join them into one array).
    pub(crate) mark: crate::endpoint::TxMark,
}
