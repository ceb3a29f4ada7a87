//! The endpoint's settings and limits.

use std::fmt;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use mcp_sansio::http::{DEFAULT_MAX_BODY, DEFAULT_PATH, HostPolicy, LOOPBACK_HOSTS, Policy, SsePaths};
use mcp_sansio::server::Config;

use crate::store::EventLimits;

/// Why a bearer token was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum TokenRejection {
    /// Missing, malformed, expired, not issued for this server, or otherwise invalid: 401.
    Invalid,
    /// Valid but lacking scopes the request needs (space-separated, all of them): 403.
    InsufficientScope(String),
}

impl fmt::Display for TokenRejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TokenRejection::Invalid => f.write_str("invalid bearer token"),
            TokenRejection::InsufficientScope(scopes) => write!(f, "bearer token lacks scopes: {scopes}"),
        }
    }
}

impl std::error::Error for TokenRejection {}

/// Checks one bearer token (see [`BearerAuth::validate`]).
pub type TokenValidator = Arc<dyn Fn(&str) -> Result<TokenGrant, TokenRejection> + Send + Sync>;

/// What a valid bearer token speaks for: requests of the same subject share an authorization
/// context (their tasks, [`HttpConfig::tasks`]); requests of different subjects do not.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct TokenGrant {
    /// The token's subject (a JWT's `sub`). `None`: the context is the token itself.
    pub subject: Option<String>,
    /// The thumbprint of the key a DPoP-bound token is bound to (a JWT's `cnf.jkt`, RFC 9449
    /// §6.1): such a token is accepted only as `Authorization: DPoP` with a proof signed by that
    /// key ([`BearerAuth::verify_proof`]), never as a bearer token.
    pub dpop_jkt: Option<String>,
}

impl TokenGrant {
    /// A grant for `subject`.
    pub fn subject(subject: impl Into<String>) -> Self {
        TokenGrant { subject: Some(subject.into()), dpop_jkt: None }
    }

    /// Bound to the key whose thumbprint is `jkt` (DPoP).
    #[must_use]
    pub fn with_dpop_jkt(mut self, jkt: impl Into<String>) -> Self {
        self.dpop_jkt = Some(jkt.into());
        self
    }

    /// The authorization context of a request that presented `token` with this grant: a hash of
    /// the subject, or of the token without one; never 0 (no authorization).
    pub(crate) fn owner(&self, token: &str) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut hasher = std::hash::DefaultHasher::new();
        match &self.subject {
            Some(subject) => (0u8, subject).hash(&mut hasher),
            None => (1u8, token).hash(&mut hasher),
        }
        hasher.finish().max(1)
    }
}

/// Checks a request's DPoP proof (RFC 9449 §4.3) for its token (see [`BearerAuth::verify_proof`]).
pub type ProofVerifier = Arc<dyn Fn(&ProofRequest<'_>) -> Result<VerifiedProof, TokenRejection> + Send + Sync>;

/// A valid DPoP proof: the key the token must be bound to, and what tells the proof from any
/// other, which must not be accepted again while its time checks would pass.
///
/// The verifier refuses a proof it has seen itself; with a shared store
/// ([`McpHttp::with_shared_sessions`](crate::McpHttp::with_shared_sessions)) the endpoint also
/// claims the proof there ([`SharedSessions::claim_once`](crate::SharedSessions::claim_once)), so
/// that one replica refuses a proof another has accepted.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct VerifiedProof {
    /// The thumbprint (RFC 7638) of the proof's key.
    pub jkt: String,
    /// The proof's `jti`.
    pub jti: String,
    /// How long a replay of the proof would still pass its time checks, from now.
    pub replayable_for: Duration,
}

impl VerifiedProof {
    /// A proof by key `jkt` (its thumbprint) named `jti`, replayable for `replayable_for`.
    pub fn new(jkt: impl Into<String>, jti: impl Into<String>, replayable_for: Duration) -> Self {
        VerifiedProof { jkt: jkt.into(), jti: jti.into(), replayable_for }
    }
}

