//! Legacy sessions shared by the replicas of one server: a store outside the process keeps each
//! session's negotiated state, so that any replica serves any request of any session, with no
//! session affinity in the load balancer in front of them.
//!
//! A replica keeps the sessions it serves in its [`SessionStore`](crate::SessionStore) as before;
//! with [`McpHttp::with_shared_sessions`](crate::McpHttp::with_shared_sessions) it also:
//! - writes a new session's state (the answered `initialize`) to the shared store before the
//!   response goes out, and writes it again whenever a request changed it (`notifications/initialized`,
//!   `logging/setLevel`, `resources/subscribe`): [`SessionState::encode`]; and tells the other
//!   replicas ([`Relayed::Session`]), so that those holding the session take the new state at once
//!   (one serving the session's GET stream learns of a subscription made through another);
//! - reads the state back before a request of a session that has no engine busy here and no copy
//!   read, written or told of within
//!   [`HttpConfig::shared_state_fresh`](crate::HttpConfig::shared_state_fresh) (by default: every
//!   request; the session may have changed on another replica, or be new to this one), renewing its lifetime in the
//!   store to [`HttpConfig::session_idle_timeout`](crate::HttpConfig::session_idle_timeout); a
//!   session the store does not have is unknown (404), even if this replica still holds it;
//! - forgets a session in the store on `DELETE`, and tells the other replicas, whose copies end;
//! - relays a client's answer to a request the server sent (sampling, elicitation, roots, ping)
//!   that reached a replica whose engine for the session waits for no answer to every replica
//!   ([`Relayed::Answer`]), answering the POST 202: the replica whose request waits for it takes
//!   it, and the tool call goes on there;
//! - sends what the application [announces](crate::McpHttp::announce) (a list changed, a resource
//!   updated) to every replica, each telling its engines ([`Relayed::Notice`]): a
//!   `subscriptions/listen` stream or a legacy session's GET stream hears of it whichever replica
//!   holds it;
//! - sends a 2026-07-28 request for a task it does not hold (`tasks/get`, `tasks/update`,
//!   `tasks/cancel`) to the replica that holds it ([`Relayed::TaskCall`]) and answers with that
//!   replica's answer, within [`HttpConfig::store_timeout`](crate::HttpConfig::store_timeout) (at
//!   most 1 s; then it answers as for a task no replica holds); and likewise a 2025-11-25 session's
//!   `tasks/get`, `tasks/result` and `tasks/cancel` ([`Relayed::SessionTaskCall`]): the replica whose
//!   engine for the session holds the task serves it on a stream of the session, whose events the
//!   asking replica's response carries (from the store, as they are written: a `tasks/result`
//!   waiting for its task, the task's questions on it; if the holding replica's process stops
//!   first, the asking replica takes the task in as failed, below, and that failure ends the
//!   stream). Such a session's task asks its questions
//!   only on a `tasks/result` (the client's GET stream may be on another replica). A session's
//!   `tasks/list` lists the tasks of every replica that answers within 250 ms;
//! - with tasks ([`HttpConfig::tasks`](crate::HttpConfig::tasks)), says every second that its
//!   process is alive ([`SharedSessions::beat`], for [`TASK_WORKER_TIMEOUT`]) and records each task
//!   it creates ([`SharedSessions::save_task`], for the task's time to live): a task whose process
//!   stopped (no answer, and no beat within [`TASK_WORKER_TIMEOUT`]; a restarted replica is
//!   another process) is answered for by the replica asked about it, as failed ("the replica
//!   running this task stopped"), never "working" forever;
//! - keeps the SSE events of the streams it writes in the store too (after its own
//!   [`EventStore`](crate::EventStore), in batches, in order; [`SharedSessions::append_events`]), so
//!   that a `GET` with a `Last-Event-ID` naming another replica's stream (its id carries the
//!   replica's number) replays from the store what followed ([`SharedSessions::read_events`]);
//!   then, for a request's stream not ended yet, what its replica writes later, as it comes; for
//!   the session's standalone stream, this replica's own standalone stream (the session's
//!   notifications reach every replica's copy of it).
//!
//! A store that fails or takes longer than
//! [`HttpConfig::store_timeout`](crate::HttpConfig::store_timeout) fails the request that needed
//! it with 503 and a JSON-RPC error saying so (logged at `warn`); nothing waits longer, and the next
//! request tries again. A failed write of a changed state (not a new session's) is logged and the
//! answer still goes out: the other replicas keep the state they knew.
//!
//! Not shared yet: notifications an application sends one session's engine itself
//! ([`McpHttp::with_engine`](crate::McpHttp::with_engine)), which reach the session's GET stream
//! only where that engine runs; two replicas that both wait for answers in one session at once may
//! give two requests the same id.
//!
//! [`SessionState::encode`]: mcp_sansio::server::SessionState::encode

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use mcp_sansio::http::SessionId;
use mcp_sansio::server::ListChanged;

