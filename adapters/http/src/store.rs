//! Where a legacy session's SSE events wait for a client that resumes with `Last-Event-ID`.

use std::collections::VecDeque;

use bytes::Bytes;
use mcp_sansio::frame::EventId;
use mcp_sansio::http::SessionId;

use crate::hash::IdMap;
use crate::state::LegacySession;

/// Keeps the live legacy sessions. Implementations must be bounded ([`SessionStore::is_full`]):
/// an `initialize` that finds the store full gets 503.
pub trait SessionStore: Send + 'static {
    /// The session `id`, if it is alive.
    fn get_mut(&mut self, id: &SessionId) -> Option<&mut LegacySession>;
    /// Adds a session; gives it back if the store is full.
    fn insert(&mut self, id: SessionId, session: Box<LegacySession>) -> Result<(), Box<LegacySession>>;
    /// Removes (ends) a session.
    fn remove(&mut self, id: &SessionId) -> Option<Box<LegacySession>>;
    /// How many sessions are alive.
    fn len(&self) -> usize;
    /// Whether no session is alive.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Whether another session would be refused.
    fn is_full(&self) -> bool;
    /// The ids of the live sessions (for expiry and for notifications to every session).
    fn ids(&self) -> Vec<SessionId>;
}

/// The default [`SessionStore`]: a map in memory holding at most `max_sessions`.
pub struct MemorySessionStore {
    max_sessions: usize,
    sessions: IdMap<SessionId, Box<LegacySession>>,
}

impl MemorySessionStore {
    /// A store for at most `max_sessions` sessions.
    pub fn new(max_sessions: usize) -> Self {
        MemorySessionStore { max_sessions, sessions: IdMap::default() }
    }
}

impl SessionStore for MemorySessionStore {
    fn get_mut(&mut self, id: &SessionId) -> Option<&mut LegacySession> {
        self.sessions.get_mut(id).map(|s| &mut **s)
    }
    fn insert(&mut self, id: SessionId, session: Box<LegacySession>) -> Result<(), Box<LegacySession>> {
        if self.is_full() {
            return Err(session);
        }
        self.sessions.insert(id, session);
        Ok(())
    }
    fn remove(&mut self, id: &SessionId) -> Option<Box<LegacySession>> {
        self.sessions.remove(id)
    }
    fn len(&self) -> usize {
        self.sessions.len()
    }
    fn is_full(&self) -> bool {
        self.sessions.len() >= self.max_sessions
    }
    fn ids(&self) -> Vec<SessionId> {
        self.sessions.keys().copied().collect()
    }
}

/// What a resumed stream still holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum StreamState {
    /// The stream is still open: more events may follow the replay.
    Open,
    /// The stream has ended (its response was sent): the replay is all there is.
    Ended,
}

/// Stores the SSE events of legacy sessions for replay. Implementations must be bounded: an event
/// evicted before the client resumes is lost to it.
pub trait EventStore: Send + 'static {
    /// Records `event` (whole, framing included) of `session`, named `id`.
    fn append(&mut self, session: SessionId, id: EventId, event: Bytes);
    /// Records that `stream` of `session` has ended. `delivered`: its reader took every event of
    /// it, the last included, so only a connection that broke after that needs a replay; a store
    /// may let such streams' events go first.
    fn end_stream(&mut self, session: SessionId, stream: u32, delivered: bool);
    /// Calls `replay` with each stored event of `after.stream()` whose sequence follows `after`,
    /// oldest first, and says whether that stream has ended.
    fn replay(&self, session: SessionId, after: EventId, replay: &mut dyn FnMut(&Bytes)) -> StreamState;
    /// Forgets everything of `session` (ended or expired).
    fn remove_session(&mut self, session: SessionId);
}

