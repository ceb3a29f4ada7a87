//! Tasks: a `tools/call` answered with a task that runs on (the 2026-07-28 extension
//! `io.modelcontextprotocol/tasks`, SEP-2663). Feature `tasks`.
//!
//! Give the engine a [`TaskTable`] ([`Engine::set_task_table`]); it then declares the extension in
//! `server/discover` and serves `tasks/get`, `tasks/update` and `tasks/cancel`. The server decides
//! which calls become tasks: a handler turns a call into one with [`ToolReply::run_as_task`] (which
//! works only when the request declared the extension in its `_meta` client capabilities), and from
//! then on writes the call's answer as always — at once, or deferred and answered later with
//! [`Engine::reply_tool`] — except that the answer is kept as the task's outcome instead of being
//! sent; the client's request is answered with the task (`resultType: "task"`) as soon as the
//! handler answers or defers.
//!
//! - **Outcome**: a result completes the task (a tool result with `isError: true` too), an error
//!   fails it; `tasks/get` inlines `result` or `error`.
//! - **Input**: an input-required answer ([`ToolReply::input_required`]) makes the task
//!   `input_required` with those `inputRequests`; the client answers with `tasks/update` (any subset
//!   of the keys; keys not waited for are ignored) and once every request is answered, the engine
//!   calls the handler again with the same params and the answers as `inputResponses` (and the
//!   handler's `requestState`, kept in the table, never on the wire), as a retry would be served.
//!   The handler cannot tell a task's round from a retry's.
//! - **Cancel**: `tasks/cancel` ends a task `cancelled` and tells the handler
//!   ([`Event::Cancelled`](crate::server::Event::Cancelled) with its deferred request's key); its
//!   later answer is dropped ([`ReplyError::Cancelled`](crate::server::ReplyError::Cancelled)).
//!   Cancelling a task that has ended is acknowledged and changes nothing.
//! - **Tool support**: a tool with [`TaskSupport::Required`](crate::mcp::TaskSupport::Required)
//!   called by a client that did not declare the extension is answered `-32021` naming it, before
//!   the handler runs. `tasks/*` without the extension: `-32021` too; an unknown or expired task
//!   id: `-32602`. `tasks/result` and `tasks/list` do not exist in 2026-07-28 (`-32601`).
//! - **Status notifications**: a `subscriptions/listen` request (feature `subscriptions`) that
//!   declared the extension may name tasks in `notifications.taskIds`; the acknowledgement lists
//!   those of its authorization context the table knows, and each new status of one of them is sent
//!   on that stream as `notifications/tasks`, the task as `tasks/get` gives it (status changes made
//!   outside a request, by a deferred answer, make [`Engine::poll_timeout`] due at once).
//! - **Limits**: the table's slots and byte shares ([`TaskTable`]); a task is kept for its time to
//!   live ([`DEFAULT_TASK_TTL`]) from its creation, then dropped.
//!
//! **2025-11-25's experimental tasks**, in a legacy session of that version with a task table:
//! the engine declares `capabilities.tasks` (`list`, `cancel`, `requests.tools.call`) and lists a
//! tool's support as `execution.taskSupport`; a `tools/call` with `params.task` may become a task
//! ([`ToolReply::run_as_task`] is `Ok` then), answered with `{"task": {…}}`, kept for the
//! `params.task.ttl` it asked for when that is shorter than the table's; `tasks/get` gives the
//! `Task` (`ttl`, `pollInterval`; a failed task's `statusMessage`), `tasks/result` waits for the
//! task to end and answers what its request would have been answered with (the result, naming the
//! task in `_meta` `io.modelcontextprotocol/related-task`, or the error; `-32603` for a cancelled
//! task; `-32602` when the task expires: its expiry is an [`Engine::poll_timeout`] deadline
//! while a `tasks/result` waits), `tasks/list` pages the tasks of the caller's authorization
//! context, `tasks/cancel`
//! answers the cancelled `Task` (`-32602` for one that has ended), and each new status is told
//! with `notifications/tasks/status`. A tool result with `isError: true` fails its task in this
//! version. A tool that runs only as a task, called without `params.task`, is answered `-32601`.
//! A legacy task that asks the client for input ([`ToolReply::input_required`], or
//! [`Engine::reply_input`] when deferred) becomes `input_required`; its questions go to the client
//! as requests on the stream of the `tasks/result` that waits for it, and it runs again once every
//! answer is in (see `ask`). The HTTP adapter gives task tables to its stateless engine only:
//! legacy Streamable HTTP sessions have no tasks.
//!
//! [`Engine::set_task_table`]: crate::server::Engine::set_task_table
//! [`Engine::reply_input`]: crate::server::Engine::reply_input
//! [`Engine::poll_timeout`]: crate::server::Engine::poll_timeout
//! [`Engine::reply_tool`]: crate::server::Engine::reply_tool
//! [`ToolReply::run_as_task`]: crate::server::ToolReply::run_as_task
//! [`ToolReply::input_required`]: crate::server::ToolReply::input_required

