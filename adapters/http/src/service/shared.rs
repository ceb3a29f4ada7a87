//! Legacy sessions shared with the other replicas ([`crate::shared`]): read before a request of a
//! session, written after a request that changed it, forgotten on `DELETE`; answers relayed to the
//! replica waiting for them, announcements told to every replica, streams of other replicas
//! resumed from the shared store.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::{Duration, Instant as StdInstant};

use bytes::Bytes;
use hyper::{Response, StatusCode};
use mcp_sansio::endpoint::{Framing, Route};
use mcp_sansio::frame::EventId;
use mcp_sansio::http::{Rejection, SessionId};
use mcp_sansio::jsonrpc::{Message, ParsedMessage};
use mcp_sansio::server::{Handler, SessionState};

use super::McpHttp;
use crate::body::ResponseBody;
use crate::config::{BearerAuth, TokenRejection, VerifiedProof};
use crate::response::{refused, rejection_response, sse_response, status_only};
use crate::shared::{Notice, Relayed, SharedSessions, StoreError, within};
use crate::state::LegacySession;

/// A session's state to write to the shared store after its request: the store, the session, its
/// state, and whether the session is new (its `initialize` fails if the write does).
pub(crate) type Share = (Arc<dyn SharedSessions>, SessionId, SessionState, bool);

/// Longest wait for the next event of another replica's stream resumed here, before asking again
/// (and noticing a client that went away).
const TAIL_WAIT: Duration = Duration::from_secs(10);

/// The 503 of a request whose session the store could not give or keep.
fn unavailable(id: SessionId, error: &StoreError, what: &str) -> Box<Response<ResponseBody>> {
    tracing::warn!(session = ?id, %error, "{what}");
    Box::new(rejection_response(&Rejection::session_store_unavailable()))
}