/// What a DPoP proof must match: the request it came with, and the token it came with.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct ProofRequest<'a> {
    /// The `DPoP` header: a JWT.
    pub proof: &'a str,
    /// The request's method (`POST`, `GET`, `DELETE`).
    pub method: &'a str,
    /// The request's path, without its query (the verifier knows the endpoint's origin).
    pub path: &'a str,
    /// The access token presented with it (its hash is the proof's `ath`).
    pub access_token: &'a str,
}

/// Bearer-token authorization of every MCP request (OAuth 2.1 resource server).
///
/// A request without a token gets 401 with `WWW-Authenticate: Bearer resource_metadata="…"`; one
/// whose token the hook refuses gets 401 with `error="invalid_token"`, or 403 with
/// `error="insufficient_scope"` and the `scope` it needs. 401 challenges also carry `scope`: the
/// metadata document's `scopes_supported`, if it lists any. With a [`BearerAuth::verify_proof`],
/// DPoP-bound tokens are accepted too (and each 401 also challenges `DPoP`). With the `jwt`
/// feature, `jwt::JwtValidator::bearer_auth` builds one.
#[derive(Clone)]
pub struct BearerAuth {
    /// Validates a token: signature, expiry, and audience (issued for this server, RFC 8707),
    /// and the scopes the server requires; a valid one gives what it speaks for ([`TokenGrant`]).
    /// Runs for each request, outside the endpoint's lock.
    pub validate: TokenValidator,
    /// The URL of the protected resource metadata document, named in every challenge.
    pub resource_metadata_url: String,
    /// The document itself (RFC 9728 JSON, with `resource` and `authorization_servers`), served at
    /// `/.well-known/oauth-protected-resource` and its form path-inserted for the endpoint.
    pub resource_metadata: String,
    /// Checks DPoP proofs (RFC 9449), for tokens bound to a client's key ([`TokenGrant::dpop_jkt`]).
    /// Without it, a token presented as `DPoP` or bound to a key is refused.
    pub verify_proof: Option<ProofVerifier>,
}

impl fmt::Debug for BearerAuth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BearerAuth").field("resource_metadata_url", &self.resource_metadata_url).finish_non_exhaustive()
    }
}