/// How long a replica that runs tasks counts as alive after it last said so
/// ([`SharedSessions::beat`]); it says so every second.
pub const TASK_WORKER_TIMEOUT: Duration = Duration::from_secs(3);

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
    /// Sends `message` (bytes the endpoint made of a [`Relayed`]) to every replica
    /// ([`subscribe`](Self::subscribe)), this one included. Delivery may fail silently (at most
    /// once, like Redis pub/sub).
    fn publish(&self, message: Vec<u8>) -> StoreFuture<'_, ()>;
    /// Delivers into `into` each message any replica [publishes](Self::publish) from now on, until
    /// `into` is closed; subscribes again by itself when the connection breaks. Called once per
    /// endpoint, within a tokio runtime.
    fn subscribe(&self, into: tokio::sync::mpsc::Sender<Vec<u8>>);
    /// Keeps `events` (in order; a stream's sequences grow) for replay on any replica, each stream
    /// for `ttl` after its last event. A stream's events are written by the one replica whose
    /// stream it is.
    fn append_events(&self, events: Vec<SharedEvent>, ttl: Duration) -> StoreFuture<'_, ()>;
    /// The events of `session`'s `stream` whose sequence follows `after`, oldest first, waiting up
    /// to `wait` for one when there is none yet; and whether the stream has ended (its end was
    /// appended). An unknown stream has no events and has not ended.
    fn read_events(&self, session: SessionId, stream: u32, after: u64, wait: Duration) -> StoreFuture<'_, EventsRead>;
    /// Keeps `record` (bytes the endpoint made: the process running a 2026-07-28 task and its
    /// [`TaskRecord`](mcp_sansio::server::tasks::TaskRecord)) as task `id`'s, for `ttl`.
    fn save_task(&self, id: String, record: Vec<u8>, ttl: Duration) -> StoreFuture<'_, ()>;
    /// What [`save_task`](Self::save_task) kept for task `id`, if it is still kept.
    fn load_task(&self, id: String) -> StoreFuture<'_, Option<Vec<u8>>>;
    /// Tells that `worker` (a replica's process: a random number it drew when it started, so that
    /// a restarted replica is another worker) is alive, for `ttl` (it says so again before then).
    fn beat(&self, worker: u64, ttl: Duration) -> StoreFuture<'_, ()>;
    /// Whether `worker` said it was alive within the `ttl` it gave ([`beat`](Self::beat)).
    fn is_alive(&self, worker: u64) -> StoreFuture<'_, bool>;
    /// Keeps `key` for `ttl` if no replica keeps it yet: `true` the first time, `false` while it
    /// is kept (atomically: of two replicas claiming one key at once, one gets `true`). The
    /// endpoint claims each DPoP proof it accepts ([`VerifiedProof`](crate::VerifiedProof)) under
    /// `dpop:<key thumbprint>:<jti>`, for as long as the proof could be replayed (at most twice
    #[cfg_attr(feature = "jwt", doc = "[`JwtConfig::dpop_proof_lifetime`](crate::jwt::JwtConfig)")]
    #[cfg_attr(not(feature = "jwt"), doc = "`JwtConfig::dpop_proof_lifetime` (the `jwt` feature's)")]
    /// with its leeway), so that no replica accepts a proof another has. The default keeps nothing (`true` for every key):
    /// each replica then refuses only the proofs it has seen.
    fn claim_once(&self, key: String, ttl: Duration) -> StoreFuture<'_, bool> {
        let _ = (key, ttl);
        Box::pin(std::future::ready(Ok(true)))
    }
}

