//! The client engine: a sans-IO MCP client for both protocol eras, the server's sibling.
//!
//! A host (an AI application) keeps one client per server it connects to. [`Engine`] is the
//! protocol state of one such connection over caller-provided buffers: the era it found
//! ([`EraPolicy`]: probe `server/discover`, fall back to `initialize`), the server's capabilities,
//! and the requests awaiting answers. The application, a [`Handler`], is passed to each call that
//! can run it, as with the [server](crate::server). It is built on the same
//! [`Endpoint`](crate::endpoint) as the server: the same transmit queue, outbound table, ids,
//! timeouts, cancellation on the wire and error answers.
//!
//! # Eras
//! - **Auto** (the default): `server/discover` at 2026-07-28 first. A usable `DiscoverResult` that
//!   lists 2026-07-28 makes the connection modern: every request then carries `_meta` (protocol
//!   version, client capabilities, client info). Any other answer, an error of any code, or no
//!   answer within [`Config::connect_timeout`] falls back to `initialize` (never keyed on one error
//!   code), written as soon as the transmit buffer has room for it. One exception: a `-32022`
//!   (unsupported protocol version) whose `data.supported` lists 2026-07-28 after all is a
//!   rejection the client retries, as the specification asks ("retry with a mutually supported
//!   version"): the probe is sent once more, then the rules above apply.
//! - **Legacy**: `initialize` at 2025-11-25 (the server may answer an older version, which is
//!   accepted if this crate implements it), then `notifications/initialized`.
//! - **Modern**: `server/discover` only (retried once after such a `-32022`); anything but a usable
//!   result fails the connection.
//!
//! The verdict ([`Engine::era`]) is reported in [`Event::Connected`], so a host can cache it.
//!
//! # Requests and answers
//! [`Engine::request`] sends any method; [`Engine::call_tool`], [`Engine::list_tools`] and the
//! other typed helpers write their params. Each returns the [`OutboundKey`] its
//! [`Response`](crate::endpoint::Response) will name in [`Handler::on_response`]: a result, an
//! error, [`Outcome::TimedOut`](crate::endpoint::Outcome::TimedOut) after
//! [`Config::request_timeout`] (the request is cancelled on the wire), or
//! [`Outcome::Closed`](crate::endpoint::Outcome::Closed) when the input ended first. Ids are never
//! reused and no request has two outcomes; a request sent with
//! [`Engine::request_with_progress`] gets a new timeout with each progress report, up to
//! [`Config::max_request_time`]; an answer nobody waits for (a late one after a timeout,
//! a duplicate) is reported as [`endpoint::Event::UnexpectedResponse`](crate::endpoint::Event).
//!
//! # Input from the server
//! A legacy server asks the client for input with requests (`elicitation/create`,
//! `sampling/createMessage`, `roots/list`); the engine reads each as a
//! [`ReceivedInput`](crate::mcp::input::ReceivedInput) and hands it to [`Handler::on_input`], which
//! writes the result. Methods whose capability the client did not declare, and unknown methods,
//! are answered `-32601`; `ping` is answered by the engine.
//!
//! A 2026-07-28 server answers `input_required` instead (`tools/call`, `prompts/get`,
//! `resources/read`): the engine asks the same [`Handler::on_input`] for each of its
//! `inputRequests` and retries the request under a new id with the answers in `inputResponses`
//! and the server's `requestState` echoed byte for byte (none when it sent none). For that it keeps
//! each such request's params in the buffer given to [`Engine::set_retry_buffer`]; the
//! application sees only the last round's outcome, under the key it was given. Without the
//! buffer, with an input the client did not declare or the handler refused, or after
//! [`Config::max_input_rounds`], the `input_required` result itself is the outcome.
//!
//! # Tasks
//! A 2026-07-28 server may answer a `tools/call` with a task (`resultType: "task"`, the extension
//! `io.modelcontextprotocol/tasks`, SEP-2663) when the request declared the extension: the
//! client sets [`ClientCapabilities::tasks`](crate::mcp::ClientCapabilities::tasks) only if it
//! follows tasks (the extension is never declared in a legacy `initialize`). The task answer is
//! the request's outcome like any result: [`Task::created`] recognises it. Following it is the
//! caller's, with the engine's requests: poll [`Engine::get_task`] every [`Task::poll_delay`]
//! and read the answer with [`DetailedTask::read`] (completed: the result, as if the call had
//! answered it; failed: the error), answer its questions with [`Engine::answer_task`] (through
//! [`Handler::on_input`], as `input_required` rounds are answered), and give it up with
//! [`Engine::cancel_task`]. The host API (`mcp_sansio_driver::host`) does all of this for every
//! runtime.
//!
//! # Limits
//! - Requests awaiting answers: the engine's `OUTBOUND` parameter ([`SendError::TooManyRequests`]
//!   beyond it).
//! - Messages: the [`Limits`] of the endpoint (receive buffer, transmit window, JSON depth).
//! - Multi-round-trip requests: their params must fit the retry buffer (with 20 bytes a request)
//!   and be at most 65,535 bytes long, at most [`Config::max_input_rounds`] rounds each.
//!
//! [`OutboundKey`]: crate::endpoint::OutboundKey
//! [`SendError::TooManyRequests`]: crate::endpoint::SendError::TooManyRequests

