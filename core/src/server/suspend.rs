//! A quiescent engine's session, kept without the engine: a server with many idle legacy
//! sessions (Streamable HTTP) frees each idle session's engine and buffers and keeps a few dozen
//! bytes instead ([`Engine::suspend`], [`Engine::resume`]).

use crate::mcp::LoggingLevel;
use crate::server::engine::Engine;
use crate::server::subscriptions::{MAX_SUBSCRIPTIONS, UriSet};
use crate::server::{ListChanges, Session};
use crate::version::ProtocolVersion;

/// The first byte of [`SessionState::encode`]'s output: its layout's version.
const ENCODING: u8 = 1;
/// The version byte of a state with no session yet.
const NONE: u8 = 0xFF;

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
    /// Length of [`encode`](Self::encode)'s output.
    pub const ENCODED_LEN: usize = 57;

    /// The state as bytes, to keep it outside the process (a store shared by the replicas of a
    /// server, so that any of them continues the session): read back by [`decode`](Self::decode)
    /// of the same or a later release of this crate.
    pub fn encode(&self) -> [u8; Self::ENCODED_LEN] {
        let mut out = [0u8; Self::ENCODED_LEN];
        out[0] = ENCODING;
        if let Session::Legacy { version, ready, client, log_level, subscriptions } = &self.session {
            out[1] = ProtocolVersion::ALL.iter().position(|v| v == version).map_or(NONE, |i| i as u8);
            let roots = client.roots.map_or(0, |r| 1 | u8::from(r.list_changed) << 1);
            let flags = [ready, &client.sampling, &client.sampling_tools, &client.elicitation_form]
                .into_iter()
                .chain([&client.elicitation_url, &client.tasks])
                .enumerate()
                .fold(roots, |acc, (i, &on)| acc | u8::from(on) << (i + 2));
            out[2] = flags;
            out[3] = LoggingLevel::ALL.iter().position(|l| l == log_level).unwrap_or(0) as u8;
            let (hashes, len) = subscriptions.parts();
            out[4] = len;
            for (slot, hash) in out[5..5 + 4 * MAX_SUBSCRIPTIONS].chunks_exact_mut(4).zip(hashes) {
                slot.copy_from_slice(&hash.to_le_bytes());
            }
        } else {
            out[1] = NONE;
        }
        let counters = 5 + 4 * MAX_SUBSCRIPTIONS;
        out[counters..counters + 4].copy_from_slice(&self.next_generation.to_le_bytes());
        out[counters + 4..counters + 12].copy_from_slice(&self.next_event.to_le_bytes());
        out[counters + 12..counters + 20].copy_from_slice(&self.next_request_id.to_le_bytes());
        out
    }

    /// The state [`encode`](Self::encode) wrote, or `None` if `bytes` are not such a state.
    pub fn decode(bytes: &[u8]) -> Option<Self> {
        let bytes: &[u8; Self::ENCODED_LEN] = bytes.try_into().ok()?;
        if bytes[0] != ENCODING {
            return None;
        }
        let session = match bytes[1] {
            NONE => Session::None,
            index => {
                let version = *ProtocolVersion::ALL.get(usize::from(index))?;
                let flags = bytes[2];
                let on = |bit: u8| flags & (1 << bit) != 0;
                let client = crate::mcp::ClientCapabilities {
                    roots: on(0).then_some(crate::mcp::ListCapability { list_changed: on(1) }),
                    sampling: on(3),
                    sampling_tools: on(4),
                    elicitation_form: on(5),
                    elicitation_url: on(6),
                    tasks: on(7),
                };
                let log_level = *LoggingLevel::ALL.get(usize::from(bytes[3]))?;
                let len = bytes[4];
                let mut hashes = [0u32; MAX_SUBSCRIPTIONS];
                for (hash, slot) in hashes.iter_mut().zip(bytes[5..].chunks_exact(4)) {
                    *hash = u32::from_le_bytes(slot.try_into().ok()?);
                }
                let subscriptions = UriSet::from_parts(hashes, len)?;
                Session::Legacy { version, ready: on(2), client, log_level, subscriptions }
            }
        };
        let counters = 5 + 4 * MAX_SUBSCRIPTIONS;
        let word = |at: usize| -> Option<[u8; 8]> { bytes.get(at..at + 8)?.try_into().ok() };
        Some(SessionState {
            session,
            next_generation: u32::from_le_bytes(bytes[counters..counters + 4].try_into().ok()?),
            next_event: u64::from_le_bytes(word(counters + 4)?),
            next_request_id: i64::from_le_bytes(word(counters + 12)?),
        })
    }

    /// Whether `other` holds the same session (version, client, log level, subscriptions),
    /// whatever its counters: a state kept outside the process needs writing again only when
    /// this changed.
    pub fn same_session(&self, other: &SessionState) -> bool {
        self.session == other.session
    }

    /// This session with each counter the larger of its own and `other`'s: an engine that
    /// continues a session from a copy kept elsewhere ([`encode`](Self::encode)) never gives out
    /// again an id it gave out before (`other`: its own last state).
    pub fn with_counters_of(self, other: &SessionState) -> SessionState {
        SessionState {
            next_generation: self.next_generation.max(other.next_generation),
            next_event: self.next_event.max(other.next_event),
            next_request_id: self.next_request_id.max(other.next_request_id),
            ..self
        }
    }

    /// The id the engine resumed from this state gives its next request to the client.
    pub fn next_request_id(&self) -> i64 {
        self.next_request_id
    }

    /// This state with `next` as the id of the next request to the client (positive; ids count
    /// up from it). The replicas sharing a session each give out ids of a range of their own
    /// (mcp-sansio-http's `HttpConfig::replica`): their counters are not shared, so two of them
    /// could otherwise wait for an answer under the same id, and take each other's.
    #[must_use]
    pub fn with_next_request_id(self, next: i64) -> SessionState {
        SessionState { next_request_id: next.max(1), ..self }
    }

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
    /// request of its own waiting for an answer, no announcement pending, no live task, input not
    /// ended. Then
    /// the engine (and its buffers) can be dropped and the session continued later by
    /// [`resume`](Self::resume) on a new engine with the same configuration, as if this one had
    /// never stopped. `None` otherwise: keep this engine.
    pub fn suspend(&self) -> Option<SessionState> {
        let quiet = self.ep.out.tx.is_empty()
            && self.ep.rx.buffered() == 0
            && self.in_flight.iter().all(crate::server::reply::InFlight::is_free)
            && self.ep.out.outbound.len() == 0
            && !self.awaiting_input()
            && self.batch.is_none()
            && self.pending_changes == ListChanges::NONE
            && self.ep.is_open()
            && self.holds_no_task();
        quiet.then(|| self.session_state())
    }

    /// Whether the engine's task table holds no live task (a task lives in its engine: a session
    /// with one is not suspended).
    fn holds_no_task(&self) -> bool {
        #[cfg(feature = "tasks")]
        if self.tasks.as_ref().is_some_and(crate::server::tasks::TaskTable::holds_live) {
            return false;
        }
        true
    }

    /// The session as [`suspend`](Self::suspend) would keep it, whether or not the engine holds
    /// anything else: to keep a copy outside the process while the engine works on (a store shared
    /// by replicas, [`SessionState::encode`]). Resuming it on another engine continues the session
    /// but not what this one holds.
    pub fn session_state(&self) -> SessionState {
        SessionState {
            session: self.session,
            next_generation: self.next_generation,
            next_event: self.ep.out.tx.next_event(),
            next_request_id: self.ep.out.outbound.next_id(),
        }
    }

    /// Takes the settings of `state`, the same session as another engine serving it changed it
    /// (`notifications/initialized`, the log level, resource subscriptions), keeping everything
    /// else this engine holds and its own counters: an engine that stays awake (a live task) while
    /// other processes serve the session's other requests (replicas sharing the session). A state
    /// of another protocol version, or of no session, is ignored.
    pub fn refresh_session(&mut self, state: SessionState) {
        let mine = self.session_state().version();
        if mine.is_some() && mine == state.version() {
            self.session = state.session;
        }
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
