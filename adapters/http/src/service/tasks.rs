//! 2026-07-28 task requests across replicas ([`crate::shared`]): a `tasks/get`, `tasks/update` or
//! `tasks/cancel` for a task this replica does not hold is published to the others
//! ([`Relayed::TaskCall`]); the one holding the task serves it on its stateless engine and publishes
//! the answer ([`Relayed::TaskAnswer`]), which this replica's response carries.

use std::time::Duration;

use bytes::Bytes;
use hyper::Response;
use hyper::header::HeaderMap;
use mcp_sansio::endpoint::Framing;
use mcp_sansio::http::{self as rules, Serve, SessionId};
use mcp_sansio::jsonrpc::ParsedMessage;
use mcp_sansio::server::Handler;
use mcp_sansio::version::Era;

use super::McpHttp;
use crate::body::{AbortGuard, ResponseBody};
use crate::response::HeaderView;
use crate::shared::{Relayed, within};

/// Longest wait for another replica's answer to a task request (within the store timeout): a task
/// no replica holds is then answered here as unknown.
const FORWARD_WAIT: Duration = Duration::from_secs(1);

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
        if session.is_some() || !body.windows(6).any(|w| w == b"tasks/") {
            return None;
        }
        let config = &self.inner.config;
        {
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
        }
        let mut random = [0u8; 8];
        getrandom::fill(&mut random).ok()?;
        let token = u64::from_be_bytes(random);
        let (answer, answered) = tokio::sync::oneshot::channel();
        self.forwarded().insert(token, answer);
        let call = Relayed::TaskCall { token, owner, message: body.to_vec() }.encode();
        let wait = config.store_timeout.min(FORWARD_WAIT);
        let published = within(wait, shared.publish(call)).await;
        let message = match published {
            Ok(()) => tokio::time::timeout(wait, answered).await.ok().and_then(Result::ok),
            Err(_) => None,
        };
        self.forwarded().remove(&token);
        let message = message?;
        tracing::debug!(token, "task request answered by another replica");
        let mut guard = AbortGuard::default();
        Some(super::post::json_answer(Era::Modern, None, Bytes::from(message), &mut guard, HeaderMap::new()))
    }

    fn forwarded(
        &self,
    ) -> std::sync::MutexGuard<'_, std::collections::HashMap<u64, tokio::sync::oneshot::Sender<Vec<u8>>>> {
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

    /// Hands another replica's answer to the task request waiting for it here.
    pub(super) fn take_task_answer(&self, token: u64, message: Vec<u8>) {
        if let Some(waiting) = self.forwarded().remove(&token) {
            let _ = waiting.send(message);
        }
    }
}
