//! Requests sent to the peer: their ids, deadlines and routes, until an answer or a timeout.

use crate::endpoint::Route;
use crate::json::{JsonStr, Value};
use crate::jsonrpc::Id;
use crate::time::Instant;

/// Names a request this endpoint sent, to match it with its [`Response`]. The wire id is an integer
/// the endpoint chose ([`OutboundKey::id`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct OutboundKey(i64);

impl OutboundKey {
    /// The key of the request sent with the wire id `id` (for a caller that keeps requests by
    /// their wire ids, as an HTTP transport matching exchanges to requests does).
    pub const fn from_id(id: i64) -> Self {
        OutboundKey(id)
    }

    /// The JSON-RPC id the request was sent with.
    pub const fn id(self) -> i64 {
        self.0
    }
}

/// The answer to a request this endpoint sent, or its absence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Response<'a> {
    /// Which request.
    pub request: OutboundKey,
    /// What came of it.
    pub outcome: Outcome<'a>,
}

/// What came of a request sent to the peer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Outcome<'a> {
    /// The peer answered with a result (borrowed from the received message).
    Result(Value<'a>),
    /// The peer answered with an error.
    Error {
        /// `error.code` (`0` if the peer sent none).
        code: i64,
        /// `error.message`, if it is a string.
        message: Option<JsonStr<'a>>,
        /// `error.data`, if present.
        data: Option<Value<'a>>,
    },
    /// No answer came before the deadline: the request was cancelled on the wire
    /// (`notifications/cancelled`) and a late answer will be ignored.
    TimedOut,
    /// The input ended before an answer came: nobody is left to answer.
    Closed,
}

impl<'a> Outcome<'a> {
    /// Reads a JSON-RPC `error` object.
    pub(crate) fn from_error(error: Value<'a>) -> Self {
        Outcome::Error {
            code: error.get("code").and_then(|c| c.as_i64()).unwrap_or(0),
            message: error.get("message").and_then(|m| m.as_str()),
            data: error.get("data"),
        }
    }
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Entry {
    pub(crate) key: OutboundKey,
    pub(crate) deadline: Option<Instant>,
    pub(crate) route: Route,
    /// Timed out; the `notifications/cancelled` still has to be written (when the transmit buffer
    /// has room).
    pub(crate) cancel_pending: bool,
}

/// The table of requests awaiting an answer; `N` slots.
#[derive(Debug)]
pub(crate) struct OutboundTable<const N: usize> {
    entries: [Option<Entry>; N],
    next_id: i64,
}

impl<const N: usize> OutboundTable<N> {
    pub(crate) const fn new() -> Self {
        OutboundTable { entries: [None; N], next_id: 1 }
    }

    /// How many requests await an answer (timed-out ones whose cancellation is still to be written
    /// included).
    pub(crate) fn len(&self) -> usize {
        self.entries.iter().flatten().count()
    }

    /// The id the next request gets (kept across engines by `Engine::suspend`: ids are never reused
    /// in a session).
    pub(crate) fn next_id(&self) -> i64 {
        self.next_id
    }

    pub(crate) fn set_next_id(&mut self, next: i64) {
        self.next_id = next;
    }

    /// A slot is free.
    pub(crate) fn has_room(&self) -> bool {
        self.entries.iter().any(Option::is_none)
    }

    /// How many slots are free.
    pub(crate) fn free(&self) -> usize {
        N - self.len()
    }

    /// The key the next request will get (its wire id), without taking it.
    pub(crate) fn next_key(&self) -> OutboundKey {
        OutboundKey(self.next_id)
    }

    /// Records a request sent with [`OutboundTable::next_key`].
    pub(crate) fn insert(&mut self, deadline: Option<Instant>, route: Route) -> Option<OutboundKey> {
        let key = self.next_key();
        let slot = self.entries.iter_mut().find(|slot| slot.is_none())?;
        *slot = Some(Entry { key, deadline, route, cancel_pending: false });
        // Ids stay positive and unique for the table's life (2^63 requests).
        self.next_id = self.next_id.checked_add(1).unwrap_or(1);
        Some(key)
    }