/// Settings of an [`McpHttp`](crate::McpHttp) endpoint and its server. Every limit is here, with
/// its default; see the crate docs for the security defaults.
#[derive(Clone, Debug)]
pub struct HttpConfig {
    /// The engine configuration (server info, capabilities, engine limits) of every engine.
    pub engine: Config<'static>,
    /// The endpoint path (`/mcp`).
    pub path: &'static str,
    /// Also serve the deprecated 2024-11-05 HTTP+SSE transport on these paths (off: `None`;
    /// [`SsePaths::DEFAULT`] is `/sse` and `/messages`).
    pub legacy_sse: Option<SsePaths<'static>>,
    /// Host names accepted in `Host` and `Origin` (DNS-rebinding protection). [`HttpConfig::new`]
    /// sets the loopback names when the address is a loopback one and none otherwise (then set
    /// the public names here).
    pub allowed_hosts: Vec<&'static str>,
    /// Whole origins accepted besides those of `allowed_hosts` (`https://app.example`).
    pub allowed_origins: Vec<&'static str>,
    /// Largest request body (4 MiB): larger ones get 413.
    pub max_body_bytes: usize,
    /// Time to receive a whole request body (30 s): slower ones get 408.
    pub body_read_timeout: Duration,
    /// Time to receive a request head (10 s), also between requests on a kept-alive connection.
    pub header_read_timeout: Duration,
    /// Largest request head, in bytes (16 KiB; hyper's read buffer, which bounds the head).
    pub max_header_bytes: usize,
    /// Most legacy sessions alive at once (256). A new one past it ends the session unused the
    /// longest among those with no stream a client reads (its next request gets 404); when every
    /// session is read, the new `initialize` gets 503.
    pub max_sessions: usize,
    /// A legacy session with no request and no open stream for this long ends (30 min): its id
    /// then gets 404. The request naming it finds it expired; the memory of sessions whose clients
    /// went away is freed by a sweep of all sessions, done at most once a second (and whenever the
    /// store is full and a new session would be refused).
    pub session_idle_timeout: Duration,
    /// This replica's number (0) among the replicas of a server that share their legacy sessions
    /// ([`McpHttp::with_shared_sessions`](crate::McpHttp::with_shared_sessions)): the ids of the
    /// streams it opens, and so of their SSE events, carry it in their top 8 bits (below them, 2²⁴
    /// stream ids per session before they wrap), so that no two replicas name two streams of a
    /// session alike. Give each replica its own.
    pub replica: u8,
    /// Longest wait for the shared session store (2 s; see [`crate::shared`]): a request whose
    /// session needs it gets 503 after that.
    pub store_timeout: Duration,
    /// How long a replica serves a shared session from its own copy before it reads the session
    /// from the store again (`Duration::ZERO`, the default: before every request of a session).
    /// Each replica tells the others of a session it changed or ended, and they take it as the
    /// message arrives; within this time a copy may miss a change the bus lost, or serve a request
    /// that arrived before the message did (a `logging/setLevel` made through another replica a
    /// moment ago). In exchange a request spares a round trip to the store (see
    /// `scripts/bench-replicas`).
    pub shared_state_fresh: Duration,
    /// Transmit buffer of each legacy session's engine (256 KiB): the largest answer it writes.
    pub session_transmit_bytes: usize,
    /// Input buffer of each legacy session's engine (32 KiB; [`Engine::set_input_buffer`]): a
    /// request whose handler asks the client for input (elicitation, sampling, roots) waits in its
    /// first half with the answers, and is retried from its second half; one such request at a time
    /// per session. 0: none (such requests get `-32603`).
    ///
    /// [`Engine::set_input_buffer`]: mcp_sansio::server::Engine::set_input_buffer
    pub session_input_bytes: usize,
    /// Engines, with their buffers (transmit, input), kept for waking suspended sessions (16).
    /// Between requests a legacy session whose engine holds nothing else keeps only its negotiated
    /// state ([`Engine::suspend`]); its engine is released into this pool, and the next request
    /// wakes it on a pooled engine made new ([`Engine::renew`], [`Engine::resume`]). Sessions busy
    /// at once beyond this number allocate their engines and buffers. 0: every wake allocates.
    /// Each pooled engine is about 17 KB besides its buffers.
    ///
    /// [`Engine::suspend`]: mcp_sansio::server::Engine::suspend
    /// [`Engine::renew`]: mcp_sansio::server::Engine::renew
    /// [`Engine::resume`]: mcp_sansio::server::Engine::resume
    pub session_buffer_pool: usize,
    /// Transmit buffer of the stateless (2026-07-28) engine (1 MiB).
    pub stateless_transmit_bytes: usize,
    /// Messages buffered for one SSE reader (256); a reader that falls further behind is dropped
    /// (a legacy client resumes with `Last-Event-ID`).
    pub sse_buffer_messages: usize,
    /// Answer a legacy request (2025-03-26 and later) with `application/json` rather than an SSE
    /// stream when the client accepts both and its answer is all there is: given while its POST is
    /// being served, with no notification or request before it (off by default: every legacy
    /// request the client lets stream gets an SSE stream, a priming event first from 2025-11-25).
    /// Both are the spec's; the body spares the client and server the SSE framing and the event
    /// store. A request whose handler reports progress, logs, asks the client or answers later
    /// still gets its stream.
    pub legacy_json_answers: bool,
    /// Interval of `:` keep-alive comments on standalone and resumed SSE streams (15 s).
    pub sse_keep_alive: Duration,
    /// `retry` of 2025-11-25 priming events, in milliseconds (1000); `None` leaves it out.
    pub sse_retry_ms: Option<u64>,
    /// Bounds of the in-memory event store, per session.
    pub event_limits: EventLimits,
    /// Time open connections get to finish on shutdown (5 s).
    pub shutdown_grace: Duration,
    /// How long a connection with nothing to read retries `recv(2)` in a busy loop before its task
    /// waits on the reactor (zero, the default: wait at once). A request that arrives within it
    /// is served without the wake-up of a sleeping thread (tens of microseconds on a virtual
    /// machine), at the cost of up to this much CPU per wait, on every connection, kept-alive idle
    /// ones included: for request/response traffic on few connections; keep it well below 1 ms.
    /// Unix only (ignored elsewhere).
    pub spin_before_wait: Duration,
    /// Bearer-token authorization of every request (none by default).
    pub auth: Option<BearerAuth>,
    /// Tasks of the stateless (2026-07-28) engine (`None`, the default: no tasks; see
    /// [`mcp_sansio::server::tasks`]). With them the endpoint declares the tasks extension and a
    /// handler may run calls as tasks ([`ToolReply::run_as_task`]). With [`HttpConfig::auth`] a
    /// task belongs to the subject of the token that created it ([`TokenGrant`]): other subjects'
    /// `tasks/*` find no such task (`-32602`); without it, a task's id (128 random bits) is all
    /// that reaches it.
    ///
    /// [`ToolReply::run_as_task`]: mcp_sansio::server::ToolReply::run_as_task
    pub tasks: Option<TaskLimits>,
}

