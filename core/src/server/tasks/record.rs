//! [`TaskRecord`]: what one task table tells of a task it created
//! ([`TaskTable::take_created`](super::TaskTable::take_created)), so that another table answers for
//! it once the first is gone ([`TaskTable::adopt_failed`](super::TaskTable::adopt_failed)): the
//! replicas of an HTTP server keep it in their shared store.

use super::table::TASK_ID_LEN;
use crate::jsonrpc::Message;

/// The 2026-07-28 methods about one task, served by the engine that holds it.
pub const TASK_METHODS: [&str; 3] = ["tasks/get", "tasks/update", "tasks/cancel"];

/// The 2025-11-25 methods about one task of a session, served by the engine that holds it.
pub const SESSION_TASK_METHODS: [&str; 3] = ["tasks/get", "tasks/result", "tasks/cancel"];

/// The task a `tasks/get`, `tasks/update` or `tasks/cancel` request names (its `taskId`, unless
/// escaped): what an HTTP adapter routes such a request by, to the engine or replica that holds
/// the task. `None` for any other message.
pub fn named_task<'a>(message: &Message<'a>) -> Option<&'a str> {
    task_named_by(message, &TASK_METHODS)
}

/// [`named_task`] of a 2025-11-25 session's request: the task a `tasks/get`, `tasks/result` or
/// `tasks/cancel` names, which an HTTP adapter sends to the replica whose engine for the session
/// holds it.
pub fn named_session_task<'a>(message: &Message<'a>) -> Option<&'a str> {
    task_named_by(message, &SESSION_TASK_METHODS)
}

fn task_named_by<'a>(message: &Message<'a>, methods: &[&str]) -> Option<&'a str> {
    match message {
        Message::Request { method, params: Some(params), .. }
            if methods.iter().any(|m| method.raw() == m.as_bytes()) =>
        {
            params.get("taskId").and_then(|v| v.as_str()).and_then(|id| id.as_plain())
        }
        _ => None,
    }
}

/// A task as another replica needs to know it: its id, the authorization context it belongs to,
/// when it was created and how long it is kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TaskRecord {
    id: [u8; TASK_ID_LEN],
    owner: u64,
    created_unix_ms: u64,
    /// 0: not recorded (a record of an earlier layout).
    ttl_ms: u64,
}

impl TaskRecord {
    /// Bytes of [`TaskRecord::encode`]: a version byte, the id, the owner, the creation time and
    /// the time to live.
    pub const ENCODED_LEN: usize = 1 + TASK_ID_LEN + 8 + 8 + 8;

    /// The layout [`TaskRecord::encode`] writes.
    const VERSION: u8 = 2;
    /// The earlier layout, without the time to live, which [`TaskRecord::decode`] still reads.
    const VERSION_1: u8 = 1;

    pub(super) fn new(id: [u8; TASK_ID_LEN], owner: u64, created_unix_ms: u64, ttl_ms: u64) -> Self {
        TaskRecord { id, owner, created_unix_ms, ttl_ms }
    }

    /// The task's id.
    pub fn id(&self) -> &str {
        core::str::from_utf8(&self.id).unwrap_or_default()
    }

    pub(super) fn id_bytes(&self) -> &[u8; TASK_ID_LEN] {
        &self.id
    }

    /// The authorization context the task belongs to
    /// ([`TaskTable::set_owner`](super::TaskTable::set_owner)).
    pub fn owner(&self) -> u64 {
        self.owner
    }

    /// When the task was created, in milliseconds since 1970 (UTC).
    pub fn created_unix_ms(&self) -> u64 {
        self.created_unix_ms
    }

    /// How long the task is kept after its creation, in milliseconds (what its table allowed, or
    /// less if a 2025-11-25 request asked for less): how long a store needs the record. `None` for
    /// a record of the earlier layout, which did not say (its table's then).
    pub fn ttl_ms(&self) -> Option<u64> {
        (self.ttl_ms > 0).then_some(self.ttl_ms)
    }