/// An SSE event of a legacy session's stream, or the stream's end, kept in the shared store so that
/// a client resumes the stream on any replica ([`SharedSessions::append_events`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SharedEvent {
    /// The session.
    pub session: SessionId,
    /// The stream (its id carries the replica's number: [`HttpConfig::replica`](crate::HttpConfig::replica)).
    pub stream: u32,
    /// The event's sequence (the second part of its SSE id); [`SharedEvent::END`] for the end.
    pub sequence: u64,
    /// The whole event, framing included; empty for the end.
    pub event: bytes::Bytes,
}

impl SharedEvent {
    /// The sequence of a stream's end.
    pub const END: u64 = u64::MAX;
}

/// What [`SharedSessions::read_events`] found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EventsRead {
    /// The events, `(sequence, whole event)`, oldest first.
    pub events: Vec<(u64, bytes::Bytes)>,
    /// The stream has ended: no event follows these.
    pub ended: bool,
}

/// What replicas send each other through the store ([`SharedSessions::publish`]).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Relayed {
    /// A client's answer to a request of the server (sampling, elicitation, roots, ping), POSTed to
    /// `session` on a replica whose engine waits for no answer: the replica whose request waits for
    /// it takes it; a lost one times out there as if the client had not answered.
    Answer {
        /// The session it was POSTed to.
        session: SessionId,
        /// The message, as POSTed.
        message: Vec<u8>,
    },
    /// A change every replica tells its clients of ([`McpHttp::announce`](crate::McpHttp::announce)).
    Notice(Notice),
    /// A session's state as just written to the store: the replicas that hold the session take it
    /// (a copy serving a GET stream learns of a subscription made through another replica). No
    /// state: the session ended (`DELETE`), and so do their copies.
    Session {
        /// The session.
        session: SessionId,
        /// Its state ([`SessionState::encode`](mcp_sansio::server::SessionState::encode)).
        state: Vec<u8>,
    },
    /// A 2026-07-28 request for a task (`tasks/get`, `tasks/update`, `tasks/cancel`) that reached a
    /// replica which does not hold the task: the replica that holds it serves it and publishes the
    /// answer ([`Relayed::TaskAnswer`]).
    TaskCall {
        /// Names the answer.
        token: u64,
        /// The request's authorization context, which owns the tasks it may see.
        owner: u64,
        /// The request, as POSTed.
        message: Vec<u8>,
    },
    /// A 2025-11-25 request for a task of a shared session (`tasks/get`, `tasks/result`,
    /// `tasks/cancel`) that reached a replica which does not hold the task: the replica whose
    /// engine for the session holds it serves it and publishes the answer ([`Relayed::TaskAnswer`]).
    SessionTaskCall {
        /// Names the answer.
        token: u64,
        /// The session.
        session: SessionId,
        /// The request, as POSTed.
        message: Vec<u8>,
    },
    /// The answer to a [`Relayed::TaskCall`] or a [`Relayed::SessionTaskCall`].
    TaskAnswer {
        /// The call's token.
        token: u64,
        /// The answer: to a `TaskCall` a JSON-RPC response; to a `SessionTaskCall` as the replica
        /// that asked reads it (the response's stream, or its body).
        message: Vec<u8>,
    },
}

/// A change of the server's lists or resources that every engine of every replica tells its clients
/// of, as far as each negotiated it: legacy sessions by their capabilities and subscriptions,
/// 2026-07-28 `subscriptions/listen` streams by what they listen to.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Notice {
    /// A list changed (`notifications/…/list_changed`).
    ListChanged(ListChanged),
    /// The resource at this URI changed (`notifications/resources/updated`).
    ResourceUpdated(String),
}

