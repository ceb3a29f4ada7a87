//! 2025-11-25 tasks of legacy sessions shared by replicas ([`crate::shared`]). A session's task
//! lives in the engine of the replica that created it. A `tasks/get`, `tasks/result` or
//! `tasks/cancel` for it that reaches another replica is published to the others
//! ([`Relayed::SessionTaskCall`]); the replica whose engine for the session holds the task serves
//! it on a new stream of the session, as if it had been POSTed there, and says how it answered
//! ([`Relayed::TaskAnswer`]). The asking replica's response then carries that answer: a JSON body,
//! or the stream's events, which the holding replica writes to the shared store as it writes them
//! (a `tasks/result` waiting for its task, the task's questions on it). The client's answers to
//! those questions reach the holding replica as any answer does ([`Relayed::Answer`]).

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use hyper::Response;
use hyper::header::HeaderMap;
use mcp_sansio::endpoint::Framing;
use mcp_sansio::http::{self as rules, Serve, SessionId};
use mcp_sansio::jsonrpc::{Message, ParsedMessage};
use mcp_sansio::server::Handler;
use mcp_sansio::server::tasks::{TaskRecord, named_session_task};
use mcp_sansio::version::Era;

use super::McpHttp;
use super::tasks::Holder;
use crate::body::{AbortGuard, ResponseBody};
use crate::response::{HeaderView, priming, sse_response};
use crate::shared::{Relayed, SharedSessions, TASK_WORKER_TIMEOUT, within};
use crate::state::session_owner;

/// The first byte of a [`Relayed::TaskAnswer`] to a [`Relayed::SessionTaskCall`]: the answer as a
/// JSON body, which follows.
const ANSWERED_BODY: u8 = b'J';
/// …: the whole stream (its number, 4 bytes, then its SSE events), ended already.
const ANSWERED_STREAM: u8 = b'E';
/// …: a stream still open (its number, 4 bytes, then the process writing it, 8 bytes), whose
/// events the shared store gets.
const OPEN_STREAM: u8 = b'O';

/// Longest wait for the other replicas' lists of a session's tasks (`tasks/list`): every replica
/// whose engine for the session holds a task answers.
const LIST_WAIT: Duration = Duration::from_millis(250);

/// Nesting read of a `tasks/list` answer (the answer, its result, the list, a task, the task's
/// objects).
const LIST_DEPTH: usize = 16;

/// What a 2025-11-25 request of a shared session is about.
enum About {
    /// The task a `tasks/get`, `tasks/result` or `tasks/cancel` names.
    Task(String),
    /// `tasks/list`: the session's tasks, on every replica.
    List,
}

fn about(body: &ParsedMessage<'_>) -> Option<About> {
    match body.message()?.ok()? {
        Message::Request { method, .. } if method.raw() == b"tasks/list" => Some(About::List),
        message => named_session_task(&message).map(|task| About::Task(task.to_owned())),
    }
}

/// The lists of `answers` (`tasks/list` answers) as one: the first with a list, its `tasks` holding
/// those of every list. `None` if none has a list.
fn merge_lists(answers: &[&[u8]]) -> Option<Vec<u8>> {
    fn tasks_of(answer: &[u8]) -> Option<mcp_sansio::json::Value<'_>> {
        let parsed = mcp_sansio::json::parse(answer, LIST_DEPTH).ok()?;
        parsed.get("result")?.get("tasks").filter(|t| t.kind() == mcp_sansio::json::Kind::Array)
    }
    let (base, listed) = answers.iter().find_map(|answer| Some((*answer, tasks_of(answer)?)))?;
    // The raw text of the base's list, where the merged one goes.
    let start = listed.as_bytes().as_ptr() as usize - base.as_ptr() as usize;
    let end = start + listed.as_bytes().len();
    let mut merged = base[..start].to_vec();
    merged.push(b'[');
    let members = answers
        .iter()
        .filter_map(|answer| tasks_of(answer))
        .flat_map(|tasks| tasks.elements().map(|task| task.as_bytes().to_vec()).collect::<Vec<_>>());
    for (i, task) in members.enumerate() {
        if i > 0 {
            merged.push(b',');
        }
        merged.extend_from_slice(&task);
    }
    merged.push(b']');
    merged.extend_from_slice(&base[end..]);
    Some(merged)
}

