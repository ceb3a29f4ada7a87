//! The legacy session table's upkeep: sessions idle past the timeout end (on their next request,
//! and by a sweep of all), and a full table makes room for a new session.

use std::time::Instant as StdInstant;

use mcp_sansio::http::SessionId;
use mcp_sansio::server::Handler;

use super::{McpHttp, State};

/// How often, at most, the legacy sessions are swept for the expired ones: each sweep walks every
/// session, so it is not done for every request.
const SWEEP_INTERVAL: std::time::Duration = std::time::Duration::from_secs(1);

impl<H: Handler + Send + 'static> McpHttp<H> {
    /// Removes the sessions idle past the timeout: at most once per [`SWEEP_INTERVAL`], or now with
    /// `force` (a full store about to refuse a session). A request always finds its own session
    /// expired when it is ([`McpHttp::live`]); the sweep ends those of clients that went away.
    pub(crate) fn sweep(&self, state: &mut State<H>, now: StdInstant, force: bool) {
        if !force && now < state.next_sweep {
            return;
        }
        state.next_sweep = now.checked_add(SWEEP_INTERVAL).unwrap_or(now);
        let timeout = self.inner.config.session_idle_timeout;
        let sessions = &mut state.sessions;
        let expired: Vec<SessionId> = sessions
            .ids()
            .into_iter()
            .filter(|id| sessions.get_mut(id).is_some_and(|s| s.expired(now, timeout)))
            .collect();
        for id in expired {
            tracing::debug!(session = ?id, "session expired");
            state.sessions.remove(&id);
            state.events.remove_session(id);
        }
    }

    /// Makes room in a full session table for a new session: ends the sessions idle past the
    /// timeout and, if the table is still full, the one unused the longest among those with no
    /// reader on any stream (its client's next request gets 404, and a client initializes again
    /// then, as the spec says). A flood of `initialize` requests so cannot lock other clients out
    /// for the idle timeout. `false` when every session has a reader: then the new one is refused.
    pub(crate) fn make_room(&self, state: &mut State<H>, now: StdInstant) -> bool {
        if !state.sessions.is_full() {
            return true;
        }
        self.sweep(state, now, true);
        if !state.sessions.is_full() {
            return true;
        }
        let sessions = &mut state.sessions;
        let idlest = sessions
            .ids()
            .into_iter()
            .filter_map(|id| sessions.get_mut(&id).filter(|s| s.open_streams() == 0).map(|s| (s.last_used(), id)))
            .min_by_key(|(last_used, _)| *last_used);
        let Some((_, id)) = idlest else { return false };
        tracing::debug!(session = ?id, "session ended to make room for a new one");
        state.sessions.remove(&id);
        state.events.remove_session(id);
        true
    }

    /// Whether `id` names a live session; one idle past the timeout ends here (its request gets
    /// 404, as an unknown session's).
    pub(crate) fn live(&self, state: &mut State<H>, id: SessionId, now: StdInstant) -> bool {
        let timeout = self.inner.config.session_idle_timeout;
        match state.sessions.get_mut(&id) {
            None => false,
            Some(session) if session.expired(now, timeout) => {
                tracing::debug!(session = ?id, "session expired");
                state.sessions.remove(&id);
                state.events.remove_session(id);
                false
            }
            Some(_) => true,
        }
    }
}
