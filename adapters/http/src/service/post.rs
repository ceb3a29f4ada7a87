//! A POST: planned by the core's HTTP rules, served by the stateless engine or a session's, and
//! answered with a JSON body or an SSE stream.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Instant as StdInstant;

use bytes::Bytes;
use hyper::header::{HeaderMap, HeaderValue};
use hyper::{Response, StatusCode};
use mcp_sansio::endpoint::{Framing, Route};
use mcp_sansio::http::{self as rules, Rejection, Serve, SessionId};
use mcp_sansio::jsonrpc::ParsedMessage;
use mcp_sansio::server::{Handler, InputError, Received};
use mcp_sansio::version::{Era, ProtocolVersion};

use super::McpHttp;
use crate::body::{Abort, AbortGuard, ResponseBody};
use crate::response::{HeaderView, priming, rejection_response, set_session_header, sse_response_in, status_only};
use crate::state::{LegacySession, Reader};

use super::shared::Share;

/// A POST served by an engine, waiting for its response head.
pub(super) type Prepared =
    (Era, Route, Reader, Result<Received, InputError>, Option<SessionId>, Option<ProtocolVersion>);

/// A response waiting for an answer given later (a deferred reply, finished through
/// [`McpHttp::with_engine`]).
pub(super) type Later = Pin<Box<dyn Future<Output = Response<ResponseBody>> + Send>>;