/// Bounds of [`MemoryEventStore`], per session.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EventLimits {
    /// Most events kept (oldest evicted first).
    pub max_events: usize,
    /// Most bytes of events kept.
    pub max_bytes: usize,
    /// Most ended streams remembered as ended (older ones are reported ended as well, since
    /// unknown streams are).
    pub max_ended_streams: usize,
    /// Of the streams that ended delivered (see [`EventStore::end_stream`]), how many most recent
    /// ones keep their events, for a client whose connection broke at the very end; older ones'
    /// events are dropped. Without this bound a busy session would hold `max_events` answers it
    /// has delivered already.
    pub max_delivered_streams: usize,
    /// Most bytes of events kept for all sessions together. Past it the session that holds the
    /// most loses its oldest events first (down to 7/8 of this bound, so that eviction is not
    /// repeated at every event): a session flooding its streams evicts its own events before any
    /// other session's.
    pub max_total_bytes: usize,
}

impl Default for EventLimits {
    fn default() -> Self {
        EventLimits {
            max_events: 1024,
            max_bytes: 1 << 20,
            max_ended_streams: 256,
            max_delivered_streams: 4,
            max_total_bytes: 64 << 20,
        }
    }
}

#[derive(Default)]
struct SessionEvents {
    events: VecDeque<(EventId, Bytes)>,
    bytes: usize,
    ended: VecDeque<u32>,
    /// The most recent streams that ended delivered, whose events are still kept, oldest first.
    delivered: VecDeque<u32>,
    /// Streams that had an event or were ended (to tell an open stream from an unknown one).
    open: Vec<u32>,
    /// The highest stream id seen: a stream above it is new (ids grow; after they wrap, the
    /// lists are searched).
    highest: u32,
}

/// The default [`EventStore`]: bounded per-session queues in memory.
#[derive(Default)]
pub struct MemoryEventStore {
    limits: EventLimits,
    sessions: IdMap<SessionId, SessionEvents>,
    /// Bytes of events kept, all sessions together.
    total: usize,
}

impl MemoryEventStore {
    /// A store with `limits`.
    pub fn new(limits: EventLimits) -> Self {
        MemoryEventStore { limits, sessions: IdMap::default(), total: 0 }
    }

    /// Evicts the oldest events of the sessions holding the most until the store holds at most 7/8
    /// of [`EventLimits::max_total_bytes`].
    fn bound_total(&mut self) {
        if self.total <= self.limits.max_total_bytes {
            return;
        }
        let target = self.limits.max_total_bytes - self.limits.max_total_bytes / 8;
        // Each round cuts the largest session down to the next largest's size (or by the excess),
        // evicting at least one event: bounded by the events held.
        while self.total > target {
            let mut sizes = self.sessions.values_mut().map(|s| s.bytes).collect::<Vec<_>>();
            sizes.sort_unstable_by(|a, b| b.cmp(a));
            let next = sizes.get(1).copied().unwrap_or(0);
            let Some(largest) = self.sessions.values_mut().max_by_key(|s| s.bytes) else { break };
            if largest.bytes == 0 {
                break;
            }
            // At least one event goes each round (sessions of equal size take turns).
            let keep = next.max(largest.bytes.saturating_sub(self.total - target)).min(largest.bytes - 1);
            while largest.bytes > keep {
                let Some((_, old)) = largest.events.pop_front() else { break };
                largest.bytes -= old.len();
                self.total -= old.len();
            }
        }
    }
}

impl EventStore for MemoryEventStore {
    fn append(&mut self, session: SessionId, id: EventId, event: Bytes) {
        let limits = self.limits;
        let s = self.sessions.entry(session).or_default();
        if event.len() > limits.max_bytes {
            return;
        }
        s.bytes += event.len();
        self.total += event.len();
        s.events.push_back((id, event));
        while s.events.len() > limits.max_events || s.bytes > limits.max_bytes {
            match s.events.pop_front() {
                Some((_, old)) => {
                    s.bytes -= old.len();
                    self.total -= old.len();
                }
                None => break,
            }
        }
        let stream = id.stream();
        if stream > s.highest {
            // A new stream (its first event): neither open nor ended, no search.
            s.highest = stream;
            s.open.push(stream);
        } else if !s.open.contains(&stream) && !s.ended.contains(&stream) {
            s.open.push(stream);
        }
        self.bound_total();
    }