impl Relayed {
    /// The bytes [`decode`](Self::decode) reads: a tag byte, then the fields.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        match self {
            Relayed::Answer { session, message } => {
                out.push(b'A');
                out.extend_from_slice(session.as_str().as_bytes());
                out.extend_from_slice(message);
            }
            Relayed::Notice(Notice::ListChanged(list)) => {
                out.push(b'L');
                out.push(match list {
                    ListChanged::Tools => b't',
                    ListChanged::Prompts => b'p',
                    ListChanged::Resources => b'r',
                    // A list this release does not know: the receivers refuse it.
                    _ => b'?',
                });
            }
            Relayed::Notice(Notice::ResourceUpdated(uri)) => {
                out.push(b'R');
                out.extend_from_slice(uri.as_bytes());
            }
            Relayed::Session { session, state } => {
                out.push(b'S');
                out.extend_from_slice(session.as_str().as_bytes());
                out.extend_from_slice(state);
            }
            Relayed::TaskCall { token, owner, message } => {
                out.push(b'T');
                out.extend_from_slice(&token.to_be_bytes());
                out.extend_from_slice(&owner.to_be_bytes());
                out.extend_from_slice(message);
            }
            Relayed::SessionTaskCall { token, session, message } => {
                out.push(b'K');
                out.extend_from_slice(&token.to_be_bytes());
                out.extend_from_slice(session.as_str().as_bytes());
                out.extend_from_slice(message);
            }
            Relayed::TaskAnswer { token, message } => {
                out.push(b'U');
                out.extend_from_slice(&token.to_be_bytes());
                out.extend_from_slice(message);
            }
        }
        out
    }

    /// The message [`encode`](Self::encode) wrote; `None` for anything else.
    pub fn decode(bytes: &[u8]) -> Option<Relayed> {
        let (&tag, rest) = bytes.split_first()?;
        match tag {
            b'A' | b'S' => {
                let (session, rest) = rest.split_at_checked(2 * mcp_sansio::http::SESSION_ID_RANDOM_BYTES)?;
                let session = SessionId::parse(session)?;
                Some(match tag {
                    b'A' => Relayed::Answer { session, message: rest.to_vec() },
                    _ => Relayed::Session { session, state: rest.to_vec() },
                })
            }
            b'L' => Some(Relayed::Notice(Notice::ListChanged(match rest {
                b"t" => ListChanged::Tools,
                b"p" => ListChanged::Prompts,
                b"r" => ListChanged::Resources,
                _ => return None,
            }))),
            b'R' => Some(Relayed::Notice(Notice::ResourceUpdated(String::from_utf8(rest.to_vec()).ok()?))),
            b'T' => {
                let (token, rest) = rest.split_first_chunk::<8>()?;
                let (owner, message) = rest.split_first_chunk::<8>()?;
                let (token, owner) = (u64::from_be_bytes(*token), u64::from_be_bytes(*owner));
                Some(Relayed::TaskCall { token, owner, message: message.to_vec() })
            }
            b'K' => {
                let (token, rest) = rest.split_first_chunk::<8>()?;
                let (session, message) = rest.split_at_checked(2 * mcp_sansio::http::SESSION_ID_RANDOM_BYTES)?;
                let session = SessionId::parse(session)?;
                Some(Relayed::SessionTaskCall { token: u64::from_be_bytes(*token), session, message: message.to_vec() })
            }
            b'U' => {
                let (token, message) = rest.split_first_chunk::<8>()?;
                Some(Relayed::TaskAnswer { token: u64::from_be_bytes(*token), message: message.to_vec() })
            }
            _ => None,
        }
    }
}

/// Runs a store operation within `limit`: a slow store is a failed one.
pub(crate) async fn within<T>(limit: Duration, operation: StoreFuture<'_, T>) -> Result<T, StoreError> {
    match tokio::time::timeout(limit, operation).await {
        Ok(result) => result,
        Err(_) => Err(StoreError::new(format!("no answer within {} ms", limit.as_millis()))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relayed_messages_read_back_as_written_and_nothing_else_is_read() {
        let session = SessionId::from_random([7; 16]);
        let messages = [
            Relayed::Answer { session, message: br#"{"jsonrpc":"2.0","id":1,"result":{}}"#.to_vec() },
            Relayed::Notice(Notice::ListChanged(ListChanged::Tools)),
            Relayed::Notice(Notice::ListChanged(ListChanged::Prompts)),
            Relayed::Notice(Notice::ListChanged(ListChanged::Resources)),
            Relayed::Notice(Notice::ResourceUpdated("file:///a b".into())),
            Relayed::Session { session, state: vec![1, 2, 3] },
            Relayed::TaskCall { token: 7, owner: 9, message: b"{}".to_vec() },
            Relayed::SessionTaskCall { token: 8, session, message: b"{}".to_vec() },
            Relayed::TaskAnswer { token: u64::MAX, message: b"{}".to_vec() },
        ];
        for message in messages {
            assert_eq!(Relayed::decode(&message.encode()), Some(message));
        }
        for bad in [&b""[..], b"X", b"Lx", b"A0123", b"R\xff", b"T1234567", b"U1234", b"K12345678abc"] {
            assert_eq!(Relayed::decode(bad), None, "{bad:?}");
        }
    }
}
