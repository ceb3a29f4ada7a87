//! The endpoint as a hyper/tower service: one request in, one response out, the core's HTTP rules
//! deciding everything between.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Instant as StdInstant;

use bytes::{Buf, Bytes};
use hyper::body::Body;
use hyper::header::HeaderValue;
use hyper::{Request, Response, StatusCode};
use mcp_sansio::endpoint::Framing;
use mcp_sansio::frame::EventId;
use mcp_sansio::http::{self as rules, HeadPlan, Rejection, SessionId};
#[cfg(doc)]
use mcp_sansio::server::Engine;
use mcp_sansio::server::Handler;
use mcp_sansio::time::Instant;
use mcp_sansio::version::{Era, ProtocolVersion};
use tracing::Instrument;

use crate::body::{Abort, ResponseBody};
use crate::config::HttpConfig;
use crate::head::ResponseEnd;
use crate::owned::{BufferPool, OwnedEngine};
use crate::response::{HeaderView, authorize, method_of, priming, rejection_response, sse_response, status_only};
use crate::state::{Streams, replay};
use crate::store::{EventStore, MemorySessionStore, SessionStore, StreamState};

mod application;
mod post;
mod session_tasks;
mod sessions;
mod shards;
mod shared;
mod tasks;

pub use shards::MAX_SHARDS;

/// Everything behind one shard's lock ([`shards`]).
pub(crate) struct State<H> {
    /// The shard's number.
    pub(crate) index: usize,
    pub(crate) handler: H,
    pub(crate) stateless: OwnedEngine,
    pub(crate) stateless_streams: Streams,
    pub(crate) sessions: Box<dyn SessionStore>,
    pub(crate) events: Box<dyn EventStore>,
    /// Buffers of suspended sessions' engines.
    pub(crate) pool: BufferPool,
    /// When the sessions are next swept for expiry ([`McpHttp::sweep`]).
    pub(crate) next_sweep: StdInstant,
}

pub(crate) struct Inner<H> {
    pub(crate) config: HttpConfig,
    pub(crate) started: StdInstant,
    /// The shards, each under its own lock ([`shards`]).
    pub(crate) shards: Box<[Mutex<State<H>>]>,
    /// The shard the next stateless request tries first.
    pub(crate) next_shard: std::sync::atomic::AtomicUsize,
    /// The shard the next new session goes to.
    pub(crate) next_session: std::sync::atomic::AtomicUsize,
    /// This endpoint's number among the workers that run tasks for the replicas (random: a
    /// restarted replica is another worker; see [`crate::shared`]).
    pub(crate) worker: u64,
    /// The store the replicas share their legacy sessions in, if any ([`crate::shared`]).
    pub(crate) shared: std::sync::OnceLock<Arc<dyn crate::SharedSessions>>,
    /// Whether this endpoint listens for the answers other replicas relay (started on first use).
    pub(crate) listening: std::sync::Once,
    /// With shared sessions, the queue of the SSE events to write to the shared store.
    pub(crate) events_queue: std::sync::OnceLock<tokio::sync::mpsc::Sender<crate::shared::SharedEvent>>,
    /// Task requests sent to the other replicas, waiting for their answers, by token.
    pub(crate) forwarded: Mutex<std::collections::HashMap<u64, tokio::sync::mpsc::UnboundedSender<Vec<u8>>>>,
}

impl<H> Inner<H> {
    fn now(&self) -> Instant {
        self.at(StdInstant::now())
    }

    /// The engines' time at `clock` (one clock read serves both).
    pub(crate) fn at(&self, clock: StdInstant) -> Instant {
        let since = clock.saturating_duration_since(self.started);
        Instant::from_millis(u64::try_from(since.as_millis()).unwrap_or(u64::MAX))
    }
}

impl<H: Handler + Send + 'static> Abort for Inner<H> {
    /// Cancels what the stateless engine still owes `stream` (its client went away).
    fn abort(&self, stream: mcp_sansio::endpoint::StreamId) {
        let now = self.now();
        let mut guard = self.shard(self.stream_shard(stream));
        let state = &mut *guard;
        let engine = state.stateless.get();
        let _serving = crate::serving::mark(crate::Serving::Stateless(state.index));
        let cancelled = engine.cancel_stream(now, stream, &mut state.handler);
        if cancelled > 0 {
            tracing::debug!(stream = stream.0, cancelled, "response stream closed: request cancelled");
        }
        state.stateless_streams.close(stream);
        state.stateless_streams.drain(engine, &mut state.handler, now, None);
    }
}

