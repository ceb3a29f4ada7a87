//! 2026-07-28 task requests across replicas ([`crate::shared`]): a `tasks/get`, `tasks/update` or
//! `tasks/cancel` for a task this replica does not hold is published to the others
//! ([`Relayed::TaskCall`]); the one holding the task serves it on its stateless engine and publishes
//! the answer ([`Relayed::TaskAnswer`]), which this replica's response carries.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use hyper::Response;
use hyper::header::HeaderMap;
use mcp_sansio::endpoint::Framing;
use mcp_sansio::http::{self as rules, Serve, SessionId};
use mcp_sansio::jsonrpc::ParsedMessage;
use mcp_sansio::server::Handler;
use mcp_sansio::server::tasks::TaskRecord;
use mcp_sansio::version::Era;

use super::McpHttp;
use crate::body::{AbortGuard, ResponseBody};
use crate::response::HeaderView;
use crate::shared::{Relayed, SharedSessions, TASK_WORKER_TIMEOUT, within};

/// What the other replicas said of a task this one does not hold ([`McpHttp::ask_holder`]).
pub(super) enum Holder {
    /// The replica holding it answered: its answer.
    Answered(Vec<u8>),
    /// The process running it stopped (this one, and the task's record): take it in as failed.
    Stopped(u64, TaskRecord),
    /// No replica answered and none is known to run it (no such task, or its process alive past
    /// the wait, or the store failed): served here.
    Unknown,
}

/// The status message of a task whose replica stopped, answered for by another.
pub(super) const LOST_TASK: &str = "the replica running this task stopped";

/// Longest wait for another replica's answer to a task request (within the store timeout): a task
/// no replica holds is then answered here as unknown.
pub(super) const FORWARD_WAIT: Duration = Duration::from_secs(1);

