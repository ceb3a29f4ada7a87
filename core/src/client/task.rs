//! The client's side of tasks, in both eras: the 2026-07-28 extension
//! `io.modelcontextprotocol/tasks` (SEP-2663) and 2025-11-25's experimental tasks. Reading a
//! task answer ([`Task::created`]) and a `tasks/get` result ([`Task::read`],
//! [`DetailedTask::read`]); writing a task-augmented `tools/call` (2025-11-25:
//! [`Engine::call_tool_as_task`]), `tasks/get`, `tasks/cancel`, `tasks/result` (2025-11-25) and
//! `tasks/update` (2026-07-28) ([`Engine::get_task`], [`Engine::cancel_task`],
//! [`Engine::task_result`], [`Engine::answer_task`]).
//!
//! The engine keeps no state about tasks: following one (waiting [`Task::poll_delay`] between
//! polls, answering its questions, cancelling it when the application gives up) is the caller's,
//! as the host API does it for every runtime (`mcp_sansio_driver::host`).
//!
//! The eras differ in how a task's outcome and questions reach the client. 2026-07-28 inlines them
//! in the `tasks/get` result (`result`, `error`, `inputRequests`) and takes answers with
//! `tasks/update`. 2025-11-25 gives them to `tasks/result`, which the server answers once the
//! task has ended (with the request's own result or error), and sends the task's questions as
//! requests to the client, each naming the task in `_meta` (`io.modelcontextprotocol/related-task`),
//! answered like any other request from the server ([`Handler::on_input`]).

use core::cell::{Cell, RefCell};
use core::fmt;

use crate::client::engine::{Params, write_named};
use crate::client::incoming::{is_declared, write_input_answers};
use crate::client::{Engine, Handler, State};
use crate::endpoint::{OutboundKey, SendError};
use crate::json::{JsonStr, JsonWriter, Kind, Value};
use crate::mcp::TaskStatus;
use crate::mcp::input::ReceivedInput;
use crate::time::{Duration, Instant};
use crate::version::{Era, ProtocolVersion};

/// The shortest wait between two polls of a task, whatever `pollIntervalMs` the server asks
/// for (a server asking for 0 ms is not polled in a busy loop).
pub const MIN_POLL_INTERVAL: Duration = Duration::from_millis(100);
/// The longest wait between two polls of a task, whatever `pollIntervalMs` the server asks for
/// (a task that ends is seen within this long, however long the server's interval).
pub const MAX_POLL_INTERVAL: Duration = Duration::from_secs(30);
/// The wait between two polls of a task whose server names no `pollIntervalMs`.
pub const DEFAULT_POLL_INTERVAL: Duration = Duration::from_secs(1);

/// A task, as a server describes it (a `CreateTaskResult`, or the task of a `tasks/get` result),
/// borrowed from the message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Task<'a> {
    /// `taskId`: what `tasks/get`, `tasks/update` and `tasks/cancel` name.
    pub id: JsonStr<'a>,
    /// `status`.
    pub status: TaskStatus,
    /// `statusMessage`, if given.
    pub status_message: Option<JsonStr<'a>>,
    /// `createdAt` (ISO 8601), if given.
    pub created_at: Option<JsonStr<'a>>,
    /// `lastUpdatedAt` (ISO 8601), if given.
    pub last_updated_at: Option<JsonStr<'a>>,
    /// `ttlMs`: how long the server keeps the task from its creation; `None` when unlimited
    /// (`null`) or not given.
    pub ttl: Option<Duration>,
    /// `pollIntervalMs`: how often the server would be polled, if it says.
    pub poll_interval: Option<Duration>,
}

impl<'a> Task<'a> {
    /// The task of a `tools/call` the server turned into a task: an answer with `resultType:
    /// "task"` (2026-07-28), or a 2025-11-25 `CreateTaskResult` (`{"task":{…}}`, without
    /// `resultType`). `None` for any other result (one with `resultType: "complete"`,
    /// `input_required` or none), or a task without a `taskId` or a known `status`.
    pub fn created(result: Value<'a>) -> Option<Self> {
        Task::created_object(result).and_then(Task::read)
    }