mod bound;
mod engine;
mod handler;
mod incoming;
mod notification;
mod retry;
mod task;
// The client's tests run it against servers of either era (the default `full`).
#[cfg(all(test, feature = "full"))]
mod tests;

use core::fmt;

use crate::endpoint::{Limits, OutboundKey};
use crate::mcp::{ClientCapabilities, Implementation, LoggingLevel, ServerCapabilities};
use crate::time::Duration;
use crate::version::ProtocolVersion;

pub use crate::endpoint::Buffers;
pub use bound::{Bound, Client};
pub use engine::Engine;
pub use handler::{Handler, InputAnswer};
pub use notification::Notification;
pub use task::{
    DEFAULT_POLL_INTERVAL, DetailedTask, MAX_POLL_INTERVAL, MIN_POLL_INTERVAL, Task, TaskInputError, TaskState,
};

/// How the client finds the server's era; see the [module docs](self#eras).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum EraPolicy {
    /// Probe `server/discover`; fall back to `initialize` on anything but a usable result.
    #[default]
    Auto,
    /// `initialize` only.
    Legacy,
    /// `server/discover` only, at 2026-07-28.
    Modern,
}

/// The client's configuration.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
#[must_use]
pub struct Config<'a> {
    /// `clientInfo`: who this client is.
    pub client_info: Implementation<'a>,
    /// What the client offers the server (sampling, elicitation, roots): answered through
    /// [`Handler::on_input`].
    pub capabilities: ClientCapabilities,
    /// How the era is found.
    pub era: EraPolicy,
    /// How long `server/discover` and `initialize` may take (the probe's timeout decides the
    /// fallback). Default 10 s.
    pub connect_timeout: Duration,
    /// How long a request may await its answer before it is cancelled and reported as timed out;
    /// `None`: no limit. Default 60 s.
    pub request_timeout: Option<Duration>,
    /// The endpoint's limits.
    pub limits: Limits,
    /// The longest a request sent with progress may take however often the server reports
    /// progress (each report moves its deadline [`Config::request_timeout`] ahead, up to this
    /// long after it was sent); `None`: no cap. Default 10 minutes.
    pub max_request_time: Option<Duration>,
    /// How many `input_required` rounds one request may take before its last result is handed
    /// to the application as it is. Default 8.
    pub max_input_rounds: u8,
    /// The log level asked of a 2026-07-28 server with every request
    /// (`_meta["io.modelcontextprotocol/logLevel"]`); `None`: no log messages. A legacy session's
    /// level is set with `logging/setLevel` ([`Engine::set_logging_level`]). Default `None`.
    pub log_level: Option<LoggingLevel>,
}

impl<'a> Config<'a> {
    /// A configuration naming the client, with no capabilities, the [`EraPolicy::Auto`] policy and
    /// the default timeouts and limits.
    pub const fn new(name: &'a str, version: &'a str) -> Self {
        Config {
            client_info: Implementation::new(name, version),
            capabilities: ClientCapabilities::NONE,
            era: EraPolicy::Auto,
            connect_timeout: Duration::from_secs(10),
            request_timeout: Some(Duration::from_secs(60)),
            limits: Limits::DEFAULT,
            max_input_rounds: 8,
            max_request_time: Some(Duration::from_secs(600)),
            log_level: None,
        }
    }