    fn end_stream(&mut self, session: SessionId, stream: u32, delivered: bool) {
        let limits = self.limits;
        let s = self.sessions.entry(session).or_default();
        s.open.retain(|&open| open != stream);
        s.highest = s.highest.max(stream);
        s.ended.push_back(stream);
        while s.ended.len() > limits.max_ended_streams {
            s.ended.pop_front();
        }
        if delivered {
            s.delivered.push_back(stream);
            while s.delivered.len() > limits.max_delivered_streams {
                let Some(old) = s.delivered.pop_front() else { break };
                let (bytes, total) = (&mut s.bytes, &mut self.total);
                s.events.retain(|(id, event)| {
                    let keep = id.stream() != old;
                    if !keep {
                        *bytes -= event.len();
                        *total -= event.len();
                    }
                    keep
                });
            }
        }
    }

    fn replay(&self, session: SessionId, after: EventId, replay: &mut dyn FnMut(&Bytes)) -> StreamState {
        let Some(s) = self.sessions.get(&session) else { return StreamState::Ended };
        for (id, event) in &s.events {
            if id.stream() == after.stream() && id.sequence() > after.sequence() {
                replay(event);
            }
        }
        if s.open.contains(&after.stream()) { StreamState::Open } else { StreamState::Ended }
    }