    /// The object that holds the task of a [`Task::created`] answer: the result itself
    /// (2026-07-28), or its `task` member (2025-11-25); `None` for any other result.
    pub fn created_object(result: Value<'a>) -> Option<Value<'a>> {
        match result.get("resultType").and_then(|t| t.as_str()) {
            Some(result_type) => result_type.eq_str("task").then_some(result),
            None => result.get("task"),
        }
    }

    /// Reads the task members of an object (`taskId`, `status`, …; `ttl` and `pollInterval` under
    /// their 2025-11-25 names too); `None` without a string `taskId` or a known `status`.
    pub fn read(value: Value<'a>) -> Option<Self> {
        if value.kind() != Kind::Object {
            return None;
        }
        let [id, status, message, created, updated, ttl, poll, legacy_ttl, legacy_poll] = value.get_all([
            "taskId",
            "status",
            "statusMessage",
            "createdAt",
            "lastUpdatedAt",
            "ttlMs",
            "pollIntervalMs",
            // 2025-11-25's names.
            "ttl",
            "pollInterval",
        ]);
        let text = |v: Option<Value<'a>>| v.and_then(|v| v.as_str());
        let millis = |v: Option<Value<'a>>| v.and_then(|v| v.as_u64()).map(Duration::from_millis);
        Some(Task {
            id: text(id)?,
            status: text(status)?.as_plain().and_then(TaskStatus::from_wire)?,
            status_message: text(message),
            created_at: text(created),
            last_updated_at: text(updated),
            ttl: millis(ttl).or(millis(legacy_ttl)),
            poll_interval: millis(poll).or(millis(legacy_poll)),
        })
    }

    /// How long to wait before polling the task again: its `pollIntervalMs` within
    /// [`MIN_POLL_INTERVAL`] and [`MAX_POLL_INTERVAL`], or [`DEFAULT_POLL_INTERVAL`] without one.
    pub fn poll_delay(&self) -> Duration {
        self.poll_interval.map_or(DEFAULT_POLL_INTERVAL, |asked| asked.clamp(MIN_POLL_INTERVAL, MAX_POLL_INTERVAL))
    }
}

/// Where a task stands, with what its status carries in a `tasks/get` result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum TaskState<'a> {
    /// `working`: poll again later.
    Working,
    /// `input_required`: the server's questions, the `inputRequests` object (each member a key
    /// and `{"method":…,"params":…}`), answered with [`Engine::answer_task`].
    InputRequired {
        /// `inputRequests`.
        requests: Value<'a>,
    },
    /// `completed`: the request's result (a `CallToolResult`, one with `isError: true`
    /// included), as if the request had answered it.
    Completed {
        /// `result`.
        result: Value<'a>,
    },
    /// `failed`: the JSON-RPC error the request ended with.
    Failed {
        /// `error.code` (`0` if the server sent none).
        code: i64,
        /// `error.message`, if it is a string.
        message: Option<JsonStr<'a>>,
        /// `error.data`, if present.
        data: Option<Value<'a>>,
    },
    /// `cancelled`.
    Cancelled,
}

/// A `tasks/get` result: the task and what its status carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct DetailedTask<'a> {
    /// The task.
    pub task: Task<'a>,
    /// Its state, with the result, error or questions of its status.
    pub state: TaskState<'a>,
}

impl<'a> DetailedTask<'a> {
    /// Reads a `tasks/get` result; `None` when it is no task, or lacks what its status carries
    /// (a `result` object when completed, an `error` object when failed, an `inputRequests`
    /// object when input is required).
    pub fn read(result: Value<'a>) -> Option<Self> {
        let task = Task::read(result)?;
        let object = |key: &str| result.get(key).filter(|v| v.kind() == Kind::Object);
        let state = match task.status {
            TaskStatus::Working => TaskState::Working,
            TaskStatus::InputRequired => TaskState::InputRequired { requests: object("inputRequests")? },
            TaskStatus::Completed => TaskState::Completed { result: object("result")? },
            TaskStatus::Failed => {
                let error = object("error")?;
                TaskState::Failed {
                    code: error.get("code").and_then(|c| c.as_i64()).unwrap_or(0),
                    message: error.get("message").and_then(|m| m.as_str()),
                    data: error.get("data"),
                }
            }
            TaskStatus::Cancelled => TaskState::Cancelled,
        };
        Some(DetailedTask { task, state })
    }
}