mod ask;
pub(crate) mod legacy;
mod methods;
mod outcome;
mod record;
mod table;
mod wire;

use core::fmt;

use crate::endpoint::{Framing, Route, StreamId};
use crate::json::{JsonWriter, Value};
use crate::jsonrpc::{MAX_ID_LEN, OwnedId};
use crate::time::Instant;

pub(crate) use ask::{
    ask as ask_task_input, forget as forget_task_input, input_ended as task_input_ended,
    timed_out as task_input_timed_out,
};
pub use record::{SESSION_TASK_METHODS, TASK_METHODS, TaskRecord, named_session_task, named_task};
pub use table::{DEFAULT_POLL_INTERVAL, DEFAULT_TASK_TTL, TASK_ID_LEN, TaskSlot, TaskTable};
pub(crate) use wire::TaskWire;

/// Why a 2025-11-25 call of a tool that runs only as a task, without `params.task`, is refused
/// (`-32601`).
pub(crate) const TASK_PARAM_REQUIRED: &str = "this tool runs only as a task: call it with \"task\" in its params";

/// Where a task's answer goes: nowhere on the wire; the engine keeps it in the table.
pub(crate) const TASK_ROUTE: Route = Route::new(StreamId::INTERNAL, Framing::Ndjson);

/// Why a call cannot become a task ([`ToolReply::run_as_task`](crate::server::ToolReply::run_as_task)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum NoTask {
    /// The engine has no task table, or the request cannot be a task: a 2026-07-28 request that
    /// did not declare the tasks extension, a 2025-11-25 one that did not ask for a task
    /// (`params.task`), an older one.
    Unavailable,
    /// Every slot of the task table is taken, or the request does not fit one.
    Full,
}

impl fmt::Display for NoTask {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            NoTask::Unavailable => {
                "the request cannot become a task (no tasks extension or task param, or no task table)"
            }
            NoTask::Full => "the task table is full",
        })
    }
}

impl core::error::Error for NoTask {}

/// What a reply needs of the task table (the table's lifetime hidden).
pub(crate) trait TaskSink {
    fn create(&mut self, now: Instant, params: Option<Value<'_>>, legacy: bool) -> Option<usize>;
    fn capture(&mut self, slot: usize, now: Instant, message: &[u8]);
    fn write_task(&mut self, slot: usize, w: &mut JsonWriter<'_>, wire: TaskWire);
    fn owned_id(&mut self, slot: usize) -> Option<OwnedId>;
}

impl TaskSink for TaskTable<'_> {
    fn create(&mut self, now: Instant, params: Option<Value<'_>>, legacy: bool) -> Option<usize> {
        TaskTable::create(self, now, params, legacy)
    }

    fn capture(&mut self, slot: usize, now: Instant, message: &[u8]) {
        TaskTable::capture(self, slot, now, message);
    }

    fn write_task(&mut self, slot: usize, w: &mut JsonWriter<'_>, wire: TaskWire) {
        TaskTable::write_task(self, slot, w, wire);
    }

    fn owned_id(&mut self, slot: usize) -> Option<OwnedId> {
        let id = self.slot(slot)?.id();
        heapless::String::<MAX_ID_LEN>::try_from(id).ok().map(OwnedId::String)
    }
}

/// A reply's link to the task table.
pub(crate) struct TaskScope<'a> {
    pub(crate) table: &'a mut dyn TaskSink,
    pub(crate) now: Instant,
    /// The task whose answer the reply writes (captured, not sent).
    pub(crate) slot: Option<usize>,
    /// The reply answers the client's request: once a task's, it answers with the task.
    pub(crate) fresh: bool,
    /// The request's params, kept by a task made of it.
    pub(crate) params: Option<Value<'a>>,
    /// A 2025-11-25 request that asked for a task (`params.task`).
    pub(crate) legacy: bool,
}

impl<'a> TaskScope<'a> {
    /// The scope of the existing task in `slot` of `table`: a reply that writes its answer (not a
    /// client's request asking for a new task).
    pub(crate) fn existing(table: &'a mut dyn TaskSink, now: Instant, slot: usize) -> Self {
        TaskScope { table, now, slot: Some(slot), fresh: false, params: None, legacy: false }
    }
}