    /// With `level` asked of a 2026-07-28 server with every request ([`Config::log_level`]).
    pub const fn with_log_level(mut self, level: Option<LoggingLevel>) -> Self {
        self.log_level = level;
        self
    }

    /// With `capabilities` declared to the server.
    pub const fn with_capabilities(mut self, capabilities: ClientCapabilities) -> Self {
        self.capabilities = capabilities;
        self
    }

    /// With `era` as the era policy.
    pub const fn with_era(mut self, era: EraPolicy) -> Self {
        self.era = era;
        self
    }

    /// With `timeout` for the handshake (or the probe).
    pub const fn with_connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// With `timeout` for every request (`None`: no limit).
    pub const fn with_request_timeout(mut self, timeout: Option<Duration>) -> Self {
        self.request_timeout = timeout;
        self
    }

    /// With `limits`.
    pub const fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// With `cap` as the longest a request with progress may take.
    pub const fn with_max_request_time(mut self, cap: Option<Duration>) -> Self {
        self.max_request_time = cap;
        self
    }

    /// With at most `rounds` `input_required` rounds per request.
    pub const fn with_max_input_rounds(mut self, rounds: u8) -> Self {
        self.max_input_rounds = rounds;
        self
    }

    /// With `info` as `clientInfo` (title, description, icons, …).
    pub const fn with_client_info(mut self, info: Implementation<'a>) -> Self {
        self.client_info = info;
        self
    }
}

/// Why the connection could not be set up; reported in [`Event::ConnectFailed`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum ConnectError {
    /// The server answered the handshake (or the pinned-modern probe) with an error.
    Refused {
        /// The JSON-RPC error code.
        code: i64,
    },
    /// The server's answer was not a usable `InitializeResult` or `DiscoverResult`.
    Invalid,
    /// The server answered `initialize` with a version this crate does not implement.
    UnsupportedVersion,
    /// No answer within [`Config::connect_timeout`].
    TimedOut,
    /// The input ended first.
    Closed,
}

impl fmt::Display for ConnectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConnectError::Refused { code } => write!(f, "the server refused the connection (error {code})"),
            ConnectError::Invalid => f.write_str("the server's answer to the handshake is not usable"),
            ConnectError::UnsupportedVersion => f.write_str("the server speaks a protocol version this client lacks"),
            ConnectError::TimedOut => f.write_str("the server did not answer the handshake in time"),
            ConnectError::Closed => f.write_str("the connection ended during the handshake"),
        }
    }
}

impl core::error::Error for ConnectError {}

/// Something the application may want to know or log; see [`Handler::on_event`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Event<'a> {
    /// The connection is set up: requests may be sent.
    Connected {
        /// The protocol version spoken: its [era](ProtocolVersion::era) is the verdict to cache.
        version: ProtocolVersion,
        /// What the server offers.
        capabilities: ServerCapabilities,
        /// `serverInfo.name`, if given.
        server_name: Option<crate::json::JsonStr<'a>>,
        /// `instructions`, if given.
        instructions: Option<crate::json::JsonStr<'a>>,
    },
    /// The probe did not find a modern server: the client falls back to `initialize`.
    FellBack,
    /// The connection could not be set up; nothing more is sent.
    ConnectFailed(ConnectError),
    /// The server cancelled a request it had sent (the engine answers requests at once, so
    /// there is nothing left to stop).
    Cancelled {
        /// The id of the server's request, as a number if it was one.
        request: Option<i64>,
    },
    /// Something about the connection itself ([`endpoint::Event`](crate::endpoint::Event)).
    Endpoint(crate::endpoint::Event),
}

impl From<crate::endpoint::Event> for Event<'_> {
    fn from(event: crate::endpoint::Event) -> Self {
        Event::Endpoint(event)
    }
}

/// Where the connection stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum State {
    /// [`Engine::connect`] not called yet.
    Idle,
    /// `server/discover` sent (`true`: again, after a `-32022` that listed 2026-07-28).
    Discovering(OutboundKey, bool),
    /// The probe found no modern server; `initialize` waits for transmit room (or for the
    /// probe's outbound slot, until its cancellation is written).
    FallingBack,
    /// `initialize` sent.
    Initializing(OutboundKey),
    /// Requests may be sent.
    Ready(ProtocolVersion),
    /// The handshake failed.
    Failed,
}