impl<H: Handler + Send + 'static> McpHttp<H> {
    /// The synchronous part of a POST: everything under the lock.
    pub(super) fn post_now(
        &self,
        headers: &HeaderView<'_>,
        session: Option<SessionId>,
        body: &[u8],
        owner: u64,
    ) -> Result<(Prepared, Option<Share>), Box<Response<ResponseBody>>> {
        let config = &self.inner.config;
        let clock = StdInstant::now();
        let now = self.inner.at(clock);
        // Validated once: routed by the plan, then served by the engine.
        let body = ParsedMessage::parse(body, config.engine.limits.max_depth);
        // A session's request is planned under its shard's lock (is the session alive?), which
        // then serves it; the others take their shard by the plan.
        let mut held = None;
        let known = match session {
            Some(id) => {
                let state = held.insert(self.inner.session_shard(id));
                self.sweep(state, clock, false);
                if !self.live(state, id, clock) {
                    return Err(Box::new(rejection_response(&Rejection::unknown_session())));
                }
                Some(id)
            }
            None => None,
        };
        let plan = match rules::plan_post_parsed(headers, &body, known.is_some()) {
            Ok(plan) => plan,
            Err(rejection) => return Err(Box::new(rejection_response(&rejection))),
        };
        let new_id = match plan.serve {
            Serve::NewSession => match self.inner.new_session_id() {
                Some(id) => Some(id),
                None => return Err(Box::new(status_only(StatusCode::INTERNAL_SERVER_ERROR))),
            },
            _ => None,
        };
        let mut guard = match (plan.serve, held, new_id) {
            (Serve::Session, Some(state), _) => state,
            (Serve::NewSession, held, Some(id)) => {
                drop(held);
                let mut state = self.inner.session_shard(id);
                self.sweep(&mut state, clock, false);
                state
            }
            (_, held, _) => {
                drop(held);
                // A request about a task goes to the engine that holds it.
                let mut state = match self.inner.task_shard(&body, owner, now) {
                    Ok(Some(state)) => state,
                    Ok(None) | Err(_) => self.inner.free_shard(),
                };
                self.sweep(&mut state, clock, false);
                state
            }
        };
        let state = &mut *guard;
        // A legacy answer given at once and alone may go as a JSON body (the client takes both).
        let json_alone = config.legacy_json_answers && plan.framing == Framing::Sse && plan.json_accepted;
        let answer = (plan.framing, json_alone);
        if plan.serve == Serve::Stateless
            && let Err(rejection) = rules::check_param_headers_parsed(headers, &body, &state.handler)
        {
            return Err(Box::new(rejection_response(&rejection)));
        }
        let (era, route, received, session_id, version) = match (plan.serve, known) {
            (Serve::Stateless, _) => {
                let span = tracing::debug_span!("mcp", era = "2026-07-28");
                let _entered = span.enter();
                let route = state.stateless_streams.open(plan.framing);
                let engine = state.stateless.get();
                if let Some(tasks) = engine.task_table() {
                    tasks.set_owner(owner);
                }
                let _serving = crate::serving::mark(crate::Serving::Stateless(state.index));
                let received = engine.handle_parsed(now, route, &body, &mut state.handler);
                if let Some(record) = engine.task_table().and_then(|tasks| tasks.take_created()) {
                    self.record_task(record);
                }
                state.stateless_streams.drain(engine, &mut state.handler, now, None);
                (Era::Modern, route, received, None, None)
            }
            (Serve::NewSession, _) => {
                if !self.make_room(state, clock) {
                    return Err(Box::new(rejection_response(&Rejection::too_many_sessions())));
                }
                let Some(id) = new_id else { return Err(Box::new(status_only(StatusCode::INTERNAL_SERVER_ERROR))) };
                let mut session = LegacySession::new(false, config);
                if self.inner.shared.get().is_some() {
                    session.streams.use_process_ids();
                }
                let span = tracing::debug_span!("mcp", era = "legacy", session = ?id, new = true);
                let _entered = span.enter();
                let context = (config, &mut state.pool, state.events.as_mut(), id);
                let (route, received) = session.handle_post(context, &mut state.handler, now, answer, &body);
                let version = session.version();
                let keep = version.is_some();
                let reader = session.streams.take_reader(route.stream);
                // Only a session that negotiated a version is shared (and kept).
                let share = self.to_share(&mut session, id, true);
                if keep {
                    tracing::debug!(session = ?id, ?version, "session started");
                    if state.sessions.insert(id, Box::new(session)).is_err() {
                        return Err(Box::new(rejection_response(&Rejection::too_many_sessions())));
                    }
                }
                let prepared = (Era::Legacy, route, reader, received, keep.then_some(id), version);
                return Ok((prepared, share));
            }
            (Serve::Session, Some(id)) => {
                let Some(session) = state.sessions.get_mut(&id) else {
                    return Err(Box::new(rejection_response(&Rejection::unknown_session())));
                };
                session.last_used = clock;
                let span = tracing::debug_span!("mcp", era = "legacy", session = ?id);
                let _entered = span.enter();
                let context = (config, &mut state.pool, state.events.as_mut(), id);
                let (route, received) = session.handle_post(context, &mut state.handler, now, answer, &body);
                if self.inner.shared.get().is_some()
                    && let Some(record) = session.take_created_task()
                {
                    self.record_task(record);
                }
                let version = session.version();
                (Era::Legacy, route, received, Some(id), version)
            }
            (Serve::Session, None) | (_, _) => return Err(Box::new(rejection_response(&Rejection::unknown_session()))),
        };
        let mut share = None;
        let streams = match session_id.and_then(|id| state.sessions.get_mut(&id).map(|s| (id, s))) {
            Some((id, session)) => {
                share = self.to_share(session, id, false);
                &mut session.streams
            }
            None => &mut state.stateless_streams,
        };
        let reader = streams.take_reader(route.stream);
        if !matches!(received, Ok(Received::Request) | Ok(Received::Invalid)) {
            streams.close(route.stream);
        }
        Ok(((era, route, reader, received, None, version), share))
    }

    /// The response to a POST the engine served: now, or (a bare body whose answer comes later)
    /// the future of it.
    ///
    /// A JSON or SSE answer's head takes `headers` (the request's map, cleared; see [`json_answer`]).
    pub(super) fn respond(&self, prepared: Prepared, headers: &mut HeaderMap) -> Result<Response<ResponseBody>, Later> {
        let (era, route, reader, received, new_session, version) = prepared;
        // 2026-07-28: a client that closes the response stream before the answer cancels the
        // request (in a legacy session a disconnection is not a cancellation).
        let mut guard = match (era, &received) {
            (Era::Modern, Ok(Received::Request)) => {
                let endpoint: Arc<dyn Abort> = self.inner.clone();
                AbortGuard::new(endpoint, route.stream)
            }
            _ => AbortGuard::default(),
        };
        let mut response = match received {
            Err(error) => {
                tracing::debug!(%error, "engine refused the message");
                status_only(StatusCode::SERVICE_UNAVAILABLE)
            }
            Ok(Received::Notification | Received::Response) => status_only(StatusCode::ACCEPTED),
            Ok(_) if route.framing == Framing::Sse && !reader.json => {
                let primes = era == Era::Legacy && version.is_some_and(|v| v >= ProtocolVersion::V2025_11_25);
                let prime = primes.then(|| priming(route.stream.0, self.inner.config.sse_retry_ms)).flatten();
                let guard = std::mem::take(&mut guard);
                let (first, rest) = match prime {
                    Some(prime) => (Some(prime), reader.frames.into_deque()),
                    None => reader.frames.into_parts(),
                };
                let status = reader.status.unwrap_or(200);
                sse_response_in(std::mem::take(headers), status, first, rest, reader.rx, None)
                    .map(|b| b.with_abort_guard(guard))
            }
            Ok(_) => {
                // A bare body is one message: the answer, given at once or when a deferred reply is
                // finished (or a legacy SSE stream's answer given at once and alone, see
                // `HttpConfig::legacy_json_answers`).
                let Reader { status, mut frames, rx, .. } = reader;
                match (frames.pop_front(), rx) {
                    (Some(bytes), _) => json_answer(era, status, bytes, &mut guard, std::mem::take(headers)),
                    (None, Some(mut rx)) => {
                        let headers = std::mem::take(headers);
                        return Err(Box::pin(async move {
                            let mut response = match rx.recv().await {
                                Some(bytes) => json_answer(era, status, bytes, &mut guard, headers),
                                None => status_only(StatusCode::INTERNAL_SERVER_ERROR),
                            };
                            if let Some(id) = new_session {
                                set_session_header(&mut response, id);
                            }
                            response
                        }));
                    }
                    (None, None) => status_only(StatusCode::INTERNAL_SERVER_ERROR),
                }
            }
        };
        if let Some(id) = new_session {
            set_session_header(&mut response, id);
        }
        Ok(response)
    }
}

/// The response of a bare body: its one message, with the status the drain read from it (`status`)
/// or read now; the stream ended as it should (`guard` disarmed).
///
/// Its head is written in `headers`, the request's map (cleared): hyper keeps a response's map for
/// the next request's head, which then fits without allocating (a new map grows as the head is read
/// into it).
pub(super) fn json_answer(
    era: Era,
    status: Option<u16>,
    bytes: Bytes,
    guard: &mut AbortGuard,
    mut headers: HeaderMap,
) -> Response<ResponseBody> {
    guard.disarm();
    let status = status.unwrap_or_else(|| rules::response_status(era, &bytes));
    let mut response = Response::new(ResponseBody::full(bytes));
    *response.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::OK);
    headers.clear();
    headers.insert(hyper::header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    *response.headers_mut() = headers;
    response
}