impl<H: Handler + Send + 'static> McpHttp<H> {
    /// A 2026-07-28 request for a task this replica does not hold, answered by the replica that
    /// holds it. `None`: served here (not such a request, nothing shared, the task is here, or no
    /// replica answered in time).
    pub(super) async fn forward_task(
        &self,
        session: Option<SessionId>,
        headers: &HeaderView<'_>,
        body: &[u8],
        owner: u64,
    ) -> Option<Response<ResponseBody>> {
        let shared = std::sync::Arc::clone(self.inner.shared.get()?);
        // Most requests are not about a task: a scan for the word spares them a parse.
        if !body.windows(6).any(|w| w == b"tasks/") {
            return None;
        }
        if let Some(id) = session {
            return Box::pin(self.forward_session_task(id, headers, body)).await;
        }
        let config = &self.inner.config;
        let task = {
            let parsed = ParsedMessage::parse(body, config.engine.limits.max_depth);
            // The request as this replica would refuse it is refused here: only a good one moves.
            let plan = rules::plan_post_parsed(headers, &parsed, false).ok()?;
            if plan.serve != Serve::Stateless {
                return None;
            }
            match self.inner.task_shard(&parsed, owner, self.now()) {
                Ok(None) => {}
                // Here, or not about a task.
                Ok(Some(_)) | Err(_) => return None,
            }
            if rules::check_param_headers_parsed(headers, &parsed, &self.inner.shard(0).handler).is_err() {
                return None;
            }
            super::shards::task_of(&parsed)?
        };
        let call = |token| Relayed::TaskCall { token, owner, message: body.to_vec() };
        let message = match self.ask_holder(&shared, &task, owner, call).await {
            Holder::Answered(message) => message,
            Holder::Stopped(worker, record) => {
                self.adopt_lost_task(&task, worker, &record);
                return None;
            }
            Holder::Unknown => return None,
        };
        tracing::debug!("task request answered by another replica");
        let mut guard = AbortGuard::default();
        Some(super::post::json_answer(Era::Modern, None, Bytes::from(message), &mut guard, HeaderMap::new()))
    }

    /// Asks the other replicas about task `task` of `owner` with `call` (given its token): the
    /// answer of the one holding it, or whether its process stopped. Asked again while the store
    /// says the process running it is alive (a replica that just started may not have heard the
    /// first call); the beat of a process that stopped just now ends within
    /// [`TASK_WORKER_TIMEOUT`].
    pub(super) async fn ask_holder(
        &self,
        shared: &Arc<dyn SharedSessions>,
        task: &str,
        owner: u64,
        call: impl Fn(u64) -> Relayed,
    ) -> Holder {
        let deadline = tokio::time::Instant::now() + TASK_WORKER_TIMEOUT + FORWARD_WAIT;
        loop {
            if let Some(answer) = self.ask_replicas(shared, &call).await {
                return Holder::Answered(answer);
            }
            match self.task_worker(shared, task, owner).await {
                Some((worker, record)) if worker != self.inner.worker => {
                    match within(self.inner.config.store_timeout, shared.is_alive(worker)).await {
                        Ok(true) if tokio::time::Instant::now() < deadline => {}
                        Ok(false) => return Holder::Stopped(worker, record),
                        Ok(true) | Err(_) => return Holder::Unknown,
                    }
                }
                // No such task, or this replica's.
                _ => return Holder::Unknown,
            }
        }
    }

    /// Publishes a task request (`call`, given its token) to the other replicas: the answer of the
    /// one holding the task, if one answered within [`FORWARD_WAIT`].
    pub(super) async fn ask_replicas(
        &self,
        shared: &Arc<dyn SharedSessions>,
        call: impl FnOnce(u64) -> Relayed,
    ) -> Option<Vec<u8>> {
        let wait = self.inner.config.store_timeout.min(FORWARD_WAIT);
        let (token, mut answers) = self.publish_call(shared, call, wait).await?;
        let answer = tokio::time::timeout(wait, answers.recv()).await.ok().flatten();
        self.forwarded().remove(&token);
        answer
    }

    /// Publishes a request (`call`, given its token) to the other replicas: every answer that
    /// came within `wait` (at most [`FORWARD_WAIT`]).
    pub(super) async fn gather_answers(
        &self,
        shared: &Arc<dyn SharedSessions>,
        call: impl FnOnce(u64) -> Relayed,
        wait: Duration,
    ) -> Vec<Vec<u8>> {
        let wait = self.inner.config.store_timeout.min(wait).min(FORWARD_WAIT);
        let Some((token, mut answers)) = self.publish_call(shared, call, wait).await else { return Vec::new() };
        let mut gathered = Vec::new();
        let until = tokio::time::Instant::now() + wait;
        while let Ok(Some(answer)) = tokio::time::timeout_at(until, answers.recv()).await {
            gathered.push(answer);
        }
        self.forwarded().remove(&token);
        gathered
    }

    /// Publishes `call` under a new token, within `wait`: the token and where its answers come.
    async fn publish_call(
        &self,
        shared: &Arc<dyn SharedSessions>,
        call: impl FnOnce(u64) -> Relayed,
        wait: Duration,
    ) -> Option<(u64, tokio::sync::mpsc::UnboundedReceiver<Vec<u8>>)> {
        let mut random = [0u8; 8];
        getrandom::fill(&mut random).ok()?;
        let token = u64::from_be_bytes(random);
        let (answer, answers) = tokio::sync::mpsc::unbounded_channel();
        self.forwarded().insert(token, answer);
        if within(wait, shared.publish(call(token).encode())).await.is_err() {
            self.forwarded().remove(&token);
            return None;
        }
        Some((token, answers))
    }

    /// The worker the store names for task `id` of `owner`, and its record (`None`: no such
    /// record, or an id this server could not have given).
    pub(super) async fn task_worker(
        &self,
        shared: &Arc<dyn SharedSessions>,
        id: &str,
        owner: u64,
    ) -> Option<(u64, TaskRecord)> {
        if id.len() != mcp_sansio::server::tasks::TASK_ID_LEN || !id.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        let bytes = within(self.inner.config.store_timeout, shared.load_task(id.to_owned())).await.ok()??;
        let (worker, record) = bytes.split_first_chunk::<8>()?;
        let record = TaskRecord::decode(record).filter(|r| r.owner() == owner && r.id() == id)?;
        Some((u64::from_be_bytes(*worker), record))
    }

    /// Takes in, failed, task `id`, whose worker `worker` has stopped (its beat ended, see
    /// [`TASK_WORKER_TIMEOUT`]); records it as this replica's then.
    fn adopt_lost_task(&self, id: &str, worker: u64, record: &TaskRecord) {
        let adopted = {
            let mut state = self.inner.free_shard();
            let now = self.now();
            state.stateless.get().task_table().is_some_and(|tasks| tasks.adopt_failed(now, record, LOST_TASK))
        };
        if adopted {
            tracing::warn!(task = %id, worker = format!("{worker:016x}"), "a task whose replica stopped is answered for here, as failed");
            self.record_task(*record);
        }
    }

    /// Records `record`, a task this replica runs, in the shared store (in the background: the
    /// record matters only once this replica is gone).
    pub(super) fn record_task(&self, record: TaskRecord) {
        let (Some(shared), Some(limits)) = (self.inner.shared.get(), self.inner.config.tasks) else { return };
        let (shared, worker, timeout) = (Arc::clone(shared), self.inner.worker, self.inner.config.store_timeout);
        tokio::spawn(async move {
            let mut bytes = worker.to_be_bytes().to_vec();
            bytes.extend_from_slice(&record.encode());
            // Kept as long as the task (a 2025-11-25 request may ask for less than the table's).
            let ttl = record.ttl_ms().map_or(limits.ttl, Duration::from_millis);
            if let Err(error) = within(timeout, shared.save_task(record.id().to_owned(), bytes, ttl)).await {
                tracing::warn!(task = record.id(), %error, "task not recorded in the shared store");
            }
        });
    }

    /// Says, every second while the endpoint lives, that this process is alive (it runs tasks).
    pub(super) fn keep_beating(&self, shared: &Arc<dyn SharedSessions>) {
        let (endpoint, shared) = (self.downgrade(), Arc::clone(shared));
        tokio::spawn(async move {
            let mut every = tokio::time::interval(Duration::from_secs(1));
            loop {
                every.tick().await;
                let Some(endpoint) = endpoint.upgrade() else { break };
                let (worker, timeout) = (endpoint.inner.worker, endpoint.inner.config.store_timeout);
                drop(endpoint);
                if let Err(error) = within(timeout, shared.beat(worker, TASK_WORKER_TIMEOUT)).await {
                    tracing::warn!(%error, "this replica's beat not written to the shared store");
                }
            }
        });
    }

    fn forwarded(
        &self,
    ) -> std::sync::MutexGuard<'_, std::collections::HashMap<u64, tokio::sync::mpsc::UnboundedSender<Vec<u8>>>> {
        self.inner.forwarded.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Serves another replica's task request if this replica holds the task: its answer, to
    /// publish back.
    pub(super) fn serve_task_call(&self, owner: u64, message: &[u8]) -> Option<Vec<u8>> {
        let now = self.now();
        let parsed = ParsedMessage::parse(message, self.inner.config.engine.limits.max_depth);
        let mut guard = self.inner.task_shard(&parsed, owner, now).ok()??;
        let state = &mut *guard;
        let engine = state.stateless.get();
        if let Some(tasks) = engine.task_table() {
            tasks.set_now(now);
        }
        let route = state.stateless_streams.open(Framing::Body);
        let _serving = crate::serving::mark(crate::Serving::Stateless(state.index));
        let received = engine.handle_parsed(now, route, &parsed, &mut state.handler);
        state.stateless_streams.drain(engine, &mut state.handler, now, None);
        let mut reader = state.stateless_streams.take_reader(route.stream);
        state.stateless_streams.close(route.stream);
        tracing::debug!(?received, "another replica's task request served");
        reader.frames.pop_front().map(|bytes| bytes.to_vec())
    }

    /// Publishes this replica's `answer` to another replica's task request `token` (in the
    /// background).
    pub(super) fn publish_task_answer(&self, shared: &Arc<dyn SharedSessions>, token: u64, answer: Vec<u8>) {
        let (shared, limit) = (Arc::clone(shared), self.inner.config.store_timeout);
        tokio::spawn(async move {
            let answer = Relayed::TaskAnswer { token, message: answer }.encode();
            if let Err(error) = within(limit, shared.publish(answer)).await {
                tracing::warn!(%error, "a task request's answer not published");
            }
        });
    }

    /// Whether `token` names a task request this replica published and waits for answers to.
    pub(super) fn asked(&self, token: u64) -> bool {
        self.forwarded().contains_key(&token)
    }

    /// Hands another replica's answer to the task request waiting for it here (which takes the
    /// first, or every one within its wait).
    pub(super) fn take_task_answer(&self, token: u64, message: Vec<u8>) {
        if let Some(waiting) = self.forwarded().get(&token) {
            let _ = waiting.send(message);
        }
    }
}