/// The MCP endpoint of one application, for both eras: a cloneable hyper and tower service.
/// Clones share the application, the stateless engine and the sessions.
pub struct McpHttp<H> {
    pub(crate) inner: Arc<Inner<H>>,
}

impl<H> Clone for McpHttp<H> {
    fn clone(&self) -> Self {
        McpHttp { inner: Arc::clone(&self.inner) }
    }
}

/// An [`McpHttp`] that does not keep it alive ([`McpHttp::downgrade`]): for the application's
/// own handler to hold, which the endpoint holds.
pub struct WeakMcpHttp<H> {
    inner: std::sync::Weak<Inner<H>>,
}

impl<H> Clone for WeakMcpHttp<H> {
    fn clone(&self) -> Self {
        WeakMcpHttp { inner: self.inner.clone() }
    }
}

impl<H> WeakMcpHttp<H> {
    /// The endpoint, if it is still alive.
    pub fn upgrade(&self) -> Option<McpHttp<H>> {
        self.inner.upgrade().map(|inner| McpHttp { inner })
    }
}

impl<H> McpHttp<H> {
    /// A handle that does not keep the endpoint alive.
    pub fn downgrade(&self) -> WeakMcpHttp<H> {
        WeakMcpHttp { inner: Arc::downgrade(&self.inner) }
    }

    /// The engines' time now (what [`McpHttp::with_engine`] gives them): to pass to engine methods
    /// that take one ([`Engine::reply_input`], [`Engine::request_input`]).
    pub fn now(&self) -> Instant {
        self.inner.now()
    }
}