/// The bounds of an endpoint's tasks ([`HttpConfig::tasks`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct TaskLimits {
    /// Most tasks kept at once (256); when all are kept, calls run without a task.
    pub max_tasks: usize,
    /// Bytes per task for its request, its result or questions, and the answers (64 KiB); a
    /// result that does not fit fails its task with `-32603`.
    pub task_bytes: usize,
    /// How long a task is kept after it was created (`ttlMs`, 1 h).
    pub ttl: Duration,
    /// How often clients should poll `tasks/get` (`pollIntervalMs`, 1 s).
    pub poll_interval: Duration,
    /// Most tasks one legacy session keeps at once (4; 0: none), each of `task_bytes`: the tasks
    /// of 2025-11-25 sessions (`params.task`), which live in the session's engine. The engine
    /// gets its table when it is made (one allocation, kept with the engine in the pool), and a
    /// session holding a live task is not suspended. With a shared session store
    /// ([`McpHttp::with_shared_sessions`](crate::McpHttp::with_shared_sessions)) the other
    /// replicas send a session's requests about a task to the replica holding it ([`crate::shared`]).
    pub session_tasks: usize,
}

impl Default for TaskLimits {
    fn default() -> Self {
        TaskLimits {
            max_tasks: 256,
            task_bytes: 64 * 1024,
            ttl: Duration::from_secs(3600),
            poll_interval: Duration::from_secs(1),
            session_tasks: 4,
        }
    }
}

impl HttpConfig {
    /// Defaults for a server bound to `addr`: loopback host validation for loopback addresses.
    pub fn new(engine: Config<'static>, addr: SocketAddr) -> Self {
        HttpConfig {
            engine,
            path: DEFAULT_PATH,
            legacy_sse: None,
            allowed_hosts: if addr.ip().is_loopback() { LOOPBACK_HOSTS.to_vec() } else { Vec::new() },
            allowed_origins: Vec::new(),
            max_body_bytes: DEFAULT_MAX_BODY,
            body_read_timeout: Duration::from_secs(30),
            header_read_timeout: Duration::from_secs(10),
            max_header_bytes: 16 * 1024,
            max_sessions: 256,
            session_idle_timeout: Duration::from_secs(30 * 60),
            replica: 0,
            store_timeout: Duration::from_secs(2),
            shared_state_fresh: Duration::ZERO,
            session_transmit_bytes: 256 * 1024,
            session_input_bytes: 32 * 1024,
            session_buffer_pool: 16,
            stateless_transmit_bytes: 1 << 20,
            sse_buffer_messages: 256,
            sse_keep_alive: Duration::from_secs(15),
            sse_retry_ms: Some(1000),
            legacy_json_answers: false,
            event_limits: EventLimits::default(),
            shutdown_grace: Duration::from_secs(5),
            spin_before_wait: Duration::ZERO,
            auth: None,
            tasks: None,
        }
    }

    pub(crate) fn policy(&self) -> Policy<'_> {
        Policy {
            path: self.path,
            hosts: HostPolicy { hosts: &self.allowed_hosts, origins: &self.allowed_origins },
            max_body: self.max_body_bytes,
            sse: self.legacy_sse,
        }
    }
}
