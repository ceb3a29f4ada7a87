//! [`TaskTable`]: the tasks an engine keeps, in caller-provided memory.
//!
//! Each task has a slot (its id, status, times and the lengths below) and an equal share of the
//! byte area, laid out as `[request | state | payload | answers]`:
//! - request: the `tools/call` params' members but `inputResponses` and `requestState`, each
//!   followed by a comma (what the call is run again with after an input round);
//! - state: `"requestState":…,` when the last round kept state (the handler's, never on the wire);
//! - payload: the `result` (completed), the `error` (failed) or the `inputRequests` object
//!   (input required) as JSON text;
//! - answers: a JSON object with the answers to the current `inputRequests` received so far.
//!
//! What the shares hold once a handler answered is kept and read in `outcome.rs`.

use crate::json::{self, JsonWriter, Value};
use crate::mcp::TaskStatus;
use crate::storage::Storage;
use crate::time::{Duration, Instant};

use super::record::TaskRecord;

/// Length of a task id: 32 lowercase hex digits (128 random bits).
pub const TASK_ID_LEN: usize = 32;

/// How long a task is kept after it was created, unless the table says otherwise
/// ([`TaskTable::with_ttl`]): one hour.
pub const DEFAULT_TASK_TTL: Duration = Duration::from_secs(3600);

/// How often a client should poll, unless the table says otherwise
/// ([`TaskTable::with_poll_interval`]): every second.
pub const DEFAULT_POLL_INTERVAL: Duration = Duration::from_secs(1);

/// Deepest JSON kept in a task (its request, result and answers).
pub(super) const MAX_DEPTH: usize = json::MAX_DEPTH_LIMIT;

/// One task's bookkeeping; a table has as many as the slice it is given.
#[derive(Clone, Copy, Debug)]
pub struct TaskSlot {
    used: bool,
    /// The authorization context the task belongs to ([`TaskTable::set_owner`]).
    owner: u64,
    pub(super) id: [u8; TASK_ID_LEN],
    pub(super) status: TaskStatus,
    created: Instant,
    /// How long it is kept after `created`, in milliseconds: the table's time to live, or less
    /// when a 2025-11-25 request asked for less (`params.task.ttl`).
    pub(super) ttl_ms: u64,
    /// When the handler's `requestState` was kept (it was sealed then).
    pub(super) state_at: Instant,
    pub(super) created_unix: u64,
    pub(super) updated_unix: u64,
    pub(super) request: usize,
    pub(super) state: usize,
    pub(super) payload: usize,
    pub(super) answers: usize,
    /// Its status changed since the engine last told whoever waits on it (listen streams,
    /// `tasks/result` requests, a legacy session).
    changed: bool,
    /// Made by a 2025-11-25 (legacy) request: its wire shapes are that version's.
    pub(super) legacy: bool,
    /// Its payload is a JSON-RPC error object (else a result, or the open questions).
    pub(super) error: bool,
}

impl TaskSlot {
    /// An unused slot.
    pub const EMPTY: TaskSlot = TaskSlot {
        used: false,
        owner: 0,
        id: [b'0'; TASK_ID_LEN],
        status: TaskStatus::Working,
        created: Instant::from_millis(0),
        ttl_ms: 0,
        state_at: Instant::from_millis(0),
        created_unix: 0,
        updated_unix: 0,
        request: 0,
        state: 0,
        payload: 0,
        answers: 0,
        changed: false,
        legacy: false,
        error: false,
    };

    /// The task's id.
    pub fn id(&self) -> &str {
        core::str::from_utf8(&self.id).unwrap_or_default()
    }

    /// The task's status.
    pub fn status(&self) -> TaskStatus {
        self.status
    }

    /// When the handler's `requestState` it keeps was sealed.
    pub(crate) fn state_at(&self) -> Instant {
        self.state_at
    }

    /// Made by a 2025-11-25 request.
    pub(crate) fn is_legacy(&self) -> bool {
        self.legacy
    }