impl<H: Handler + Send + 'static> McpHttp<H> {
    /// The endpoint serving `handler` with `config` (its engine [`Config`](mcp_sansio::server::Config)
    /// is `config.engine`): one shard, so one request at a time, handler included (see
    /// [`McpHttp::sharded`] for more).
    pub fn new(handler: H, config: HttpConfig) -> Self {
        Self::build(std::iter::once(handler), 1, config)
    }

    /// The endpoint serving the handlers `make` returns, one per shard, `shards` of them (1 to
    /// [`MAX_SHARDS`]): requests of different shards run at once, handlers included, on as many
    /// threads as the runtime has. Each shard has its own stateless 2026-07-28 engine (a stateless
    /// request takes the first shard no other request holds) and its part of the legacy sessions
    /// (a session stays in one; new ones go to the shards in turn), each with an equal part of
    /// [`HttpConfig::max_sessions`] and of the event store's
    /// [`max_total_bytes`](crate::EventLimits::max_total_bytes). Several times the runtime's
    /// threads make it rare for two busy sessions to meet in one shard.
    ///
    /// The handlers are separate values: what the application keeps across requests (a setting,
    /// a device's state) they share themselves, e.g. through an `Arc`. A handler's list changes
    /// ([`Handler::take_list_changes`]) go to the clients of its own shard's engines; tell every
    /// client with [`McpHttp::announce`].
    pub fn sharded(make: impl FnMut() -> H, shards: usize, config: HttpConfig) -> Self {
        Self::build(std::iter::repeat_with(make), shards.clamp(1, MAX_SHARDS), config)
    }

    /// The endpoint of `count` shards serving the first `count` of `handlers`.
    fn build(handlers: impl Iterator<Item = H>, count: usize, config: HttpConfig) -> Self {
        let mut event_limits = config.event_limits;
        event_limits.max_total_bytes = event_limits.max_total_bytes.div_ceil(count);
        let shards = (0..count)
            .zip(handlers)
            .map(|(index, handler)| {
                let mut stateless = OwnedEngine::new(config.engine, 256, config.stateless_transmit_bytes);
                if let Some(limits) = config.tasks {
                    stateless.get().set_task_table(crate::tasks::task_table(limits));
                }
                let stateless_streams = match count {
                    1 => Streams::new(Era::Modern, 1, config.sse_buffer_messages),
                    _ => Streams::for_shard(index, config.sse_buffer_messages),
                };
                Mutex::new(State {
                    index,
                    handler,
                    stateless,
                    stateless_streams,
                    sessions: Box::new(MemorySessionStore::new(config.max_sessions.div_ceil(count))),
                    events: Box::new(crate::store::MemoryEventStore::new(event_limits)),
                    pool: BufferPool::new(config.session_buffer_pool.div_ceil(count), config.tasks),
                    next_sweep: StdInstant::now(),
                })
            })
            .collect();
        let (shared, listening) = (std::sync::OnceLock::new(), std::sync::Once::new());
        let events_queue = std::sync::OnceLock::new();
        let forwarded = Mutex::default();
        let started = StdInstant::now();
        let (next_shard, next_session) = Default::default();
        let mut random = [0u8; 8];
        // Without the OS's generator, the clock tells processes apart well enough.
        if getrandom::fill(&mut random).is_err() {
            random = (std::time::UNIX_EPOCH.elapsed().unwrap_or_default().as_nanos() as u64).to_be_bytes();
        }
        let worker = u64::from_be_bytes(random);
        let inner = Inner {
            config,
            started,
            shards,
            next_shard,
            next_session,
            worker,
            shared,
            listening,
            events_queue,
            forwarded,
        };
        McpHttp { inner: Arc::new(inner) }
    }

    /// The same endpoint keeping each shard's legacy sessions in a store `make` returns instead of
    /// the bounded memory default (which holds its part of [`HttpConfig::max_sessions`]).
    /// Sessions already alive are dropped.
    pub fn with_session_store<S: SessionStore>(self, mut make: impl FnMut() -> S) -> Self {
        for index in 0..self.inner.shard_count() {
            self.inner.shard(index).sessions = Box::new(make());
        }
        self
    }

    /// The same endpoint keeping each shard's legacy events in a store `make` returns instead of
    /// the bounded memory default.
    pub fn with_event_store<S: EventStore>(self, mut make: impl FnMut() -> S) -> Self {
        for index in 0..self.inner.shard_count() {
            let store: Box<dyn EventStore> = match self.inner.events_queue.get() {
                // Shared sessions: the events go to the shared store too.
                Some(queue) => Box::new(crate::shared_events::Teed::new(Box::new(make()), queue.clone())),
                None => Box::new(make()),
            };
            self.inner.shard(index).events = store;
        }
        self
    }

    /// The configuration.
    pub fn config(&self) -> &HttpConfig {
        &self.inner.config
    }

    /// How many shards the endpoint has ([`McpHttp::sharded`]).
    pub fn shard_count(&self) -> usize {
        self.inner.shard_count()
    }

    /// Ends every open stream (on shutdown), so graceful connection shutdown can complete.
    pub fn close_streams(&self) {
        self.each_shard(|state| {
            state.stateless_streams.close_all();
            for id in state.sessions.ids() {
                if let Some(session) = state.sessions.get_mut(&id) {
                    session.streams.close_all();
                }
            }
        });
    }

    /// Serves one request.
    pub async fn handle<B>(&self, request: Request<B>) -> Response<ResponseBody>
    where
        B: Body,
        B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        let Ok(response) = self.clone().answer(request, ResponseEnd::default()).await;
        response
    }

    /// The future serving `request`, owning a clone of the endpoint (hyper's and tower's
    /// `'static` futures): [`McpHttp::route`] in the request's `http` span. `end` goes with the
    /// response's body.
    ///
    /// One future holds the whole request, so that it is small (a box from the allocator's fast
    /// bins) and moved whole as few times as possible: the request is split before it is made,
    /// and what waits on an answer given later is a box of its own ([`McpHttp::respond`]).
    pub(crate) fn answer<B>(
        self,
        request: Request<B>,
        end: ResponseEnd,
    ) -> impl Future<Output = Result<Response<ResponseBody>, Infallible>>
    where
        B: Body,
        B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        let span = tracing::debug_span!("http", method = %request.method(), path = %request.uri().path());
        let (parts, body) = request.into_parts();
        self.route(parts, body, end).instrument(span)
    }

    /// Routes the request by the core's plan of its head. A function returning an `async` block
    /// rather than an `async fn`: an `async fn` keeps its arguments twice in its state (the
    /// captured ones, and the locals they are moved into), the request's head among them.
    #[expect(clippy::manual_async_fn, reason = "an async fn's state holds its arguments twice")]
    fn route<B>(
        self,
        mut parts: hyper::http::request::Parts,
        body: B,
        end: ResponseEnd,
    ) -> impl Future<Output = Result<Response<ResponseBody>, Infallible>>
    where
        B: Body,
        B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        async move {
            let config = &self.inner.config;
            let path = parts.uri.path_and_query().map_or("/", |p| p.as_str()).as_bytes();
            let mut response = 'answer: {
                if let Some(auth) = &config.auth
                    && parts.method == hyper::Method::GET
                    && rules::is_resource_metadata_path(path, config.path)
                {
                    let mut response = Response::new(ResponseBody::full(Bytes::from(auth.resource_metadata.clone())));
                    response
                        .headers_mut()
                        .insert(hyper::header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
                    break 'answer response;
                }
                let view = HeaderView::new(&parts.headers);
                let plan = match rules::plan_head(&config.policy(), method_of(&parts.method), path, &view) {
                    Ok(plan) => plan,
                    Err(rejection) => break 'answer rejection_response(&rejection),
                };
                // The request's authorization context (0: none), which owns the tasks it creates.
                let owner = match &config.auth {
                    Some(auth) => match authorize(auth, parts.method.as_str(), parts.uri.path(), &parts.headers) {
                        Ok((owner, proof)) => {
                            if let Some(proof) = proof
                                && let Err(response) = Box::pin(self.claim_proof(auth, proof)).await
                            {
                                break 'answer *response;
                            }
                            owner
                        }
                        Err(response) => break 'answer *response,
                    },
                    None => 0,
                };
                match plan {
                    HeadPlan::Post { session } => {
                        // Nothing but the future of a later answer is kept across its wait (the
                        // future's size is that of its largest state).
                        let later = {
                            let body = match self.read_body(body).await {
                                Ok(body) => body,
                                Err(response) => break 'answer response,
                            };
                            if let Err(response) = self.restore_shared(session).await {
                                break 'answer *response;
                            }
                            if let Some(relayed) = self.relay_answer(session, &body).await {
                                break 'answer relayed;
                            }
                            if let Some(answered) = self.forward_task(session, &view, &body, owner).await {
                                break 'answer answered;
                            }
                            let (prepared, share) = match self.post_now(&view, session, &body, owner) {
                                Ok(prepared) => prepared,
                                Err(response) => break 'answer *response,
                            };
                            if let Some(share) = share
                                && let Err(response) = Box::pin(self.share(share)).await
                            {
                                break 'answer *response;
                            }
                            match self.respond(prepared, &mut parts.headers) {
                                Ok(response) => break 'answer response,
                                Err(later) => later,
                            }
                        };
                        later.await
                    }
                    HeadPlan::OpenStream { session, last_event } => {
                        if let Err(response) = self.restore_shared(Some(session)).await {
                            break 'answer *response;
                        }
                        if let Some(after) = last_event
                            && let Some(response) = self.resume_shared(session, after).await
                        {
                            break 'answer response;
                        }
                        self.open_stream(session, last_event)
                    }
                    HeadPlan::OpenSseSession => self.open_sse_session(),
                    HeadPlan::SseMessage { session } => {
                        let body = match self.read_body(body).await {
                            Ok(body) => body,
                            Err(response) => break 'answer response,
                        };
                        self.sse_message(session, &body)
                    }
                    HeadPlan::EndSession { session } => {
                        if let Err(response) = self.restore_shared(Some(session)).await {
                            break 'answer *response;
                        }
                        let response = self.end_session(session);
                        match response.status() {
                            StatusCode::NO_CONTENT => Box::pin(self.forget_shared(session)).await.unwrap_or(response),
                            _ => response,
                        }
                    }
                    _ => rejection_response(&Rejection::method_not_allowed()),
                }
            };
            if response.headers().is_empty() && parts.headers.capacity() != 0 {
                // A head of no field takes the request's map, cleared (see `json_answer`).
                let mut headers = std::mem::take(&mut parts.headers);
                headers.clear();
                *response.headers_mut() = headers;
            }
            response.body_mut().set_end(end);
            tracing::debug!(status = response.status().as_u16(), "answered");
            Ok(response)
        }
    }

    /// DELETE of a session.
    fn end_session(&self, session: SessionId) -> Response<ResponseBody> {
        let mut state = self.inner.session_shard(session);
        if !self.live(&mut state, session, StdInstant::now()) {
            return rejection_response(&Rejection::unknown_session());
        }
        match state.sessions.remove(&session) {
            Some(_) => {
                state.events.remove_session(session);
                tracing::debug!(?session, "session ended by DELETE");
                status_only(StatusCode::NO_CONTENT)
            }
            None => rejection_response(&Rejection::unknown_session()),
        }
    }

    /// Reads a whole request body within the size and time limits: its one data frame as it came
    /// (the common case: hyper hands over the part of its read buffer), or the frames copied
    /// together. The time limit's timer is made only if the body is not all there at once.
    async fn read_body<B>(&self, body: B) -> Result<Bytes, Response<ResponseBody>>
    where
        B: Body,
        B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        let config = &self.inner.config;
        let mut body = std::pin::pin!(body);
        let mut remaining = config.max_body_bytes;
        let mut first: Option<Bytes> = None;
        let mut joined: Option<bytes::BytesMut> = None;
        let mut deadline: Option<Pin<Box<tokio::time::Sleep>>> = None;
        std::future::poll_fn(|cx| {
            loop {
                let frame = match body.as_mut().poll_frame(cx) {
                    Poll::Ready(Some(Ok(frame))) => frame,
                    Poll::Ready(Some(Err(error))) => {
                        let error: Box<dyn std::error::Error + Send + Sync> = error.into();
                        tracing::debug!(%error, "body read failed");
                        return Poll::Ready(Err(status_only(StatusCode::BAD_REQUEST)));
                    }
                    Poll::Ready(None) => break,
                    Poll::Pending => {
                        let timer =
                            deadline.get_or_insert_with(|| Box::pin(tokio::time::sleep(config.body_read_timeout)));
                        return match timer.as_mut().poll(cx) {
                            Poll::Ready(()) => Poll::Ready(Err(status_only(StatusCode::REQUEST_TIMEOUT))),
                            Poll::Pending => Poll::Pending,
                        };
                    }
                };
                let Ok(mut data) = frame.into_data() else { continue };
                if data.remaining() > remaining {
                    return Poll::Ready(Err(rejection_response(&Rejection::too_large())));
                }
                remaining -= data.remaining();
                let data = data.copy_to_bytes(data.remaining());
                match (&mut joined, first.take()) {
                    (Some(all), _) => all.extend_from_slice(&data),
                    (None, Some(previous)) => {
                        let mut all = bytes::BytesMut::with_capacity(previous.len() + data.len());
                        all.extend_from_slice(&previous);
                        all.extend_from_slice(&data);
                        joined = Some(all);
                    }
                    (None, None) => first = Some(data),
                }
            }
            let whole = match joined.take() {
                Some(all) => all.freeze(),
                None => first.take().unwrap_or_default(),
            };
            Poll::Ready(Ok(whole))
        })
        .await
    }

    fn open_stream(&self, session: SessionId, last_event: Option<EventId>) -> Response<ResponseBody> {
        let clock = StdInstant::now();
        let mut guard = self.inner.session_shard(session);
        self.sweep(&mut guard, clock, false);
        let state = &mut *guard;
        if !self.live(state, session, clock) {
            return rejection_response(&Rejection::unknown_session());
        }
        let Some(live) = state.sessions.get_mut(&session) else {
            return rejection_response(&Rejection::unknown_session());
        };
        live.last_used = clock;
        let keep_alive = Some(self.inner.config.sse_keep_alive);
        let primes = live.version().is_some_and(|v| v >= ProtocolVersion::V2025_11_25);
        let standalone = live.streams.standalone();
        match last_event {
            None => {
                if live.streams.has_reader(standalone) {
                    return status_only(StatusCode::CONFLICT);
                }
                let rx = live.streams.attach(standalone, Framing::Sse);
                let prime = primes.then(|| priming(standalone.0, self.inner.config.sse_retry_ms)).flatten();
                sse_response(200, prime, VecDeque::new(), Some(rx), keep_alive)
            }
            Some(after) => {
                let stream = mcp_sansio::endpoint::StreamId(after.stream());
                // Replay and attach under one lock: nothing is lost between them, nothing repeated.
                let (events, state_of) = replay(state.events.as_ref(), session, after);
                let open = state_of == StreamState::Open || stream == standalone;
                let rx = open.then(|| live.streams.attach(stream, Framing::Sse));
                tracing::debug!(stream = after.stream(), replayed = events.len(), open, "stream resumed");
                sse_response(200, None, events, rx, keep_alive.filter(|_| open))
            }
        }
    }
}

impl<H: Handler + Send + 'static> hyper::service::Service<Request<hyper::body::Incoming>> for McpHttp<H> {
    type Response = Response<ResponseBody>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Infallible>> + Send>>;

    fn call(&self, request: Request<hyper::body::Incoming>) -> Self::Future {
        Box::pin(self.clone().answer(request, ResponseEnd::default()))
    }
}

impl<H, B> tower_service::Service<Request<B>> for McpHttp<H>
where
    H: Handler + Send + 'static,
    B: Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    type Response = Response<ResponseBody>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Infallible>> + Send>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        Box::pin(self.clone().answer(request, ResponseEnd::default()))
    }
}
