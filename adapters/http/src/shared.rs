//! Legacy sessions shared by the replicas of one server: a store outside the process keeps each
//! session's negotiated state, so that any replica serves any request of any session, with no
//! session affinity in the load balancer in front of them.
//!
//! A replica keeps the sessions it serves in its [`SessionStore`](crate::SessionStore) as before;
//! with [`McpHttp::with_shared_sessions`](crate::McpHttp::with_shared_sessions) it also:
//! - writes a new session's state (the answered `initialize`) to the shared store before the
//!   response goes out, and writes it again whenever a request changed it (`notifications/initialized`,
//!   `logging/setLevel`, `resources/subscribe`): [`SessionState::encode`];
//! - reads the state back for every request of a session that has no engine busy here (the
//!   session may have changed on another replica, or be new to this one), renewing its lifetime
//!   in the store to [`HttpConfig::session_idle_timeout`](crate::HttpConfig::session_idle_timeout);
//!   a session the store does not have is unknown (404), even if this replica still holds it;
//! - forgets a session in the store on `DELETE`;
//! - relays a client's answer to a request the server sent (sampling, elicitation, roots, ping)
//!   that reached a replica whose engine for the session waits for no answer to every replica
//!   ([`SharedSessions::relay`]), answering the POST 202: the replica whose request waits for it
//!   takes it, and the tool call goes on there.
//!
//! A store that fails or takes longer than
//! [`HttpConfig::store_timeout`](crate::HttpConfig::store_timeout) fails the request that needed
//! it with 503 and a JSON-RPC error saying so (logged at `warn`); nothing waits longer, and the next
//! request tries again. A failed write of a changed state (not a new session's) is logged and the
//! answer still goes out: the other replicas keep the state they knew.
//!
//! Not shared yet: the SSE events kept for `Last-Event-ID` (each replica's [`EventStore`](crate::EventStore)),
//! and notifications sent to a session's standalone GET stream held by another replica. Two
//! replicas that both wait for answers in one session at once may give two requests the same id.
//!
//! [`SessionState::encode`]: mcp_sansio::server::SessionState::encode

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use mcp_sansio::http::SessionId;

/// What a [`SharedSessions`] operation returns: a boxed future (the trait is used as a trait object).
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, StoreError>> + Send + 'a>>;

/// Why a shared store could not do what was asked: the store's own error, as text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoreError {
    message: String,
}

impl StoreError {
    /// An error described by `message`.
    pub fn new(message: impl Into<String>) -> Self {
        StoreError { message: message.into() }
    }
}

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "session store: {}", self.message)
    }
}

impl std::error::Error for StoreError {}

/// A store of legacy sessions' states that every replica of a server reaches (see the
/// [module](self)): keys are session ids, values the bytes of
/// [`SessionState::encode`](mcp_sansio::server::SessionState::encode), each living for a given
/// time after it was last read or written. `mcp-sansio-redis` implements it on Redis.
pub trait SharedSessions: Send + Sync + 'static {
    /// The state of session `id`, its lifetime renewed to `ttl`; `None` if the store has no such
    /// session (never created, deleted or expired).
    fn load(&self, id: SessionId, ttl: Duration) -> StoreFuture<'_, Option<Vec<u8>>>;
    /// Keeps `state` as session `id`'s, for `ttl`.
    fn save(&self, id: SessionId, state: Vec<u8>, ttl: Duration) -> StoreFuture<'_, ()>;
    /// Forgets session `id`.
    fn remove(&self, id: SessionId) -> StoreFuture<'_, ()>;
    /// Sends `message`, a client's answer to a request of the server that reached this replica,
    /// whose engine for `session` waits for no answer, to every replica ([`listen`](Self::listen)):
    /// the one whose request waits for it takes it. Delivery may fail silently (at most once): the
    /// waiting request then times out as if the client had not answered.
    fn relay(&self, session: SessionId, message: Vec<u8>) -> StoreFuture<'_, ()>;
    /// Delivers into `into` each message any replica [relays](Self::relay) from now on, this one's
    /// included, until `into` is closed; reconnects by itself when the connection breaks. Called
    /// once per endpoint, within a tokio runtime.
    fn listen(&self, into: tokio::sync::mpsc::Sender<(SessionId, Vec<u8>)>);
}

/// Runs a store operation within `limit`: a slow store is a failed one.
pub(crate) async fn within<T>(limit: Duration, operation: StoreFuture<'_, T>) -> Result<T, StoreError> {
    match tokio::time::timeout(limit, operation).await {
        Ok(result) => result,
        Err(_) => Err(StoreError::new(format!("no answer within {} ms", limit.as_millis()))),
    }
}