    /// The record as bytes, for a store ([`TaskRecord::decode`] reads them back).
    pub fn encode(&self) -> [u8; Self::ENCODED_LEN] {
        let mut bytes = [0u8; Self::ENCODED_LEN];
        bytes[0] = Self::VERSION;
        bytes[1..=TASK_ID_LEN].copy_from_slice(&self.id);
        bytes[1 + TASK_ID_LEN..9 + TASK_ID_LEN].copy_from_slice(&self.owner.to_be_bytes());
        bytes[9 + TASK_ID_LEN..17 + TASK_ID_LEN].copy_from_slice(&self.created_unix_ms.to_be_bytes());
        bytes[17 + TASK_ID_LEN..].copy_from_slice(&self.ttl_ms.to_be_bytes());
        bytes
    }

    /// The record [`TaskRecord::encode`] wrote, or an earlier release wrote (without the time to
    /// live); `None` for other bytes (another length or layout, an id that is not lowercase hex).
    pub fn decode(bytes: &[u8]) -> Option<Self> {
        let (&version, _) = bytes.split_first()?;
        let expected = match version {
            Self::VERSION => Self::ENCODED_LEN,
            Self::VERSION_1 => Self::ENCODED_LEN - 8,
            _ => return None,
        };
        if bytes.len() != expected {
            return None;
        }
        let id: [u8; TASK_ID_LEN] = bytes[1..=TASK_ID_LEN].try_into().ok()?;
        if !id.iter().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(b)) {
            return None;
        }
        let word = |at: usize| bytes.get(at..at + 8)?.try_into().ok().map(u64::from_be_bytes);
        let (owner, created_unix_ms) = (word(1 + TASK_ID_LEN)?, word(9 + TASK_ID_LEN)?);
        Some(TaskRecord { id, owner, created_unix_ms, ttl_ms: word(17 + TASK_ID_LEN).unwrap_or(0) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::TaskStatus;
    use crate::server::tasks::{TaskSlot, TaskTable};
    use crate::time::{Duration, Instant};

    fn random(bytes: &mut [u8; 16]) {
        *bytes = [0x5a; 16];
    }

    /// A table on `slots` and `data`, its wall clock at 1,000 s past 1970 at `Instant` zero,
    /// keeping each task a minute.
    fn table<'a>(slots: &'a mut [TaskSlot; 2], data: &'a mut [u8; 1024]) -> TaskTable<'a> {
        let zero = Instant::from_millis(0);
        TaskTable::new(slots, data, random).with_wall_clock(zero, 1_000_000).with_ttl(Duration::from_secs(60))
    }

    #[test]
    fn a_task_created_in_one_table_is_answered_for_as_failed_by_another_until_its_ttl_ends() {
        let (mut slots_a, mut data_a) = ([TaskSlot::EMPTY; 2], [0u8; 1024]);
        let (mut slots_b, mut data_b) = ([TaskSlot::EMPTY; 2], [0u8; 1024]);
        let (mut a, mut b) = (table(&mut slots_a, &mut data_a), table(&mut slots_b, &mut data_b));
        a.set_owner(7);
        assert_eq!(a.take_created(), None);
        let created = Instant::from_millis(5_000);
        assert!(a.create(created, None, false).is_some());
        let record = a.take_created().expect("the task just created");
        assert_eq!(a.take_created(), None, "taken once");
        assert_eq!((record.id(), record.owner(), record.created_unix_ms()), (&*"5a".repeat(16), 7, 1_005_000));
        let bytes = record.encode();
        assert_eq!(TaskRecord::decode(&bytes), Some(record));
        assert_eq!(TaskRecord::decode(&bytes[1..]), None);
        let mut other = bytes;
        other[0] = 3;
        assert_eq!(TaskRecord::decode(&other), None, "another layout");
        other = bytes;
        other[1] = b'G';
        assert_eq!(TaskRecord::decode(&other), None, "not an id");

        let now = Instant::from_millis(20_000);
        assert!(b.adopt_failed(now, &record, "its replica stopped"));
        assert!(!b.adopt_failed(now, &record, "again"), "held already");
        b.set_owner(8);
        assert!(!b.contains(now, record.id()), "another authorization context's");
        b.set_owner(7);
        assert!(b.contains(now, record.id()));
        let i = b.find(now, record.id().as_bytes()).unwrap();
        assert_eq!(b.slot(i).map(TaskSlot::status), Some(TaskStatus::Failed));
        assert!(b.slot(i).unwrap().is_error());
        // Its time to live counts from its creation (5 s), not its adoption.
        assert!(b.contains(Instant::from_millis(64_999), record.id()));
        assert!(!b.contains(Instant::from_millis(65_000), record.id()));
        assert!(!b.adopt_failed(Instant::from_millis(65_000), &record, "too late"));
    }

    #[test]
    fn a_record_keeps_the_time_to_live_its_request_asked_for_and_an_earlier_layout_still_reads() {
        let (mut slots_a, mut data_a) = ([TaskSlot::EMPTY; 2], [0u8; 1024]);
        let (mut slots_b, mut data_b) = ([TaskSlot::EMPTY; 2], [0u8; 1024]);
        let (mut a, mut b) = (table(&mut slots_a, &mut data_a), table(&mut slots_b, &mut data_b));
        // A 2025-11-25 call asking for 10 s.
        let params = crate::json::parse(br#"{"name":"t","task":{"ttl":10000}}"#, 8).unwrap();
        assert!(a.create(Instant::from_millis(5_000), Some(params), true).is_some());
        let record = a.take_created().expect("created");
        assert_eq!(record.ttl_ms(), Some(10_000));
        assert_eq!(TaskRecord::decode(&record.encode()), Some(record));
        // Taken in as failed for what is left of those 10 s, not the table's minute.
        assert!(b.adopt_failed(Instant::from_millis(6_000), &record, "its replica stopped"));
        assert!(b.contains(Instant::from_millis(14_999), record.id()));
        assert!(!b.contains(Instant::from_millis(15_000), record.id()));
        assert!(!b.adopt_failed(Instant::from_millis(15_000), &record, "too late"));

        // The layout before the time to live: read, kept for the table's time to live.
        let mut earlier = [0u8; TaskRecord::ENCODED_LEN - 8];
        earlier.copy_from_slice(&record.encode()[..TaskRecord::ENCODED_LEN - 8]);
        earlier[0] = 1;
        let old = TaskRecord::decode(&earlier).expect("the earlier layout");
        assert_eq!((old.id(), old.ttl_ms()), (record.id(), None));
        assert_eq!(TaskRecord::decode(&record.encode()[..TaskRecord::ENCODED_LEN - 8]), None, "new layout cut short");
        let (mut slots_c, mut data_c) = ([TaskSlot::EMPTY; 2], [0u8; 1024]);
        let mut c = table(&mut slots_c, &mut data_c);
        assert!(c.adopt_failed(Instant::from_millis(20_000), &old, "its replica stopped"));
        assert!(c.contains(Instant::from_millis(64_999), old.id()));
    }

    #[test]
    fn a_request_about_one_task_names_it_in_each_era() {
        type Namer = for<'a> fn(&Message<'a>) -> Option<&'a str>;
        let namers: [(Namer, [&str; 3], &str); 2] =
            [(named_task, TASK_METHODS, "tasks/result"), (named_session_task, SESSION_TASK_METHODS, "tasks/update")];
        for (namer, methods, other_era) in namers {
            let named = |text: &str| {
                let parsed = crate::jsonrpc::ParsedMessage::parse(text.as_bytes(), 16);
                match parsed.message() {
                    Some(Ok(message)) => namer(&message).map(std::string::String::from),
                    _ => None,
                }
            };
            for method in methods {
                let text = std::format!(r#"{{"jsonrpc":"2.0","id":1,"method":"{method}","params":{{"taskId":"ab"}}}}"#);
                assert_eq!(named(&text).as_deref(), Some("ab"), "{method}");
            }
            let text = std::format!(r#"{{"jsonrpc":"2.0","id":1,"method":"{other_era}","params":{{"taskId":"ab"}}}}"#);
            assert_eq!(named(&text), None, "{other_era}");
            assert_eq!(named(r#"{"jsonrpc":"2.0","id":1,"method":"tasks/list","params":{"taskId":"ab"}}"#), None);
            assert_eq!(named(r#"{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{}}"#), None);
            let notification = r#"{"jsonrpc":"2.0","method":"tasks/get","params":{"taskId":"ab"}}"#;
            assert_eq!(named(notification), None, "a notification");
            assert_eq!(named(r#"{"jsonrpc":"2.0","id":1,"result":{"taskId":"ab"}}"#), None);
        }
    }
}
