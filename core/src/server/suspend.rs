//! A quiescent engine's session, kept without the engine: a server with many idle legacy
//! sessions (Streamable HTTP) frees each idle session's engine and buffers and keeps a few dozen
//! bytes instead ([`Engine::suspend`], [`Engine::resume`]).

use crate::server::engine::Engine;
use crate::server::{ListChanges, Session};
use crate::version::ProtocolVersion;

/// What a suspended engine's session negotiated and set: its version, the client's capabilities,
/// its log level, its resource subscriptions, and the counters that keep its SSE event ids, its
/// own request ids and its deferred-reply keys unique across the engines that serve it. Small and
/// `Copy`; see [`Engine::suspend`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SessionState {
    session: Session,
    next_generation: u32,
    next_event: u64,
    next_request_id: i64,
}

impl SessionState {
    /// The negotiated protocol version (`None` before `initialize`).
    pub fn version(&self) -> Option<ProtocolVersion> {
        match self.session {
            Session::None => None,
            Session::Legacy { version, .. } => Some(version),
        }
    }
}

impl<'a, const IN_FLIGHT: usize, const OUTBOUND: usize> Engine<'a, IN_FLIGHT, OUTBOUND> {
    /// The session, if the engine holds nothing else: nothing to transmit, no partial input, no
    /// request being answered, deferred, waiting for the client's input or being listened on, no
    /// request of its own waiting for an answer, no announcement pending, input not ended. Then
    /// the engine (and its buffers) can be dropped and the session continued later by
    /// [`resume`](Self::resume) on a new engine with the same configuration, as if this one had
    /// never stopped. `None` otherwise: keep this engine.
    pub fn suspend(&self) -> Option<SessionState> {
        let quiet = self.ep.out.tx.is_empty()
            && self.ep.rx.buffered() == 0
            && self.in_flight.iter().all(Option::is_none)
            && self.ep.out.outbound.len() == 0
            && !self.awaiting_input()
            && self.batch.is_none()
            && self.pending_changes == ListChanges::NONE
            && self.ep.is_open();
        quiet.then_some(SessionState {
            session: self.session,
            next_generation: self.next_generation,
            next_event: self.ep.out.tx.next_event(),
            next_request_id: self.ep.out.outbound.next_id(),
        })
    }

    /// Continues `state`'s session on this engine, which must be new (no input yet): it then
    /// answers as the suspended engine would have. The notification route, the input buffer and
    /// the other settings of the engine are not part of the state: set them as for the first
    /// engine.
    pub fn resume(&mut self, state: SessionState) {
        self.session = state.session;
        self.next_generation = state.next_generation;
        self.ep.out.tx.set_next_event(state.next_event);
        self.ep.out.outbound.set_next_id(state.next_request_id);
    }
}