impl<H: Handler + Send + 'static> McpHttp<H> {
    /// The same endpoint sharing its legacy sessions with the other replicas of the server through
    /// `store` (see [`crate::shared`]; give each replica its own [`HttpConfig::replica`]). Set once:
    /// a second store is ignored. Within a tokio runtime it starts at once to listen to the other
    /// replicas and to write its SSE events to the store; otherwise with its first request of a
    /// session.
    ///
    /// [`HttpConfig::replica`]: crate::HttpConfig::replica
    pub fn with_shared_sessions(self, store: impl SharedSessions) -> Self {
        if self.inner.shared.set(Arc::new(store)).is_err() {
            tracing::warn!("a shared session store is set already; the second is ignored");
        }
        self.each_shard(|state| state.pool.share_sessions());
        if let (Some(shared), Ok(_)) = (self.inner.shared.get(), tokio::runtime::Handle::try_current()) {
            self.inner.listening.call_once(|| self.start_sharing(shared));
        }
        self
    }

    /// Brings `session` up to date from the shared store, if there is one, before a request of it:
    /// `Err` is the response when the store failed.
    pub(super) async fn restore_shared(&self, session: Option<SessionId>) -> Result<(), Box<Response<ResponseBody>>> {
        match (session, self.inner.shared.get()) {
            (Some(id), Some(shared)) => {
                self.inner.listening.call_once(|| self.start_sharing(shared));
                Box::pin(self.restore(id, Arc::clone(shared))).await
            }
            _ => Ok(()),
        }
    }

    /// Claims the request's DPoP proof in the shared store, if there is one
    /// ([`SharedSessions::claim_once`]): a 401 (`invalid_token`) if a replica accepted the proof
    /// already, a 503 if the store does not answer within [`HttpConfig::store_timeout`].
    ///
    /// [`HttpConfig::store_timeout`]: crate::HttpConfig::store_timeout
    pub(super) async fn claim_proof(
        &self,
        auth: &BearerAuth,
        proof: VerifiedProof,
    ) -> Result<(), Box<Response<ResponseBody>>> {
        let Some(shared) = self.inner.shared.get() else {
            return Ok(());
        };
        let key = format!("dpop:{}:{}", proof.jkt, proof.jti);
        let ttl = proof.replayable_for.max(Duration::from_secs(1));
        match within(self.inner.config.store_timeout, shared.claim_once(key, ttl)).await {
            Ok(true) => Ok(()),
            Ok(false) => {
                tracing::debug!("DPoP proof refused: another replica accepted it");
                Err(refused(auth, Some(TokenRejection::Invalid)))
            }
            Err(error) => {
                tracing::warn!(%error, "DPoP proof not claimed in the shared store");
                Err(Box::new(rejection_response(&Rejection::session_store_unavailable())))
            }
        }
    }

    /// Starts what sharing needs in the background: the writer of this replica's SSE events to the
    /// shared store, and the reader of what the replicas publish. Within a tokio runtime.
    fn start_sharing(&self, shared: &Arc<dyn SharedSessions>) {
        let config = &self.inner.config;
        let queue =
            crate::shared_events::start_writer(Arc::clone(shared), config.session_idle_timeout, config.store_timeout);
        self.each_shard(|state| {
            let local = std::mem::replace(&mut state.events, Box::new(crate::store::MemoryEventStore::default()));
            state.events = Box::new(crate::shared_events::Teed::new(local, queue.clone()));
        });
        let _ = self.inner.events_queue.set(queue);
        self.listen(shared);
        if config.tasks.is_some() {
            self.keep_beating(shared);
        }
    }

    /// A stream of another replica resumed here (`Last-Event-ID` naming it): the events after the
    /// one named, from the shared store, then, while the stream has not ended, those its replica
    /// writes later, as they come. `None`: the stream is this replica's (or nothing is shared).
    pub(super) async fn resume_shared(&self, id: SessionId, after: EventId) -> Option<Response<ResponseBody>> {
        let shared = Arc::clone(self.inner.shared.get()?);
        let config = &self.inner.config;
        if after.stream() >> crate::state::REPLICA_SHIFT == u32::from(config.replica) {
            return None;
        }
        {
            let mut state = self.inner.session_shard(id);
            let Some(session) = state.sessions.get_mut(&id).filter(|s| !s.sse_transport) else {
                return Some(rejection_response(&Rejection::unknown_session()));
            };
            session.last_used = StdInstant::now();
        }
        let first =
            within(config.store_timeout, shared.read_events(id, after.stream(), after.sequence(), Duration::ZERO));
        let read = match Box::pin(first).await {
            Ok(read) => read,
            Err(error) => return Some(*unavailable(id, &error, "stream not read from the shared store")),
        };
        let last = read.events.last().map_or(after.sequence(), |(sequence, _)| *sequence);
        let replayed: VecDeque<Bytes> = read.events.into_iter().map(|(_, event)| event).collect();
        tracing::debug!(
            stream = after.stream(),
            replayed = replayed.len(),
            ended = read.ended,
            "another replica's stream resumed"
        );
        if read.ended {
            return Some(sse_response(200, None, replayed, None, None));
        }
        if after.stream() & ((1 << crate::state::REPLICA_SHIFT) - 1) == crate::state::GET_STREAM.0 {
            // A session's standalone stream: what the other replica wrote and the client missed,
            // then this replica's own (the session's notifications reach every replica's copy).
            let mut state = self.inner.session_shard(id);
            let Some(session) = state.sessions.get_mut(&id) else {
                return Some(rejection_response(&Rejection::unknown_session()));
            };
            let standalone = session.streams.standalone();
            if session.streams.has_reader(standalone) {
                return Some(status_only(StatusCode::CONFLICT));
            }
            let rx = session.streams.attach(standalone, Framing::Sse);
            return Some(sse_response(200, None, replayed, Some(rx), Some(config.sse_keep_alive)));
        }
        let rx = self.tail(shared, id, after.stream(), last);
        Some(sse_response(200, None, replayed, Some(rx), Some(config.sse_keep_alive)))
    }

    /// The events of another replica's stream `stream` of session `id` after sequence `last`, read
    /// from the shared store as its replica writes them, until the stream ends or its reader goes.
    pub(super) fn tail(
        &self,
        shared: Arc<dyn SharedSessions>,
        id: SessionId,
        stream: u32,
        mut last: u64,
    ) -> tokio::sync::mpsc::Receiver<Bytes> {
        let config = &self.inner.config;
        let (tx, rx) = tokio::sync::mpsc::channel(config.sse_buffer_messages.max(1));
        let limit = config.store_timeout + TAIL_WAIT;
        tokio::spawn(async move {
            while !tx.is_closed() {
                match within(limit, shared.read_events(id, stream, last, TAIL_WAIT)).await {
                    Ok(read) => {
                        for (sequence, event) in read.events {
                            last = sequence;
                            if tx.send(event).await.is_err() {
                                return;
                            }
                        }
                        if read.ended {
                            return;
                        }
                    }
                    Err(error) => {
                        tracing::warn!(session = ?id, stream, %error, "another replica's stream: shared store not read; trying again");
                        tokio::time::sleep(Duration::from_secs(1)).await;
                    }
                }
            }
        });
        rx
    }

    /// Takes, from now on, what the replicas publish ([`SharedSessions::subscribe`]).
    fn listen(&self, shared: &Arc<dyn SharedSessions>) {
        let (into, mut published) = tokio::sync::mpsc::channel::<Vec<u8>>(256);
        shared.subscribe(into);
        let (endpoint, shared) = (self.downgrade(), Arc::clone(shared));
        let legacy_json = self.inner.config.legacy_json_answers;
        tokio::spawn(async move {
            while let Some(message) = published.recv().await {
                let Some(endpoint) = endpoint.upgrade() else { break };
                match Relayed::decode(&message) {
                    Some(Relayed::Answer { session, message }) => endpoint.take_relayed(session, &message),
                    Some(Relayed::Notice(notice)) => endpoint.tell(&notice),
                    Some(Relayed::Session { session, state }) => endpoint.take_state(session, &state),
                    // This replica's own calls come back too: answered where they were made.
                    Some(Relayed::TaskCall { token, .. } | Relayed::SessionTaskCall { token, .. })
                        if endpoint.asked(token) => {}
                    Some(Relayed::TaskCall { token, owner, message }) => {
                        if let Some(answer) = endpoint.serve_task_call(owner, &message) {
                            endpoint.publish_task_answer(&shared, token, answer);
                        }
                    }
                    Some(Relayed::SessionTaskCall { token, session, message }) => {
                        if let Some(answer) = endpoint.serve_session_task_call(session, &message, legacy_json) {
                            endpoint.publish_task_answer(&shared, token, answer);
                        }
                    }
                    Some(Relayed::TaskAnswer { token, message }) => endpoint.take_task_answer(token, message),
                    None => tracing::warn!(len = message.len(), "unreadable message from the other replicas"),
                }
            }
        });
    }

    /// Tells every client of the server, on every replica, of `notice`, as far as each negotiated
    /// it (see [`Notice`]): with shared sessions through the store (each replica, this one
    /// included, tells its own engines when the message arrives; `Err` if the store failed),
    /// otherwise at once.
    pub async fn announce(&self, notice: Notice) -> Result<(), StoreError> {
        match self.inner.shared.get() {
            Some(shared) => {
                let message = Relayed::Notice(notice).encode();
                within(self.inner.config.store_timeout, shared.publish(message)).await
            }
            None => {
                self.tell(&notice);
                Ok(())
            }
        }
    }

    /// Tells this replica's engines (the stateless ones and each session's) of `notice`.
    fn tell(&self, notice: &Notice) {
        self.for_each_engine(|engine, handler| {
            let told = match notice {
                Notice::ListChanged(list) => engine.list_changed(*list, handler),
                Notice::ResourceUpdated(uri) => engine.resource_updated(uri),
            };
            if let Err(error) = told {
                tracing::debug!(?error, "a notice not sent");
            }
        });
    }

    /// Takes a session's state another replica (or this one) wrote, if the session is here; no
    /// state: the session ended.
    fn take_state(&self, id: SessionId, state: &[u8]) {
        let mut guard = self.inner.session_shard(id);
        let state_of = &mut *guard;
        let Some(session) = state_of.sessions.get_mut(&id).filter(|s| !s.sse_transport) else { return };
        if state.is_empty() {
            if session.is_suspended() {
                tracing::debug!(session = ?id, "session ended through another replica");
                state_of.sessions.remove(&id);
                state_of.events.remove_session(id);
            }
            return;
        }
        if let Some(state) = SessionState::decode(state) {
            session.refresh(state);
        }
    }

    /// Feeds a relayed answer to session `id`'s engine, if it waits for answers here.
    fn take_relayed(&self, id: SessionId, message: &[u8]) {
        let now = self.now();
        let mut guard = self.inner.session_shard(id);
        let state = &mut *guard;
        let Some(session) = state.sessions.get_mut(&id).filter(|s| !s.sse_transport) else { return };
        if !session.waits_for_answers() {
            return;
        }
        let route = Route::new(session.streams.standalone(), Framing::Sse);
        let context = (&self.inner.config, &mut state.pool, state.events.as_mut(), id);
        let received = session.serve(context, &mut state.handler, now, |e, h| e.handle_message(now, route, message, h));
        tracing::debug!(session = ?id, ?received, "relayed answer taken");
    }

    /// A client's answer (a response) POSTed to a session whose engine here waits for no answer:
    /// relayed to the replica whose request waits for it, and answered 202 (503 if the store
    /// failed). `None`: served here as any message.
    pub(super) async fn relay_answer(&self, session: Option<SessionId>, body: &[u8]) -> Option<Response<ResponseBody>> {
        let (Some(id), Some(shared)) = (session, self.inner.shared.get()) else { return None };
        let answer = {
            let parsed = ParsedMessage::parse(body, self.inner.config.engine.limits.max_depth);
            matches!(parsed.message(), Some(Ok(Message::Response { .. } | Message::Error { id: Some(_), .. })))
        };
        if !answer {
            return None;
        }
        // Unknown here (the store has it not): served, and so answered 404.
        if self.inner.session_shard(id).sessions.get_mut(&id).is_none_or(|s| s.sse_transport || s.waits_for_answers()) {
            return None;
        }
        let message = Relayed::Answer { session: id, message: body.to_vec() }.encode();
        let relayed = Box::pin(within(self.inner.config.store_timeout, shared.publish(message))).await;
        Some(match relayed {
            Ok(()) => {
                tracing::debug!(session = ?id, "answer relayed to the other replicas");
                status_only(StatusCode::ACCEPTED)
            }
            Err(error) => *unavailable(id, &error, "answer not relayed"),
        })
    }

    async fn restore(&self, id: SessionId, shared: Arc<dyn SharedSessions>) -> Result<(), Box<Response<ResponseBody>>> {
        {
            let mut state = self.inner.session_shard(id);
            // An HTTP+SSE session is this replica's alone (it lives on one connection); a copy
            // confirmed a moment ago is up to date (HttpConfig::shared_state_fresh). An engine
            // awake here (a live task) takes what the other replicas changed (`refresh`).
            let fresh = self.inner.config.shared_state_fresh;
            if state.sessions.get_mut(&id).is_some_and(|s| s.sse_transport || s.is_fresh(fresh)) {
                return Ok(());
            }
        }
        let config = &self.inner.config;
        let loaded = within(config.store_timeout, shared.load(id, config.session_idle_timeout)).await;
        let bytes = loaded.map_err(|error| unavailable(id, &error, "session not read from the shared store"))?;
        let restored = bytes.and_then(|bytes| {
            let state = SessionState::decode(&bytes);
            if state.is_none() {
                tracing::warn!(session = ?id, len = bytes.len(), "unreadable session state in the shared store");
            }
            state
        });
        let clock = StdInstant::now();
        let mut guard = self.inner.session_shard(id);
        let state = &mut *guard;
        match (restored, state.sessions.get_mut(&id)) {
            // Ended or expired in the store: unknown here too (unless its engine is busy here).
            (None, Some(session)) if session.is_suspended() => {
                tracing::debug!(session = ?id, "session gone from the shared store");
                state.sessions.remove(&id);
                state.events.remove_session(id);
            }
            (None, _) => {}
            (Some(restored), Some(session)) => session.refresh(restored),
            (Some(restored), None) => {
                if !self.make_room(state, clock) {
                    return Err(Box::new(rejection_response(&Rejection::too_many_sessions())));
                }
                tracing::debug!(session = ?id, "session continued from the shared store");
                let session = LegacySession::restored(restored, config);
                if state.sessions.insert(id, Box::new(session)).is_err() {
                    return Err(Box::new(rejection_response(&Rejection::too_many_sessions())));
                }
            }
        }
        Ok(())
    }

    /// What of `session` to write to the shared store, if there is one and the session changed.
    pub(super) fn to_share(&self, session: &mut LegacySession, id: SessionId, new: bool) -> Option<Share> {
        let shared = self.inner.shared.get()?;
        let state = session.changed_state()?;
        Some((Arc::clone(shared), id, state, new))
    }

    /// Writes a session's changed state to the shared store. A new session that cannot be written
    /// is ended and its `initialize` answered 503; a changed one is logged and answered as served.
    pub(super) async fn share(&self, (shared, id, state, new): Share) -> Result<(), Box<Response<ResponseBody>>> {
        let config = &self.inner.config;
        let written =
            within(config.store_timeout, shared.save(id, state.encode().to_vec(), config.session_idle_timeout));
        match written.await {
            Ok(()) => {
                if let Some(session) = self.inner.session_shard(id).sessions.get_mut(&id) {
                    session.shared = Some(state);
                    session.confirmed = Some(StdInstant::now());
                }
                // Best effort: a replica that misses it reads the state at its next request.
                let told = Relayed::Session { session: id, state: state.encode().to_vec() }.encode();
                if let Err(error) = within(config.store_timeout, shared.publish(told)).await {
                    tracing::debug!(session = ?id, %error, "changed session state not told to the other replicas");
                }
                Ok(())
            }
            Err(error) if new => {
                let mut guard = self.inner.session_shard(id);
                guard.sessions.remove(&id);
                guard.events.remove_session(id);
                Err(unavailable(id, &error, "new session not written to the shared store; refused"))
            }
            Err(error) => {
                tracing::warn!(session = ?id, %error, "changed session state not written to the shared store");
                Ok(())
            }
        }
    }

    /// Forgets an ended session in the shared store: `Some` is the response (503) when the store
    /// failed, and the session lives on for the other replicas.
    pub(super) async fn forget_shared(&self, id: SessionId) -> Option<Response<ResponseBody>> {
        let shared = Arc::clone(self.inner.shared.get()?);
        match within(self.inner.config.store_timeout, shared.remove(id)).await {
            Ok(()) => {
                // The other replicas' copies end at once (best effort: else at their next read).
                let ended = Relayed::Session { session: id, state: Vec::new() }.encode();
                if let Err(error) = within(self.inner.config.store_timeout, shared.publish(ended)).await {
                    tracing::debug!(session = ?id, %error, "ended session not told to the other replicas");
                }
                None
            }
            Err(error) => Some(*unavailable(id, &error, "ended session not removed from the shared store")),
        }
    }
}
