//! What the application reaches outside a request: the sessions alive, its handlers, and the
//! engines, to finish deferred replies and to tell clients of changes.

use mcp_sansio::http::SessionId;
#[cfg(doc)]
use mcp_sansio::server::Engine;
use mcp_sansio::server::Handler;
use mcp_sansio::time::Instant;

use super::{McpHttp, State};

impl<H: Handler + Send + 'static> McpHttp<H> {
    /// Runs `f` on each shard's state in turn, under its lock.
    pub(super) fn each_shard(&self, mut f: impl FnMut(&mut State<H>)) {
        for index in 0..self.inner.shard_count() {
            f(&mut self.inner.shard(index));
        }
    }

    /// How many legacy sessions are alive.
    pub fn session_count(&self) -> usize {
        let mut count = 0;
        self.each_shard(|state| count += state.sessions.len());
        count
    }

    /// How many legacy sessions are suspended: between requests, holding no engine and no buffers
    /// (see [`HttpConfig::session_buffer_pool`](crate::HttpConfig::session_buffer_pool)).
    pub fn suspended_session_count(&self) -> usize {
        let mut count = 0;
        self.each_shard(|state| {
            let sessions = &mut state.sessions;
            count += sessions.ids().iter().filter(|id| sessions.get_mut(id).is_some_and(|s| s.is_suspended())).count();
        });
        count
    }

    /// The ids of the legacy sessions alive.
    pub fn session_ids(&self) -> Vec<SessionId> {
        let mut ids = Vec::new();
        self.each_shard(|state| ids.extend(state.sessions.ids()));
        ids
    }

    /// Runs `f` on the application: the handler of the first shard, the only one unless the
    /// endpoint is [`sharded`](McpHttp::sharded) (under its lock: keep it short). See
    /// [`McpHttp::for_each_handler`] for every shard's.
    pub fn with_handler<R>(&self, f: impl FnOnce(&mut H) -> R) -> R {
        f(&mut self.inner.shard(0).handler)
    }

    /// Runs `f` on every shard's handler in turn, each under its shard's lock.
    pub fn for_each_handler(&self, mut f: impl FnMut(&mut H)) {
        self.each_shard(|state| f(&mut state.handler));
    }

    /// Runs `f` on every engine in turn with its shard's handler, then transmits what it wrote:
    /// each shard's stateless 2026-07-28 engine, then each of its legacy sessions'. To tell every
    /// client of what the application learned outside a request ([`Engine::resource_updated`],
    /// [`Engine::list_changed`]), which each engine filters by its clients' subscriptions and
    /// capabilities (or [`McpHttp::announce`], which does it on every replica).
    pub fn for_each_engine(&self, mut f: impl FnMut(&mut crate::HttpEngine, &mut H)) {
        let now = self.now();
        self.each_shard(|state| {
            self.serve_stateless(state, now, &mut f);
            let State { handler, sessions, events, pool, .. } = state;
            for id in sessions.ids() {
                let Some(session) = sessions.get_mut(&id) else { continue };
                let context = (&self.inner.config, &mut *pool, events.as_mut(), id);
                session.serve(context, handler, now, &mut f);
            }
        });
    }

    /// Sends a notification (`params`: a JSON object, or none) to every legacy session, on its
    /// standalone stream (stored for replay while no client reads it): e.g.
    /// `notifications/tools/list_changed`. Returns how many sessions took it.
    pub fn notify_sessions(&self, method: &str, params: Option<&str>) -> usize {
        let now = self.now();
        let mut sent = 0;
        self.each_shard(|state| {
            let State { handler, sessions, events, pool, .. } = state;
            for id in sessions.ids() {
                let Some(session) = sessions.get_mut(&id) else { continue };
                let write = |w: &mut mcp_sansio::json::JsonWriter<'_>| w.raw(params.unwrap_or("{}").as_bytes());
                let with: Option<&dyn Fn(&mut mcp_sansio::json::JsonWriter<'_>)> = params.map(|_| &write as _);
                let context = (&self.inner.config, &mut *pool, events.as_mut(), id);
                if session.serve(context, handler, now, |engine, _| engine.notify(method, with)).is_ok() {
                    sent += 1;
                }
            }
        });
        sent
    }

    /// Runs `f` on `engine` (a legacy session's, or one of the stateless 2026-07-28 engines: the
    /// one [`serving`](crate::serving) named while the handler deferred a request) with its shard's
    /// application, then transmits what it wrote: finish deferred replies ([`Engine::reply_tool`]
    /// and friends), send notifications or requests to a legacy client ([`Engine::notify`],
    /// [`Engine::send_request`]). `None` if the session is not alive (or there is no such shard).
    pub fn with_engine<R>(
        &self,
        engine: impl Into<crate::Serving>,
        f: impl FnOnce(&mut crate::HttpEngine, &mut H) -> R,
    ) -> Option<R> {
        let now = self.now();
        match engine.into() {
            crate::Serving::Stateless(index) => {
                if index >= self.inner.shard_count() {
                    return None;
                }
                Some(self.serve_stateless(&mut self.inner.shard(index), now, f))
            }
            crate::Serving::Session(id) => {
                let mut guard = self.inner.session_shard(id);
                let state = &mut *guard;
                let session = state.sessions.get_mut(&id)?;
                let context = (&self.inner.config, &mut state.pool, state.events.as_mut(), id);
                Some(session.serve(context, &mut state.handler, now, f))
            }
        }
    }

    /// Runs `f` on the stateless engine of the shard `state`, then transmits what it wrote.
    pub(super) fn serve_stateless<R>(
        &self,
        state: &mut State<H>,
        now: Instant,
        f: impl FnOnce(&mut crate::HttpEngine, &mut H) -> R,
    ) -> R {
        let _serving = crate::serving::mark(crate::Serving::Stateless(state.index));
        let result = state.stateless.run(&mut state.handler, now, f);
        state.stateless_streams.drain(state.stateless.get(), &mut state.handler, now, None);
        result
    }
}