impl<H: Handler + Send + 'static> McpHttp<H> {
    /// A 2025-11-25 request of shared session `id` for a task its engine here does not hold,
    /// answered by the replica that holds it. `None`: served here (not such a request, the task is
    /// here, no replica holds it, or its replica stopped and the task is taken in here as failed).
    pub(super) async fn forward_session_task(
        &self,
        id: SessionId,
        headers: &HeaderView<'_>,
        body: &[u8],
    ) -> Option<Response<ResponseBody>> {
        let shared = Arc::clone(self.inner.shared.get()?);
        let config = &self.inner.config;
        let about = {
            let parsed = ParsedMessage::parse(body, config.engine.limits.max_depth);
            // The request as this replica would refuse it is refused here: only a good one moves.
            let plan = rules::plan_post_parsed(headers, &parsed, true).ok()?;
            if plan.serve != Serve::Session {
                return None;
            }
            about(&parsed)?
        };
        let task = match about {
            About::Task(task) => task,
            About::List => return Box::pin(self.list_session_tasks(&shared, id, body)).await,
        };
        {
            let now = self.now();
            let mut state = self.inner.session_shard(id);
            let session = state.sessions.get_mut(&id).filter(|s| !s.sse_transport)?;
            if session.holds_task(now, id, &task) {
                return None;
            }
        }
        let call = |token| Relayed::SessionTaskCall { token, session: id, message: body.to_vec() };
        let answer = match self.ask_holder(&shared, &task, session_owner(id), call).await {
            Holder::Answered(answer) => answer,
            Holder::Stopped(worker, record) => {
                self.adopt_lost_session_task(id, worker, &record);
                return None;
            }
            Holder::Unknown => return None,
        };
        tracing::debug!(session = ?id, "session task request answered by another replica");
        let (&how, rest) = answer.split_first()?;
        if how == ANSWERED_BODY {
            let mut guard = AbortGuard::default();
            let body = Bytes::copy_from_slice(rest);
            return Some(super::post::json_answer(Era::Legacy, None, body, &mut guard, HeaderMap::new()));
        }
        let (stream, events) = rest.split_first_chunk::<4>()?;
        let stream = u32::from_be_bytes(*stream);
        let prime = priming(stream, config.sse_retry_ms);
        Some(match how {
            ANSWERED_STREAM => sse_response(200, prime, VecDeque::from([Bytes::copy_from_slice(events)]), None, None),
            _ => {
                let worker = u64::from_be_bytes(*events.first_chunk::<8>()?);
                let rx = self.follow(shared, id, (stream, worker), task, body.to_vec());
                sse_response(200, prime, VecDeque::new(), Some(rx), Some(config.sse_keep_alive))
            }
        })
    }

    /// The events of stream `stream` of session `id`, which the replica of process `worker`
    /// writes, read from the shared store as they come (see [`McpHttp::tail`]), until the stream
    /// ends or its reader goes. If that process stops first (its beat ends, see
    /// [`TASK_WORKER_TIMEOUT`]), its task (`task`) is taken in here as failed and the request
    /// (`body`) served here, its answer ending the stream.
    fn follow(
        &self,
        shared: Arc<dyn SharedSessions>,
        id: SessionId,
        (stream, worker): (u32, u64),
        task: String,
        body: Vec<u8>,
    ) -> tokio::sync::mpsc::Receiver<Bytes> {
        let config = &self.inner.config;
        let (tx, rx) = tokio::sync::mpsc::channel(config.sse_buffer_messages.max(1));
        let mut tail = self.tail(Arc::clone(&shared), id, stream, 0);
        let (endpoint, timeout) = (self.downgrade(), config.store_timeout);
        tokio::spawn(async move {
            let mut beat = tokio::time::interval(TASK_WORKER_TIMEOUT);
            beat.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tokio::select! {
                    event = tail.recv() => {
                        // The stream ended, or its reader went.
                        let Some(event) = event else { return };
                        if tx.send(event).await.is_err() {
                            return;
                        }
                    }
                    _ = beat.tick() => {
                        if !matches!(within(timeout, shared.is_alive(worker)).await, Ok(false)) {
                            continue;
                        }
                        drop(tail);
                        let Some(endpoint) = endpoint.upgrade() else { return };
                        if let Some((_, record)) = endpoint.task_worker(&shared, &task, session_owner(id)).await {
                            endpoint.adopt_lost_session_task(id, worker, &record);
                        }
                        // Answered at once (the task failed): its events end the stream.
                        let answer = endpoint.serve_session_task_call(id, &body, false);
                        let events = answer.as_deref().and_then(|a| a.strip_prefix(&[ANSWERED_STREAM]));
                        if let Some((_, events)) = events.and_then(|e| e.split_first_chunk::<4>()) {
                            let _ = tx.send(Bytes::copy_from_slice(events)).await;
                        }
                        return;
                    }
                }
            }
        });
        rx
    }

    /// A `tasks/list` of shared session `id`: the tasks this replica's engine for the session
    /// holds and those of the other replicas that answered within [`LIST_WAIT`], as one list.
    /// `None` when no replica holds one: served here (an empty list).
    async fn list_session_tasks(
        &self,
        shared: &Arc<dyn SharedSessions>,
        id: SessionId,
        body: &[u8],
    ) -> Option<Response<ResponseBody>> {
        let call = |token| Relayed::SessionTaskCall { token, session: id, message: body.to_vec() };
        let theirs = self.gather_answers(shared, call, LIST_WAIT).await;
        let ours = self.serve_session_task_call(id, body, false);
        let lists: Vec<&[u8]> =
            ours.iter().chain(&theirs).filter_map(|answer| answer.strip_prefix(&[ANSWERED_BODY])).collect();
        tracing::debug!(session = ?id, here = ours.is_some(), others = theirs.len(), "session tasks listed");
        let merged = merge_lists(&lists)?;
        let mut guard = AbortGuard::default();
        Some(super::post::json_answer(Era::Legacy, None, Bytes::from(merged), &mut guard, HeaderMap::new()))
    }

    /// Serves a request about session `id`'s tasks (another replica's, or this one's `tasks/list`)
    /// if this replica's engine for the session holds the task (for `tasks/list`, any task): how
    /// it answered, to publish back (see [`OPEN_STREAM`]); an answer given at once and alone as a
    /// JSON body if `json_alone` ([`HttpConfig::legacy_json_answers`](crate::HttpConfig)).
    pub(super) fn serve_session_task_call(&self, id: SessionId, message: &[u8], json_alone: bool) -> Option<Vec<u8>> {
        let config = &self.inner.config;
        let now = self.now();
        let parsed = ParsedMessage::parse(message, config.engine.limits.max_depth);
        let about = about(&parsed)?;
        let mut guard = self.inner.session_shard(id);
        let state = &mut *guard;
        let session = state.sessions.get_mut(&id).filter(|s| !s.sse_transport)?;
        let (held, answer) = match &about {
            About::Task(task) => (session.holds_task(now, id, task), (Framing::Sse, json_alone)),
            // A list is answered at once, as a body, to be merged with the others.
            About::List => (session.holds_tasks(), (Framing::Body, false)),
        };
        if !held {
            return None;
        }
        session.last_used = std::time::Instant::now();
        let context = (config, &mut state.pool, state.events.as_mut(), id);
        let (route, received) = session.handle_post(context, &mut state.handler, now, answer, &parsed);
        let mut reader = session.streams.take_reader(route.stream);
        tracing::debug!(session = ?id, ?received, "a session task request served here");
        let stream = route.stream.0.to_be_bytes();
        if reader.json || route.framing == Framing::Body {
            session.streams.close(route.stream);
            return Some([&[ANSWERED_BODY][..], &reader.frames.pop_front()?].concat());
        }
        // A stream still open is read from the shared store; no one reads it here.
        let how = if reader.rx.is_some() { OPEN_STREAM } else { ANSWERED_STREAM };
        let mut out = [&[how][..], &stream].concat();
        if how == ANSWERED_STREAM {
            reader.frames.into_deque().iter().for_each(|frame| out.extend_from_slice(frame));
        } else {
            // Whose beat the asking replica watches while it follows the stream.
            out.extend_from_slice(&self.inner.worker.to_be_bytes());
        }
        Some(out)
    }

    /// Takes in, failed, the task of session `id` that `record` names, whose worker `worker` has
    /// stopped; records it as this replica's then.
    fn adopt_lost_session_task(&self, id: SessionId, worker: u64, record: &TaskRecord) {
        let config = &self.inner.config;
        let now = self.now();
        let adopted = {
            let mut guard = self.inner.session_shard(id);
            let state = &mut *guard;
            let Some(session) = state.sessions.get_mut(&id).filter(|s| !s.sse_transport) else { return };
            let context = (config, &mut state.pool, state.events.as_mut(), id);
            session.serve(context, &mut state.handler, now, |engine, _| {
                engine.task_table().is_some_and(|tasks| tasks.adopt_failed(now, record, super::tasks::LOST_TASK))
            })
        };
        if adopted {
            let worker = format!("{worker:016x}");
            tracing::warn!(session = ?id, task = %record.id(), worker, "a session's task whose replica stopped is answered for here, as failed");
            self.record_task(*record);
        }
    }
}