    /// Its outcome is a JSON-RPC error (not a result).
    pub(crate) fn is_error(&self) -> bool {
        self.error
    }
}

/// The slots of a table: borrowed, or with `alloc` owned.
pub(super) enum Slots<'a> {
    Borrowed(&'a mut [TaskSlot]),
    #[cfg(feature = "alloc")]
    Owned(alloc::boxed::Box<[TaskSlot]>),
}

impl Slots<'_> {
    pub(super) fn get(&mut self) -> &mut [TaskSlot] {
        match self {
            Slots::Borrowed(slots) => slots,
            #[cfg(feature = "alloc")]
            Slots::Owned(slots) => slots,
        }
    }

    fn read(&self) -> &[TaskSlot] {
        match self {
            Slots::Borrowed(slots) => slots,
            #[cfg(feature = "alloc")]
            Slots::Owned(slots) => slots,
        }
    }
}

/// The tasks of one engine ([`Engine::set_task_table`](crate::server::Engine::set_task_table)):
/// at most as many as it has slots, each at most `data.len() / (slots + 1)` bytes of request,
/// result and answers (one more share builds the request a task is run again with). A task is
/// kept until its time to live ends ([`DEFAULT_TASK_TTL`]); a full table creates no task (the
/// handler then answers without one, see [`ToolReply::run_as_task`](crate::server::ToolReply::run_as_task)).
///
/// Task ids are 128 bits from `random`, which must be unpredictable (`getrandom`, a hardware RNG):
/// a task id is all a client needs to read or cancel a task.
pub struct TaskTable<'a> {
    pub(super) slots: Slots<'a>,
    data: Storage<'a>,
    /// Where the request a task is run again with is built, taken out while it is in use.
    scratch: Option<Storage<'a>>,
    random: fn(&mut [u8; 16]),
    /// Milliseconds since 1970 at `Instant` zero: `createdAt` and `lastUpdatedAt` are wall-clock times.
    unix_at_zero: u64,
    pub(super) ttl: Duration,
    pub(super) poll_interval: Duration,
    /// The task being run again: an error written meanwhile is its outcome.
    pub(crate) running: Option<usize>,
    /// The latest time the engine gave the table (a deferred answer comes without one).
    pub(crate) last_now: Instant,
    /// The authorization context of the request being served ([`TaskTable::set_owner`]).
    owner: u64,
    /// Some task's status changed since the listen streams were told (see
    /// [`TaskTable::next_changed`]).
    pub(crate) changed: bool,
    /// The last try to tell them found the transmit window full.
    pub(crate) notes_blocked: bool,
    /// The task the last request created, until [`TaskTable::take_created`] takes it.
    created: Option<usize>,
    /// The questions of a 2025-11-25 task out with the client (see `ask`).
    pub(crate) asking: Option<super::ask::Asking>,
    /// A 2025-11-25 task's questions go out right after a `tasks/get` that read `input_required`,
    /// on the session's own stream ([`TaskTable::asking_through_tasks_result_only`]).
    pub(crate) asks_after_get: bool,
}

impl<'a> TaskTable<'a> {
    /// A table over `slots` and `data` (see the type's docs for how `data` is shared); ids from
    /// `random`.
    pub fn new(slots: &'a mut [TaskSlot], data: &'a mut [u8], random: fn(&mut [u8; 16])) -> Self {
        let share = data.len() / (slots.len() + 1);
        let (data, scratch) = data.split_at_mut(data.len() - share);
        TaskTable::with_parts(Slots::Borrowed(slots), data.into(), scratch.into(), random)
    }

