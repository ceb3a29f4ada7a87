//! The deprecated 2024-11-05 HTTP+SSE transport: a GET stream that carries a whole session, and the
//! message endpoint its POSTs go to.

use std::collections::VecDeque;
use std::time::Instant as StdInstant;

use bytes::Bytes;
use hyper::{Response, StatusCode};
use mcp_sansio::endpoint::{Framing, Route};
use mcp_sansio::http::{self as rules, Rejection, SessionId};
use mcp_sansio::server::Handler;

use crate::McpHttp;
use crate::body::ResponseBody;
use crate::response::{rejection_response, sse_response, status_only};
use crate::state::LegacySession;

impl<H: Handler + Send + 'static> McpHttp<H> {
    /// The deprecated HTTP+SSE transport: a new session whose one stream this GET is.
    pub(crate) fn open_sse_session(&self) -> Response<ResponseBody> {
        let config = &self.inner.config;
        let Some(id) = self.inner.new_session_id() else {
            return status_only(StatusCode::INTERNAL_SERVER_ERROR);
        };
        let mut guard = self.inner.session_shard(id);
        let clock = StdInstant::now();
        self.sweep(&mut guard, clock, false);
        if !self.make_room(&mut guard, clock) {
            return rejection_response(&Rejection::too_many_sessions());
        }
        let mut session = LegacySession::new(true, config);
        let rx = session.streams.attach(session.streams.standalone(), Framing::Sse);
        let messages = config.legacy_sse.map_or("/messages", |paths| paths.messages);
        let mut event = vec![0u8; messages.len() + 96];
        let Some(len) = rules::write_endpoint_event(messages, id, &mut event) else {
            return status_only(StatusCode::INTERNAL_SERVER_ERROR);
        };
        event.truncate(len);
        if guard.sessions.insert(id, Box::new(session)).is_err() {
            return rejection_response(&Rejection::too_many_sessions());
        }
        tracing::debug!(session = ?id, "HTTP+SSE session opened");
        sse_response(200, Some(Bytes::from(event)), VecDeque::new(), Some(rx), Some(config.sse_keep_alive))
    }

    /// A message POSTed to an HTTP+SSE session: served, answered on its stream, 202 here.
    pub(crate) fn sse_message(&self, id: SessionId, body: &[u8]) -> Response<ResponseBody> {
        let now = self.now();
        let clock = StdInstant::now();
        let mut guard = self.inner.session_shard(id);
        self.sweep(&mut guard, clock, false);
        let state = &mut *guard;
        if !self.live(state, id, clock) {
            return rejection_response(&Rejection::unknown_session());
        }
        let Some(session) = state.sessions.get_mut(&id).filter(|s| s.sse_transport) else {
            return rejection_response(&Rejection::unknown_session());
        };
        session.last_used = clock;
        let span = tracing::debug_span!("mcp", era = "2024-11-05 HTTP+SSE", session = ?id);
        let _entered = span.enter();
        let route = Route::new(session.streams.standalone(), Framing::Sse);
        let context = (&self.inner.config, &mut state.pool, state.events.as_mut(), id);
        let received = session.serve(context, &mut state.handler, now, |e, h| e.handle_message(now, route, body, h));
        match received {
            Ok(_) => status_only(StatusCode::ACCEPTED),
            Err(error) => {
                tracing::debug!(%error, "engine refused the message");
                status_only(StatusCode::SERVICE_UNAVAILABLE)
            }
        }
    }
}