    /// Takes the entry a response with `id` answers; `None` if this endpoint is not waiting for it.
    pub(crate) fn take(&mut self, id: Id<'_>) -> Option<Entry> {
        let Id::Number(id) = id else { return None };
        let slot = self.entries.iter_mut().find(|slot| slot.is_some_and(|e| e.key.0 == id && !e.cancel_pending))?;
        slot.take()
    }

    /// Whether `key` still awaits an answer (not timed out or cancelled).
    #[cfg(feature = "client")]
    pub(crate) fn is_waiting(&self, key: OutboundKey) -> bool {
        self.entries.iter().flatten().any(|e| e.key == key && !e.cancel_pending)
    }

    /// Moves the deadline of `key`, still waiting (not timed out or cancelled). `false` if it is
    /// not.
    #[cfg(feature = "client")]
    pub(crate) fn set_deadline(&mut self, key: OutboundKey, deadline: Option<Instant>) -> bool {
        match self.entries.iter_mut().flatten().find(|e| e.key == key && !e.cancel_pending) {
            Some(entry) => {
                entry.deadline = deadline;
                true
            }
            None => false,
        }
    }

    /// The earliest deadline of a request still waiting.
    pub(crate) fn next_deadline(&self) -> Option<Instant> {
        self.entries.iter().flatten().filter(|e| !e.cancel_pending).filter_map(|e| e.deadline).min()
    }

    /// Marks the first request whose deadline passed at `now` as timed out, and returns it.
    pub(crate) fn expire_one(&mut self, now: Instant) -> Option<Entry> {
        let entry = self
            .entries
            .iter_mut()
            .flatten()
            .find(|e| !e.cancel_pending && e.deadline.is_some_and(|deadline| deadline <= now))?;
        entry.cancel_pending = true;
        Some(*entry)
    }

    /// Gives up on a request still waiting: its cancellation is to be written and a late answer is
    /// ignored. `false` if the request is not waiting (answered, timed out or unknown).
    pub(crate) fn cancel(&mut self, key: OutboundKey) -> bool {
        match self.entries.iter_mut().flatten().find(|e| e.key == key && !e.cancel_pending) {
            Some(entry) => {
                entry.cancel_pending = true;
                true
            }
            None => false,
        }
    }

    /// A timed-out request whose cancellation is still to be written.
    pub(crate) fn cancel_pending(&self) -> Option<Entry> {
        self.entries.iter().flatten().find(|e| e.cancel_pending).copied()
    }

    /// Forgets a request (its cancellation was written, or nothing more is to be sent).
    pub(crate) fn remove(&mut self, key: OutboundKey) {
        for slot in &mut self.entries {
            if slot.is_some_and(|e| e.key == key) {
                *slot = None;
            }
        }
    }

    /// Takes any request out of the table (to end them all when the peer is gone).
    pub(crate) fn take_any(&mut self) -> Option<Entry> {
        self.entries.iter_mut().find(|slot| slot.is_some())?.take()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_are_matched_by_integer_id_and_expire_in_order() {
        let mut table = OutboundTable::<2>::new();
        let a = table.insert(Some(Instant::from_millis(50)), Route::BYTE_STREAM).unwrap();
        let b = table.insert(Some(Instant::from_millis(20)), Route::BYTE_STREAM).unwrap();
        assert_ne!(a, b);
        assert!(!table.has_room());
        assert!(table.insert(None, Route::BYTE_STREAM).is_none());
        assert_eq!(table.next_deadline(), Some(Instant::from_millis(20)));
        // A string id never matches; the integer id does.
        let string_one = crate::json::parse(b"\"1\"", 4).ok().and_then(Id::from_value).unwrap();
        assert!(table.take(string_one).is_none());
        assert_eq!(table.take(Id::Number(a.id())).map(|e| e.key), Some(a));
        assert!(table.take(Id::Number(a.id())).is_none());
        assert!(table.expire_one(Instant::from_millis(19)).is_none());
        let expired = table.expire_one(Instant::from_millis(20)).unwrap();
        assert_eq!(expired.key, b);
        // Timed out: no longer a deadline, a late answer is not matched, the cancel still pending.
        assert_eq!(table.next_deadline(), None);
        assert!(table.take(Id::Number(b.id())).is_none());
        assert_eq!(table.cancel_pending().map(|e| e.key), Some(b));
        table.remove(b);
        assert_eq!(table.len(), 0);
    }
}