/// Why [`Engine::answer_task`] sent nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum TaskInputError {
    /// `inputRequests` is not an object, or one of its entries is no input request this client
    /// reads.
    Unreadable,
    /// The server asks for input whose capability the client did not declare (the method).
    Undeclared(&'static str),
    /// The handler refused to answer (the method).
    Refused(&'static str),
    /// The request could not be written.
    Send(SendError),
}

impl fmt::Display for TaskInputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TaskInputError::Unreadable => f.write_str("the task's input requests cannot be read"),
            TaskInputError::Undeclared(method) => {
                write!(f, "the task asks for {method}, which this client does not offer")
            }
            TaskInputError::Refused(method) => write!(f, "the client did not answer the task's {method}"),
            TaskInputError::Send(error) => write!(f, "cannot send tasks/update: {error}"),
        }
    }
}

impl core::error::Error for TaskInputError {}

impl<const OUTBOUND: usize> Engine<'_, OUTBOUND> {
    /// Whether this session has tasks: 2026-07-28, or 2025-11-25 (whose experimental tasks the
    /// server must declare for [`Engine::call_tool_as_task`]).
    pub fn has_tasks(&self) -> bool {
        self.task_era().is_ok()
    }

    /// `tools/call` of the tool `name` with `arguments`, asking the server to run it as a task
    /// (2025-11-25: `params.task`, with `ttl` when given): the answer is a `CreateTaskResult`
    /// ([`Task::created`]), followed with [`Engine::get_task`] and [`Engine::task_result`]. In
    /// 2026-07-28 the server decides ([`Engine::call_tool`]), so this is
    /// [`SendError::NotAvailable`] there, as in a session before 2025-11-25 and with a server
    /// that does not declare task-augmented `tools/call`
    /// ([`ServerCapabilities::tasks`](crate::mcp::ServerCapabilities::tasks)).
    pub fn call_tool_as_task(
        &mut self,
        now: Instant,
        name: &str,
        arguments: Option<Value<'_>>,
        ttl: Option<Duration>,
    ) -> Result<OutboundKey, SendError> {
        if self.task_era()? != Era::Legacy || !self.server.tasks {
            return Err(SendError::NotAvailable);
        }
        self.request(
            now,
            "tools/call",
            Some(&|w: &mut JsonWriter<'_>| {
                write_named(w, "name", name, arguments);
                w.raw(b",\"task\":{");
                if let Some(ttl) = ttl {
                    w.key("ttl");
                    w.u64(ttl.as_millis());
                }
                w.byte(b'}');
            }),
        )
    }

    /// `tasks/get` of the task `id`: its answer (through [`Handler::on_response`]) is read with
    /// [`DetailedTask::read`] (2026-07-28) or [`Task::read`] (2025-11-25, where the outcome is
    /// [`Engine::task_result`]'s). [`SendError::NotAvailable`] unless the session has tasks
    /// ([`Engine::has_tasks`]).
    pub fn get_task(&mut self, now: Instant, id: &str) -> Result<OutboundKey, SendError> {
        self.task_request(now, "tasks/get", id, None)
    }

    /// `tasks/cancel` of the task `id`: the server acknowledges it (an empty result; 2025-11-25:
    /// the task) and ends the task `cancelled` when it can (cooperatively: a task may still end
    /// otherwise). See [`Engine::get_task`].
    pub fn cancel_task(&mut self, now: Instant, id: &str) -> Result<OutboundKey, SendError> {
        self.task_request(now, "tasks/cancel", id, None)
    }

    /// `tasks/result` of the task `id` (2025-11-25): answered once the task has ended, with the
    /// result (or the JSON-RPC error) of the request it runs; meanwhile the server may send the
    /// task's questions. [`SendError::NotAvailable`] outside a 2025-11-25 session (2026-07-28
    /// inlines the outcome in [`Engine::get_task`]'s answer).
    pub fn task_result(&mut self, now: Instant, id: &str) -> Result<OutboundKey, SendError> {
        if self.task_era()? != Era::Legacy {
            return Err(SendError::NotAvailable);
        }
        self.task_request(now, "tasks/result", id, None)
    }

    /// `tasks/list` (2025-11-25), from `cursor` (the previous page's `nextCursor`) or the first
    /// page: the tasks the server keeps for this session (or its authorization context), each read
    /// with [`Task::read`] from the items of
    /// [`ListPage::read`](crate::mcp::view::ListPage::read)`(result, "tasks")`.
    /// [`SendError::NotAvailable`] outside a 2025-11-25 session (2026-07-28's extension has no
    /// `tasks/list`).
    pub fn list_tasks(&mut self, now: Instant, cursor: Option<Value<'_>>) -> Result<OutboundKey, SendError> {
        if self.task_era()? != Era::Legacy {
            return Err(SendError::NotAvailable);
        }
        self.list(now, "tasks/list", cursor)
    }

    /// `tasks/update` of the task `id` with the members of its `inputResponses` written by
    /// `responses` (`"<key>":{…result…}`, …). [`Engine::answer_task`] writes them through the
    /// handler instead. [`SendError::NotAvailable`] outside a 2026-07-28 session (a 2025-11-25
    /// task asks with requests of its own).
    pub fn update_task(&mut self, now: Instant, id: &str, responses: Params<'_>) -> Result<OutboundKey, SendError> {
        if self.task_era()? != Era::Modern {
            return Err(SendError::NotAvailable);
        }
        self.task_request(now, "tasks/update", id, Some(responses))
    }

    /// Answers the questions of a task that requires input (`requests`: the `inputRequests` of
    /// [`TaskState::InputRequired`]) through [`Handler::on_input`], as the questions of an
    /// `input_required` result are, and sends them with `tasks/update`. The entries whose key
    /// `skip` returns `true` for (already answered: a `tasks/get` may still list them until the
    /// server has taken the answers in) are left out; with none left, nothing is sent
    /// (`Ok(None)`).
    ///
    /// All or nothing: nothing is sent when an entry cannot be read, asks for an input whose
    /// capability the client did not declare, or is refused by the handler. When the transmit
    /// buffer has no room (`Send(Full)`) the handler was asked and will be asked again on the
    /// next try.
    pub fn answer_task<H: Handler>(
        &mut self,
        now: Instant,
        id: &str,
        requests: Value<'_>,
        skip: &dyn Fn(JsonStr<'_>) -> bool,
        handler: &mut H,
    ) -> Result<Option<OutboundKey>, TaskInputError> {
        if self.task_era() != Ok(Era::Modern) {
            return Err(TaskInputError::Send(SendError::NotAvailable));
        }
        if requests.kind() != Kind::Object {
            return Err(TaskInputError::Unreadable);
        }
        let entries = || requests.members().filter(|(key, _)| !skip(*key));
        let declared = self.config.capabilities;
        for (_, entry) in entries() {
            let input = ReceivedInput::from_entry(entry).ok_or(TaskInputError::Unreadable)?;
            if !is_declared(&input, &declared) {
                return Err(TaskInputError::Undeclared(input.method()));
            }
        }
        if entries().next().is_none() {
            return Ok(None);
        }
        let handler = RefCell::new(handler);
        let refused = Cell::new(None);
        let responses = |w: &mut JsonWriter<'_>| {
            if let Some(method) = write_input_answers(w, entries(), now, &mut **handler.borrow_mut()) {
                refused.set(Some(method));
            }
        };
        let sent = self.update_task(now, id, &responses);
        match refused.get() {
            Some(method) => Err(TaskInputError::Refused(method)),
            None => sent.map(Some).map_err(TaskInputError::Send),
        }
    }

    /// Sends `method` with `{"taskId":<id>}` (and `"inputResponses":{…}` when given), in a
    /// session with tasks only.
    fn task_request(
        &mut self,
        now: Instant,
        method: &str,
        id: &str,
        responses: Option<Params<'_>>,
    ) -> Result<OutboundKey, SendError> {
        self.task_era()?;
        let members = |w: &mut JsonWriter<'_>| {
            w.key("taskId");
            w.string(id);
            if let Some(responses) = responses {
                w.raw(b",\"inputResponses\":{");
                responses(w);
                w.byte(b'}');
            }
        };
        self.request(now, method, Some(&members))
    }

    /// The era of a session with tasks (2026-07-28's extension, 2025-11-25's experimental tasks);
    /// [`SendError::NotAvailable`] in any other session.
    fn task_era(&self) -> Result<Era, SendError> {
        match self.state {
            State::Ready(version) if version.era() == Era::Modern => Ok(Era::Modern),
            State::Ready(ProtocolVersion::V2025_11_25) => Ok(Era::Legacy),
            _ => Err(SendError::NotAvailable),
        }
    }
}