    fn remove_session(&mut self, session: SessionId) {
        if let Some(s) = self.sessions.remove(&session) {
            self.total -= s.bytes;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_below_the_highest_seen_are_told_open_or_ended_by_search() {
        let sid = SessionId::from_random([2; 16]);
        let mut store = MemoryEventStore::new(EventLimits::default());
        let state = |store: &MemoryEventStore, stream| store.replay(sid, EventId::new(stream, 0), &mut |_| {});
        store.append(sid, EventId::new(9, 1), Bytes::from("a"));
        store.end_stream(sid, 9, false);
        // Lower ids (after a wrap, or out of order): new ones open, an ended one stays ended.
        store.append(sid, EventId::new(3, 1), Bytes::from("b"));
        store.append(sid, EventId::new(9, 2), Bytes::from("late"));
        assert_eq!(state(&store, 3), StreamState::Open);
        assert_eq!(state(&store, 9), StreamState::Ended);
        store.append(sid, EventId::new(12, 1), Bytes::from("c"));
        assert_eq!(state(&store, 12), StreamState::Open);
        assert_eq!(state(&store, 7), StreamState::Ended, "never seen");
    }

    #[test]
    fn replays_one_stream_after_the_given_event_within_bounds() {
        let sid = SessionId::from_random([1; 16]);
        let mut store = MemoryEventStore::new(EventLimits {
            max_events: 3,
            max_bytes: 100,
            max_ended_streams: 1,
            max_delivered_streams: 1,
            max_total_bytes: 1 << 20,
        });
        for seq in 1..=4 {
            store.append(sid, EventId::new(1 + (seq as u32 % 2), seq), Bytes::from(format!("e{seq}")));
        }
        let mut got = Vec::new();
        let state = store.replay(sid, EventId::new(1, 0), &mut |b| got.push(b.clone()));
        // Event 1 (stream 2) was evicted; stream 1 holds 2 and 4.
        assert_eq!(got, [Bytes::from("e2"), Bytes::from("e4")]);
        assert_eq!(state, StreamState::Open);
        store.end_stream(sid, 1, false);
        got.clear();
        assert_eq!(store.replay(sid, EventId::new(1, 2), &mut |b| got.push(b.clone())), StreamState::Ended);
        assert_eq!(got, [Bytes::from("e4")]);
        store.remove_session(sid);
        assert_eq!(store.replay(sid, EventId::new(1, 0), &mut |_| panic!("forgotten")), StreamState::Ended);
    }

    #[test]
    fn delivered_streams_keep_their_events_only_while_among_the_most_recent() {
        let sid = SessionId::from_random([2; 16]);
        let limits = EventLimits { max_delivered_streams: 2, ..EventLimits::default() };
        let mut store = MemoryEventStore::new(limits);
        let events = |store: &MemoryEventStore, stream| {
            let mut got = Vec::new();
            store.replay(sid, EventId::new(stream, 0), &mut |b| got.push(b.clone()));
            got
        };
        // Stream 1 ends with its reader gone: kept whatever follows.
        store.append(sid, EventId::new(1, 1), Bytes::from("lost"));
        store.end_stream(sid, 1, false);
        for stream in 2..=4 {
            store.append(sid, EventId::new(stream, 1), Bytes::from(format!("s{stream}")));
            store.end_stream(sid, stream, true);
        }
        // Stream 2 was the oldest of three delivered ones: its events are gone, and their bytes.
        assert_eq!(events(&store, 2), Vec::<Bytes>::new());
        assert_eq!(events(&store, 3), [Bytes::from("s3")]);
        assert_eq!(events(&store, 4), [Bytes::from("s4")]);
        assert_eq!(events(&store, 1), [Bytes::from("lost")]);
        let s = &store.sessions[&sid];
        assert_eq!(s.bytes, "lost".len() + 2 * "s3".len());
        assert_eq!(s.events.len(), 3);
    }

    #[test]
    fn all_sessions_together_stay_within_the_total_and_the_largest_session_pays_first() {
        let limits = EventLimits { max_total_bytes: 8_000, ..EventLimits::default() };
        let mut store = MemoryEventStore::new(limits);
        let quiet = SessionId::from_random([1; 16]);
        let flood = SessionId::from_random([2; 16]);
        let event = Bytes::from(vec![b'x'; 100]);
        for seq in 1..=10 {
            store.append(quiet, EventId::new(2, seq), event.clone());
        }
        for seq in 1..=500 {
            store.append(flood, EventId::new(2, seq), event.clone());
            assert!(store.total <= limits.max_total_bytes, "{} after {seq}", store.total);
        }
        let bytes = |store: &MemoryEventStore, s: SessionId| store.sessions[&s].bytes;
        assert_eq!(bytes(&store, quiet), 1_000, "the quiet session keeps all its events");
        assert_eq!(store.total, bytes(&store, quiet) + bytes(&store, flood));
        // The flood kept its newest events.
        let mut last = Vec::new();
        store.replay(flood, EventId::new(2, 0), &mut |b| last.push(b.clone()));
        assert!(!last.is_empty() && last.len() < 500);
        store.remove_session(flood);
        assert_eq!(store.total, 1_000);
        // Two sessions over the total together: the larger one is cut each time, so neither is
        // emptied and they end up near each other's size.
        for seq in 11..=80 {
            store.append(quiet, EventId::new(3, seq), event.clone());
        }
        for seq in 1..=40 {
            store.append(flood, EventId::new(3, seq), event.clone());
        }
        assert!(store.total <= limits.max_total_bytes);
        let (q, f) = (bytes(&store, quiet), bytes(&store, flood));
        assert!(q > 0 && f > 0 && q.abs_diff(f) <= limits.max_total_bytes / 8, "{q} {f}");
        // Sessions of equal size over the total take turns.
        let mut even = MemoryEventStore::new(EventLimits { max_total_bytes: 1_000, ..limits });
        for seq in 1..=20 {
            for session in [quiet, flood] {
                even.append(session, EventId::new(2, seq), Bytes::from(vec![b'y'; 50]));
            }
        }
        let (q, f) = (bytes(&even, quiet), bytes(&even, flood));
        assert!(even.total <= 1_000 && q.abs_diff(f) <= 100, "{q} {f}");
    }
}
