//! What replies are described with: result types and cache hints, the handle of a deferred
//! request and its key, and why a request cannot be deferred or answered.

use core::fmt;

/// How long a client may cache a result, and who may share the cached copy (2026-07-28);
/// [built with `new`](crate::mcp#building-descriptors) like the MCP descriptors.
///
/// ```
/// use mcp_sansio::server::{CacheHints, CacheScope};
///
/// const HOUR: CacheHints = CacheHints::new(3_600_000, CacheScope::Public);
/// assert_eq!(HOUR.ttl_ms, 3_600_000);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct CacheHints {
    /// Time to live in milliseconds (0: do not reuse).
    pub ttl_ms: u64,
    /// Who may share the cached result.
    pub scope: CacheScope,
}

impl CacheHints {
    /// Hints with a time to live in milliseconds (0: do not reuse) and a scope.
    pub const fn new(ttl_ms: u64, scope: CacheScope) -> Self {
        CacheHints { ttl_ms, scope }
    }
}

/// `cacheScope` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CacheScope {
    /// Holds no user-specific data; shared caches may keep it.
    Public,
    /// Reusable only within the same authorization context.
    Private,
}

impl CacheScope {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            CacheScope::Public => "public",
            CacheScope::Private => "private",
        }
    }
}

/// The `resultType` of a 2026-07-28 result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum ResultType {
    /// The request is answered.
    Complete,
    /// The server needs input from the client first (`inputRequests`).
    InputRequired,
    /// The request runs on as a task (`server::tasks`, feature `tasks`).
    Task,
}

impl ResultType {
    /// The wire name.
    pub const fn as_str(self) -> &'static str {
        match self {
            ResultType::Complete => "complete",
            ResultType::InputRequired => "input_required",
            ResultType::Task => "task",
        }
    }
}

/// What a deferred request will be answered with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum ReplyKind {
    /// A `tools/call` result.
    Tool,
    /// A `resources/read` result.
    Resource,
    /// A `prompts/get` result.
    Prompt,
    /// A `completion/complete` result.
    Completion,
    /// A `subscriptions/listen` stream (2026-07-28), kept open by the engine itself until the client
    /// cancels it or the server [ends it](crate::server::Engine::end_listens).
    Listen,
    /// A 2025-11-25 `tasks/result` waiting for its task to end, answered by the engine itself.
    #[cfg(feature = "tasks")]
    TaskResult,
}

impl ReplyKind {
    /// The handler answers it (the engine answers listen streams and `tasks/result` itself).
    pub(crate) fn answered_by_handler(self) -> bool {
        match self {
            ReplyKind::Listen => false,
            #[cfg(feature = "tasks")]
            ReplyKind::TaskResult => false,
            _ => true,
        }
    }

    /// The method of the request answered.
    pub const fn method(self) -> &'static str {
        match self {
            ReplyKind::Tool => "tools/call",
            ReplyKind::Resource => "resources/read",
            ReplyKind::Prompt => "prompts/get",
            ReplyKind::Completion => "completion/complete",
            ReplyKind::Listen => "subscriptions/listen",
            #[cfg(feature = "tasks")]
            ReplyKind::TaskResult => "tasks/result",
        }
    }
}

/// A handle to a deferred request: answer it with `Server::reply_tool`, `reply_resource`,
/// `reply_prompt` or `reply_completion`. Not `Clone`: a request is answered once.
#[derive(Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Deferred {
    pub(crate) slot: u16,
    pub(crate) generation: u32,
    pub(crate) kind: ReplyKind,
}

impl Deferred {
    /// What the request must be answered with.
    pub fn kind(&self) -> ReplyKind {
        self.kind
    }

    /// A copyable name for this request, to match it against [`crate::server::Event::Cancelled`].
    pub fn key(&self) -> DeferredKey {
        DeferredKey { slot: self.slot, generation: self.generation }
    }
}

/// Identifies a deferred request in events.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct DeferredKey {
    slot: u16,
    generation: u32,
}

/// Why a request could not be deferred. It has been answered with an internal error already.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum DeferError {
    /// All in-flight slots are taken (see `Server`'s `IN_FLIGHT` parameter).
    TooManyInFlight,
    /// The request id is longer than [`MAX_ID_LEN`](crate::jsonrpc::MAX_ID_LEN) bytes.
    IdTooLong,
    /// Deferral is not available here (a reply that was itself deferred).
    NotDeferrable,
}

/// Why a deferred request cannot be answered now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum ReplyError {
    /// The client cancelled it; the answer is suppressed and the handle is spent.
    Cancelled,
    /// The transmit buffer lacks room for a full answer: transmit, then try again (the handle is
    /// returned unharmed inside the error's owner, see `Server::reply_tool`).
    Busy,
    /// The handle does not belong to a pending request of this kind (answered already, or wrong kind).
    Unknown,
    /// Not possible in the request's protocol version: an input-required answer to a deferred
    /// request exists in 2026-07-28 only (in a legacy session ask with
    /// [`Engine::request_input`](crate::server::Engine::request_input)). The request is still
    /// pending.
    NotAvailable,
}

impl fmt::Display for DeferError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DeferError::TooManyInFlight => "too many deferred requests (the engine's IN_FLIGHT slots are taken)",
            DeferError::IdTooLong => "the request id is too long to be kept for a deferred answer",
            DeferError::NotDeferrable => "this reply cannot be deferred",
        })
    }
}

impl core::error::Error for DeferError {}

impl fmt::Display for ReplyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ReplyError::Cancelled => "the client cancelled the request",
            ReplyError::Busy => "no transmit room for the answer: transmit, then try again",
            ReplyError::Unknown => "no pending request of this kind has this handle",
            ReplyError::NotAvailable => "not possible in the request's protocol version",
        })
    }
}

impl core::error::Error for ReplyError {}