    /// A table of `tasks` tasks of up to `bytes` bytes each, owned.
    #[cfg(feature = "alloc")]
    pub fn owned(tasks: usize, bytes: usize, random: fn(&mut [u8; 16])) -> TaskTable<'static> {
        let slots = alloc::vec![TaskSlot::EMPTY; tasks].into_boxed_slice();
        let data = Storage::from(alloc::vec![0u8; tasks * bytes]);
        let scratch = Storage::from(alloc::vec![0u8; bytes]);
        TaskTable::with_parts(Slots::Owned(slots), data, scratch, random)
    }

    fn with_parts(slots: Slots<'a>, data: Storage<'a>, scratch: Storage<'a>, random: fn(&mut [u8; 16])) -> Self {
        TaskTable {
            slots,
            data,
            scratch: Some(scratch),
            random,
            unix_at_zero: 0,
            ttl: DEFAULT_TASK_TTL,
            poll_interval: DEFAULT_POLL_INTERVAL,
            running: None,
            last_now: Instant::from_millis(0),
            owner: 0,
            changed: false,
            notes_blocked: false,
            created: None,
            asking: None,
            asks_after_get: true,
        }
    }

    /// Sets the wall clock: `unix_ms` milliseconds since 1970 (UTC) at the engine's `now`.
    /// Without it, times are counted from 1970-01-01 at `Instant` zero.
    #[must_use]
    pub fn with_wall_clock(mut self, now: Instant, unix_ms: u64) -> Self {
        self.unix_at_zero = unix_ms.saturating_sub(now.as_millis());
        self
    }

    /// Sets how long a task is kept after it was created (`ttlMs`); a 2025-11-25 request may ask
    /// for less (`params.task.ttl`), never more.
    #[must_use]
    pub fn with_ttl(mut self, ttl: Duration) -> Self {
        self.ttl = ttl;
        self
    }

    /// Sets how often clients should poll (`pollIntervalMs`).
    #[must_use]
    pub fn with_poll_interval(mut self, poll_interval: Duration) -> Self {
        self.poll_interval = poll_interval;
        self
    }

    /// Sends a 2025-11-25 task's questions only on the stream of a `tasks/result` waiting for the
    /// task, as the spec has the client call it on seeing `input_required`; not right after a
    /// `tasks/get` that read that status, on the session's own stream, for clients that only poll.
    /// For a session whose own stream may be read elsewhere: a Streamable HTTP session shared by
    /// replicas, whose client's `GET` stream may be on another replica than the task.
    #[must_use]
    pub fn asking_through_tasks_result_only(mut self) -> Self {
        self.asks_after_get = false;
        self
    }

    /// Tells the table the time. An answer given between engine calls ([`Engine::reply_tool`]) is
    /// stamped with the latest time the table was told; the engine tells it with every input,
    /// transmit and timeout, and an adapter that answers from elsewhere may tell it first.
    ///
    /// [`Engine::reply_tool`]: crate::server::Engine::reply_tool
    pub fn set_now(&mut self, now: Instant) {
        self.last_now = self.last_now.max(now);
    }

    /// Sets the authorization context of the requests served from now on (0, the default: none):
    /// a task belongs to the context of the request that created it, and `tasks/get`,
    /// `tasks/update` and `tasks/cancel` of another context find no such task (`-32602`, as for
    /// an unknown id). A transport that authorizes requests sets it before each one (the HTTP
    /// endpoint: a hash of the bearer token's subject).
    pub fn set_owner(&mut self, owner: u64) {
        self.owner = owner;
    }

    /// How many tasks are kept (expired ones included until a lookup drops them).
    pub fn len(&mut self) -> usize {
        self.slots.get().iter().filter(|s| s.used).count()
    }

    /// Whether no task is kept.
    pub fn is_empty(&mut self) -> bool {
        self.len() == 0
    }

    fn share(&mut self) -> usize {
        let slots = self.slots.get().len();
        self.data.len().checked_div(slots).unwrap_or(0)
    }

    /// The byte area of slot `i`.
    pub(super) fn area(&mut self, i: usize) -> &mut [u8] {
        let share = self.share();
        self.data.get_mut(i * share..(i + 1) * share).unwrap_or_default()
    }

    fn unix(&self, now: Instant) -> u64 {
        self.unix_at_zero.saturating_add(now.as_millis())
    }

    /// When the time to live of task `id` ends, if the table holds it.
    pub(crate) fn expiry(&self, id: &[u8]) -> Option<Instant> {
        let slot = self.slots.read().iter().find(|s| s.used && s.id[..] == *id)?;
        Some(slot.created + Duration::from_millis(slot.ttl_ms))
    }

    /// Frees the tasks whose time to live has ended.
    pub(crate) fn expire(&mut self, now: Instant) {
        self.last_now = self.last_now.max(now);
        let mut expired = false;
        for slot in self.slots.get().iter_mut().filter(|s| s.used) {
            if now.saturating_duration_since(slot.created).as_millis() >= slot.ttl_ms {
                slot.used = false;
                expired = true;
            }
        }
        // Whoever waits on an expired task is told (a 2025-11-25 `tasks/result`).
        self.changed |= expired;
    }

    /// Whether a task is alive at the latest time the table was given (one whose time to live has
    /// not ended, whoever it belongs to).
    pub(crate) fn holds_live(&self) -> bool {
        let now = self.last_now;
        self.slots.read().iter().any(|s| s.used && now.saturating_duration_since(s.created).as_millis() < s.ttl_ms)
    }

    /// Creates a working task for a call whose params are `params` (a 2025-11-25 call: `legacy`);
    /// `None` when every slot is taken or the request does not fit a slot.
    pub(crate) fn create(&mut self, now: Instant, params: Option<Value<'_>>, legacy: bool) -> Option<usize> {
        self.expire(now);
        let i = self.slots.get().iter().position(|s| !s.used)?;
        // 2025-11-25's requested retention, at least a millisecond, at most the table's.
        let asked = params.filter(|_| legacy).and_then(|p| p.get("task")).and_then(|t| t.get("ttl"));
        let ttl_ms =
            asked.and_then(|t| t.as_u64()).map_or(self.ttl.as_millis(), |t| t.max(1).min(self.ttl.as_millis()));
        let area = self.area(i);
        let mut w = JsonWriter::new(area);
        crate::mcp::input::write_members_but_input(&mut w, params);
        if w.is_overflowed() {
            return None;
        }
        let request = w.len();
        let mut random = [0u8; 16];
        (self.random)(&mut random);
        let mut id = [0u8; TASK_ID_LEN];
        for (pair, byte) in id.chunks_exact_mut(2).zip(random) {
            pair[0] = b"0123456789abcdef"[usize::from(byte >> 4)];
            pair[1] = b"0123456789abcdef"[usize::from(byte & 15)];
        }
        let unix = self.unix(now);
        let owner = self.owner;
        let slot = &mut self.slots.get()[i];
        *slot = TaskSlot {
            used: true,
            owner,
            id,
            status: TaskStatus::Working,
            created: now,
            ttl_ms,
            state_at: now,
            created_unix: unix,
            updated_unix: unix,
            request,
            state: 0,
            payload: 0,
            answers: 0,
            changed: false,
            legacy,
            error: false,
        };
        self.created = Some(i);
        Some(i)
    }

    /// The task the last request created, if it is still kept, taken once: what an HTTP adapter
    /// records for the replicas that may be asked about it once this one is gone
    /// ([`TaskTable::adopt_failed`]).
    pub fn take_created(&mut self) -> Option<TaskRecord> {
        let i = self.created.take()?;
        let slot = self.slot(i)?;
        Some(TaskRecord::new(slot.id, slot.owner, slot.created_unix, slot.ttl_ms))
    }

    /// Keeps, failed with an internal error saying `message`, the task `record` names, which
    /// another table created and can no longer serve (the replica that ran it stopped): asked
    /// about by its authorization context, it answers as failed until its time to live (the
    /// record's, at most this table's), counted from its creation, ends. `false` if its time to
    /// live has ended, the table holds that id already or has no free slot.
    pub fn adopt_failed(&mut self, now: Instant, record: &TaskRecord, message: &str) -> bool {
        self.expire(now);
        let unix = self.unix(now);
        let age = unix.saturating_sub(record.created_unix_ms());
        let ttl_ms = record.ttl_ms().map_or(self.ttl.as_millis(), |ttl| ttl.min(self.ttl.as_millis()));
        if age >= ttl_ms || self.find_any(now, record.id().as_bytes()).is_some() {
            return false;
        }
        let Some(i) = self.slots.get().iter().position(|s| !s.used) else { return false };
        // A working task with no request kept, failed at once.
        self.slots.get()[i] = TaskSlot {
            used: true,
            owner: record.owner(),
            id: *record.id_bytes(),
            created: Instant::from_millis(now.as_millis().saturating_sub(age)),
            ttl_ms,
            state_at: now,
            created_unix: record.created_unix_ms(),
            updated_unix: unix,
            ..TaskSlot::EMPTY
        };
        self.fail(i, now, message);
        true
    }

    /// Whether the table holds the live task named `id` of the current authorization context
    /// ([`TaskTable::set_owner`]) at `now`: an HTTP adapter sends a request for a task it does not
    /// hold to the replica that does.
    pub fn contains(&mut self, now: Instant, id: &str) -> bool {
        self.find(now, id.as_bytes()).is_some()
    }

    /// The live task named `id`, of the current authorization context ([`TaskTable::set_owner`]).
    pub(crate) fn find(&mut self, now: Instant, id: &[u8]) -> Option<usize> {
        let owner = self.owner;
        self.find_any(now, id).filter(|&i| self.slots.get()[i].owner == owner)
    }

    /// The first live task of the current authorization context at slot `from` or after.
    pub(crate) fn next_live(&mut self, now: Instant, from: usize) -> Option<usize> {
        self.expire(now);
        let owner = self.owner;
        let slots = self.slots.get();
        (from..slots.len()).find(|&i| slots[i].used && slots[i].owner == owner)
    }

    /// The live task named `id`, whoever it belongs to (the engine's own lookups: a task's answer,
    /// a task run again).
    pub(crate) fn find_any(&mut self, now: Instant, id: &[u8]) -> Option<usize> {
        self.expire(now);
        self.slots.get().iter().position(|s| s.used && s.id[..] == *id)
    }

    pub(crate) fn slot(&mut self, i: usize) -> Option<&TaskSlot> {
        self.slots.get().get(i).filter(|s| s.used)
    }

    pub(super) fn set_status(&mut self, i: usize, now: Instant, status: TaskStatus) {
        let unix = self.unix(now);
        if let Some(slot) = self.slots.get().get_mut(i) {
            slot.status = status;
            slot.updated_unix = unix;
            slot.changed = true;
            self.changed = true;
        }
    }

    /// A live task whose status changed since [`TaskTable::told`] was last called for it: for the
    /// `notifications/tasks` of the listen streams that follow it.
    pub(crate) fn next_changed(&mut self) -> Option<usize> {
        let next = self.slots.get().iter().position(|s| s.used && s.changed);
        if next.is_none() {
            self.changed = false;
        }
        next
    }

    /// The listen streams have been told of task `i`'s status.
    pub(crate) fn told(&mut self, i: usize) {
        if let Some(slot) = self.slots.get().get_mut(i) {
            slot.changed = false;
        }
    }

    /// Cancels task `i` unless it has ended. `true` if it was cancelled now.
    pub(crate) fn cancel(&mut self, i: usize, now: Instant) -> bool {
        let live = self.slot(i).is_some_and(|s| !s.status.is_terminal());
        if live {
            self.set_status(i, now, TaskStatus::Cancelled);
        }
        live
    }

    /// The buffer a task's request is run again in, until [`TaskTable::put_scratch`].
    pub(crate) fn take_scratch(&mut self) -> Option<Storage<'a>> {
        self.scratch.take()
    }

    pub(crate) fn put_scratch(&mut self, scratch: Storage<'a>) {
        self.scratch = Some(scratch);
    }
}
