//! Tasks on the host API (the 2026-07-28 extension `io.modelcontextprotocol/tasks`, and
//! 2025-11-25's experimental tasks): a `tools/call` started ([`ClientHandle::start_tool_call`]),
//! a task followed to its end ([`ClientHandle::follow_task`]), polled, answered and cancelled by
//! hand. See the [module docs](super#tasks).

use std::collections::HashSet;
use std::string::String;
use std::sync::{Arc, Mutex};
use std::vec::Vec;

use mcp_sansio::client::{DEFAULT_POLL_INTERVAL, DetailedTask, Task, TaskInputError, TaskState};
use mcp_sansio::endpoint::{OutboundKey, SendError};
use mcp_sansio::json::{self, JsonStr, JsonWriter};
use mcp_sansio::mcp::TaskStatus;
use mcp_sansio::time::{Duration, Instant};
use mcp_sansio::version::{Era, ProtocolVersion};

use super::cancel::{Slot, SlotRef, lock};
use super::oneshot::oneshot;
use super::{ClientHandle, HostConnection, RequestError, object, write_members};
use crate::{JobSender, JobStatus};

/// Called with a followed task when it is created and each time its status (or status message)
/// changes ([`ClientHandle::with_task_status`]).
pub type TaskCallback = Arc<dyn Fn(&TaskInfo) + Send + Sync>;

/// A task, copied out of a server's answer (the `CreateTaskResult` of a call, or a `tasks/get`
/// result).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct TaskInfo {
    /// `taskId`.
    pub id: String,
    /// `status`.
    pub status: TaskStatus,
    /// `statusMessage`, if given.
    pub status_message: Option<String>,
    /// `pollIntervalMs`, if given.
    pub poll_interval: Option<Duration>,
    /// `ttlMs`: how long the server keeps the task from its creation; `None` when unlimited or not
    /// given.
    pub ttl: Option<Duration>,
    /// The whole answer, JSON text: read it with
    /// [`DetailedTask::read`](mcp_sansio::client::DetailedTask::read) for the result, error or
    /// questions a `tasks/get` result carries.
    pub json: Vec<u8>,
}

impl TaskInfo {
    /// Reads a task from `json`; `None` when it is no task (see
    /// [`Task::read`](mcp_sansio::client::Task::read)).
    pub fn read(json: Vec<u8>) -> Option<TaskInfo> {
        let value = json::parse(&json, json::MAX_DEPTH_LIMIT).ok()?;
        let task = Task::read(value)?;
        let text = |s: Option<JsonStr<'_>>| s.map(|s| s.chars().collect::<String>());
        Some(TaskInfo {
            id: task.id.chars().collect(),
            status: task.status,
            status_message: text(task.status_message),
            poll_interval: task.poll_interval,
            ttl: task.ttl,
            json,
        })
    }

    /// How long to wait before polling it again ([`Task::poll_delay`]).
    pub fn poll_delay(&self) -> Duration {
        let value = json::parse(&self.json, json::MAX_DEPTH_LIMIT).ok();
        value.and_then(Task::read).map_or(DEFAULT_POLL_INTERVAL, |task| task.poll_delay())
    }
}

/// The tools a server lists as requiring a task (`execution.taskSupport: "required"`), which a
/// 2025-11-25 client must call as tasks; shared by the clones of a handle.
#[derive(Clone, Default)]
pub(super) struct TaskTools(Arc<Mutex<HashSet<String>>>);

impl TaskTools {
    /// Learns from a whole `tools/list` (each tool as JSON text).
    pub(super) fn learn(&self, tools: &[Vec<u8>]) {
        let required = tools.iter().filter_map(|tool| {
            let tool = json::parse(tool, json::MAX_DEPTH_LIMIT).ok()?;
            let support = tool.get("execution")?.get("taskSupport")?.as_str()?;
            support.eq_str("required").then_some(())?;
            Some(tool.get("name")?.as_str()?.chars().collect::<String>())
        });
        let required: HashSet<String> = required.collect();
        *self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = required;
    }

    /// Whether `name` was listed as requiring a task.
    pub(super) fn requires(&self, name: &str) -> bool {
        self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner).contains(name)
    }
}

/// Sends `tools/call` of `name` as a task when `as_task` and the session asks for tasks that way
/// (2025-11-25, a server declaring task-augmented calls); `None` when the call is to be sent as
/// usual (2026-07-28, where the server decides; older versions; a server without tasks).
pub(super) fn call_as_task(
    conn: &mut HostConnection,
    now: Instant,
    as_task: bool,
    name: &str,
    arguments: json::Value<'_>,
) -> Option<Result<OutboundKey, SendError>> {
    if !as_task {
        return None;
    }
    match conn.call_tool_as_task(now, name, Some(arguments), None) {
        Err(SendError::NotAvailable) => None,
        sent => Some(sent),
    }
}

/// What a `tools/call` started: its result, or a task the server made of it.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Started {
    /// The result (JSON text), answered at once.
    Result(Vec<u8>),
    /// A task: follow it ([`ClientHandle::follow_task`]), or poll and cancel it by hand.
    Task(TaskInfo),
}

impl Started {
    /// The task of an answer with `resultType: "task"` (or of a 2025-11-25 `CreateTaskResult`,
    /// its `task`), else the result itself.
    pub(super) fn read(result: Vec<u8>) -> Result<Started, RequestError> {
        let value = json::parse(&result, json::MAX_DEPTH_LIMIT).map_err(|_| RequestError::Invalid("not JSON"))?;
        let Some(task) = Task::created_object(value).filter(|task| Task::read(*task).is_some()) else {
            return Ok(Started::Result(result));
        };
        TaskInfo::read(task.as_bytes().to_vec()).map(Started::Task).ok_or(RequestError::Invalid("not a task"))
    }
}

/// Cancels a task with `tasks/cancel` when dropped armed: a follower that gave up.
struct Abandon {
    jobs: JobSender<HostConnection>,
    task: Option<String>,
}

impl Abandon {
    /// The task ended (or the server forgot it): nothing to cancel.
    fn disarm(&mut self) {
        self.task = None;
    }
}

impl Drop for Abandon {
    fn drop(&mut self) {
        let Some(task) = self.task.take() else { return };
        // Its answer is awaited by nobody (the host drops it).
        let _ = self.jobs.submit(move |conn: &mut HostConnection, now| match conn.cancel_task(now, &task) {
            Err(SendError::Full | SendError::TooManyRequests) => JobStatus::Retry,
            _ => JobStatus::Done,
        });
    }
}

impl ClientHandle {
    /// This handle, with `callback` called with each task a call through it follows: when the
    /// task is created and each time its status (or status message) changes.
    #[must_use]
    pub fn with_task_status(&self, callback: TaskCallback) -> ClientHandle {
        ClientHandle { task_status: Some(callback), ..self.clone() }
    }

    /// `tools/call` of `name` with `arguments` (a JSON object as text), not followed: the result,
    /// or the task the server made of the call. In a 2025-11-25 session a tool that the last
    /// [`ClientHandle::list_tools`] named as requiring a task is called as one
    /// ([`ClientHandle::start_tool_call_as_task`]); in 2026-07-28 the server decides.
    pub async fn start_tool_call(&self, name: &str, arguments: &str) -> Result<Started, RequestError> {
        self.start_call(name, arguments, self.task_tools.requires(name)).await
    }

    /// [`ClientHandle::start_tool_call`] asking for a task whatever the tool declares, in a
    /// 2025-11-25 session with a server that offers task-augmented calls (`params.task`; for a
    /// tool whose task support is `optional`); elsewhere the call is sent as usual.
    pub async fn start_tool_call_as_task(&self, name: &str, arguments: &str) -> Result<Started, RequestError> {
        self.start_call(name, arguments, true).await
    }

    /// [`ClientHandle::call_tool`] asking for a task whatever the tool declares (as
    /// [`ClientHandle::start_tool_call_as_task`] does), followed to its end.
    pub async fn call_tool_as_task(&self, name: &str, arguments: &str) -> Result<Vec<u8>, RequestError> {
        self.finish(self.start_tool_call_as_task(name, arguments).await?).await
    }

    /// The outcome of what a call started: its result, or its task's, followed to its end.
    pub(super) async fn finish(&self, started: Started) -> Result<Vec<u8>, RequestError> {
        match started {
            Started::Result(result) => Ok(result),
            Started::Task(task) => self.follow_task(task).await,
        }
    }

    async fn start_call(&self, name: &str, arguments: &str, as_task: bool) -> Result<Started, RequestError> {
        let (name, arguments) = (String::from(name), String::from(arguments));
        let result = self
            .send(move |conn, now| {
                let arguments = object(&arguments)?;
                call_as_task(conn, now, as_task, &name, arguments)
                    .unwrap_or_else(|| conn.call_tool(now, &name, Some(arguments)))
            })
            .await?;
        Started::read(result)
    }

    /// Follows `task` to its end (see [Tasks](super#tasks)): polls it, answers its questions
    /// through the [`InputCallback`](super::InputCallback), and returns its result when it
    /// completes; its error when it fails, [`RequestError::TaskCancelled`] when the server
    /// cancelled it. Given up (dropped, cancelled through the handle's
    /// [`CancelHandle`](super::CancelHandle), or a question it cannot answer), it cancels the
    /// task: cancelled through the handle, it returns [`RequestError::Cancelled`] once the server
    /// acknowledged `tasks/cancel` (or failed to, within the request timeout), having reported the
    /// status the task then has (2026-07-28: read with one more `tasks/get`); dropped, it queues
    /// `tasks/cancel` and awaits nothing.
    ///
    /// A 2025-11-25 task is polled until it needs input or has ended, and then its outcome is
    /// `tasks/result`'s answer: the server sends the task's questions meanwhile, which the input
    /// callback answers as any request from the server. A `tasks/result` that times out (the
    /// request timeout bounds it) goes back to polling.
    pub async fn follow_task(&self, task: TaskInfo) -> Result<Vec<u8>, RequestError> {
        let mut abandon = Abandon { jobs: self.jobs.clone(), task: Some(task.id.clone()) };
        let id = task.id.clone();
        let followed = self.follow(task, &mut abandon).await;
        if followed == Err(RequestError::Cancelled) && abandon.task.is_some() {
            // Through a handle that is not cancelled; the status it ended with is reported.
            let handle = ClientHandle { cancel: None, ..self.clone() };
            let asked = id.clone();
            if let Ok(answer) = handle.send(move |conn, now| conn.cancel_task(now, &asked)).await {
                // 2025-11-25 answers with the task; 2026-07-28 acknowledges, and tasks/get tells.
                let ended = match TaskInfo::read(answer) {
                    Some(task) => Some(task),
                    None if self.task_status.is_some() => handle.get_task(&id).await.ok(),
                    None => None,
                };
                if let Some(task) = ended {
                    self.report(&task, &mut None);
                }
            }
            abandon.disarm();
        }
        followed
    }

    async fn follow(&self, task: TaskInfo, abandon: &mut Abandon) -> Result<Vec<u8>, RequestError> {
        let mut reported: Option<(TaskStatus, Option<String>)> = None;
        if self.era().await? == Some(Era::Legacy) {
            return self.follow_legacy_task(task, abandon, &mut reported).await;
        }
        let mut answered: Vec<String> = Vec::new();
        // The answer that made the task carries no outcome: `tasks/get` tells it.
        let (mut task, mut detailed) = (task, false);
        loop {
            self.report(&task, &mut reported);
            if detailed {
                let value = json::parse(&task.json, json::MAX_DEPTH_LIMIT).ok();
                let state = value.and_then(DetailedTask::read).map(|d| d.state);
                match state.ok_or(RequestError::Invalid("not a tasks/get result"))? {
                    TaskState::Completed { result } => {
                        abandon.disarm();
                        return Ok(result.as_bytes().to_vec());
                    }
                    TaskState::Failed { code, message, data } => {
                        abandon.disarm();
                        return Err(RequestError::Server {
                            code,
                            message: message.map(|m| m.chars().collect()).unwrap_or_default(),
                            data: data.map(|d| String::from_utf8_lossy(d.as_bytes()).into_owned()),
                        });
                    }
                    TaskState::Cancelled => {
                        abandon.disarm();
                        return Err(RequestError::TaskCancelled { task: task.id, message: task.status_message });
                    }
                    TaskState::InputRequired { requests } => {
                        let asked: Vec<String> = requests
                            .members()
                            .map(|(key, _)| key.chars().collect::<String>())
                            .filter(|key| !answered.contains(key))
                            .collect();
                        if !asked.is_empty() {
                            self.answer_questions(&task, &answered).await?;
                            answered.extend(asked);
                        }
                    }
                    _ => {}
                }
            }
            if detailed || !task.status.is_terminal() {
                self.sleep(task.poll_delay()).await?;
            }
            task = match self.get_task(&task.id).await {
                Err(error @ RequestError::Server { .. }) => {
                    // The server does not know the task (any more): nothing to cancel.
                    abandon.disarm();
                    return Err(error);
                }
                other => other?,
            };
            detailed = true;
        }
    }

    /// [`ClientHandle::follow_task`] in a 2025-11-25 session.
    async fn follow_legacy_task(
        &self,
        mut task: TaskInfo,
        abandon: &mut Abandon,
        reported: &mut Option<(TaskStatus, Option<String>)>,
    ) -> Result<Vec<u8>, RequestError> {
        loop {
            self.report(&task, reported);
            match task.status {
                TaskStatus::Cancelled => {
                    abandon.disarm();
                    return Err(RequestError::TaskCancelled { task: task.id, message: task.status_message });
                }
                TaskStatus::Working => self.sleep(task.poll_delay()).await?,
                TaskStatus::InputRequired | TaskStatus::Completed | TaskStatus::Failed => {
                    match self.task_result(&task.id).await {
                        Ok(result) => {
                            abandon.disarm();
                            // The status it ended with, for the callback (best effort).
                            if self.task_status.is_some()
                                && !task.status.is_terminal()
                                && let Ok(ended) = self.get_task(&task.id).await
                            {
                                self.report(&ended, reported);
                            }
                            return Ok(result);
                        }
                        // A failed task's error, or a task the server forgot.
                        Err(error @ RequestError::Server { .. }) => {
                            abandon.disarm();
                            return Err(error);
                        }
                        Err(RequestError::TimedOut) => {}
                        Err(error) => return Err(error),
                    }
                }
            }
            task = match self.get_task(&task.id).await {
                Err(error @ RequestError::Server { .. }) => {
                    abandon.disarm();
                    return Err(error);
                }
                other => other?,
            };
        }
    }

    /// Calls the task status callback with `task` unless its status and message are those
    /// `reported` last.
    fn report(&self, task: &TaskInfo, reported: &mut Option<(TaskStatus, Option<String>)>) {
        if reported.as_ref().is_some_and(|(status, message)| (*status, message) == (task.status, &task.status_message))
        {
            return;
        }
        *reported = Some((task.status, task.status_message.clone()));
        if let Some(callback) = &self.task_status {
            callback(task);
        }
    }

    /// `tasks/result` of the task `id` (2025-11-25): the result of the request it runs, once it
    /// has ended (an error the task failed with as [`RequestError::Server`]); the server may ask
    /// the task's questions meanwhile.
    pub async fn task_result(&self, id: &str) -> Result<Vec<u8>, RequestError> {
        let id = String::from(id);
        self.send(move |conn, now| conn.task_result(now, &id)).await
    }

    /// The era of the session, once connected.
    async fn era(&self) -> Result<Option<Era>, RequestError> {
        Ok(self.version().await?.map(ProtocolVersion::era))
    }

    /// The protocol version of the session, once connected.
    async fn version(&self) -> Result<Option<ProtocolVersion>, RequestError> {
        let (sender, receiver) = oneshot();
        let mut sender = Some(sender);
        self.jobs
            .submit(move |conn: &mut HostConnection, _| {
                if let Some(waiter) = sender.take() {
                    waiter.send(Ok(conn.era()));
                }
                JobStatus::Done
            })
            .map_err(|_| RequestError::Closed)?;
        receiver.await.unwrap_or(Err(RequestError::Closed))
    }

    /// `tasks/get` of the task `id`: where it stands, with what its status carries in
    /// [`TaskInfo::json`].
    pub async fn get_task(&self, id: &str) -> Result<TaskInfo, RequestError> {
        let id = String::from(id);
        let result = self.send(move |conn, now| conn.get_task(now, &id)).await?;
        TaskInfo::read(result).ok_or(RequestError::Invalid("not a tasks/get result"))
    }

    /// Every task the server keeps for this session (`tasks/list`, following `nextCursor` up to
    /// [`MAX_PAGES`](super::MAX_PAGES) pages; 2025-11-25 only: 2026-07-28's extension has no
    /// `tasks/list`, so [`RequestError::Send`]`(`[`SendError::NotAvailable`]`)` there, as in any
    /// session without tasks). An item that is not a task is left out.
    pub async fn list_tasks(&self) -> Result<Vec<TaskInfo>, RequestError> {
        if self.version().await? != Some(ProtocolVersion::V2025_11_25) {
            return Err(RequestError::Send(SendError::NotAvailable));
        }
        let items = self.list_all("tasks/list", "tasks").await?;
        Ok(items.into_iter().filter_map(TaskInfo::read).collect())
    }

    /// `tasks/cancel` of the task `id`; the server acknowledges it, and ends the task `cancelled`
    /// when it can.
    pub async fn cancel_task(&self, id: &str) -> Result<(), RequestError> {
        let id = String::from(id);
        self.send(move |conn, now| conn.cancel_task(now, &id)).await.map(drop)
    }

    /// `tasks/update` of the task `id` with `input_responses` (its `inputResponses` object as JSON
    /// text: `{"<key>":{…result…}}`), for a host that answers a task's questions itself.
    pub async fn update_task(&self, id: &str, input_responses: &str) -> Result<(), RequestError> {
        let (id, responses) = (String::from(id), String::from(input_responses));
        self.send(move |conn, now| {
            let responses = object(&responses)?;
            conn.update_task(now, &id, &|w: &mut JsonWriter<'_>| write_members(w, responses))
        })
        .await
        .map(drop)
    }

    /// Answers the questions of `task` (a `tasks/get` result requiring input) not `answered` yet
    /// through the input callback, with `tasks/update`.
    async fn answer_questions(&self, task: &TaskInfo, answered: &[String]) -> Result<(), RequestError> {
        let (id, detail, answered) = (task.id.clone(), task.json.clone(), answered.to_vec());
        self.send_with(move |conn, now| {
            let value = json::parse(&detail, json::MAX_DEPTH_LIMIT).ok();
            let Some(TaskState::InputRequired { requests }) = value.and_then(DetailedTask::read).map(|d| d.state)
            else {
                return Err(RequestError::Invalid("not a task requiring input"));
            };
            let skip = |key: JsonStr<'_>| answered.iter().any(|done| key.eq_str(done));
            let (engine, host) = conn.parts_mut();
            match engine.answer_task(now, &id, requests, &skip, host) {
                Ok(Some(key)) => Ok(key),
                Ok(None) => Err(RequestError::Invalid("no question to answer")),
                Err(TaskInputError::Send(error)) => Err(RequestError::Send(error)),
                Err(error) => Err(RequestError::TaskInput(error)),
            }
        })
        .await
        .map(drop)
    }

    /// Waits `delay` on the connection's clock; [`RequestError::Cancelled`] when the handle's
    /// [`CancelHandle`](super::CancelHandle) is cancelled first.
    async fn sleep(&self, delay: Duration) -> Result<(), RequestError> {
        let slot = SlotRef::new(std::sync::Mutex::new(Slot::default()));
        if let Some(cancel) = &self.cancel
            && !cancel.register(&slot, &self.jobs)
        {
            return Err(RequestError::Cancelled);
        }
        let (sender, receiver) = oneshot();
        let (mut sender, timer) = (Some(sender), slot.clone());
        self.jobs
            .submit(move |conn: &mut HostConnection, now| {
                let Some(waiter) = sender.take() else { return JobStatus::Done };
                if lock(&timer).cancelled {
                    waiter.send(Err(RequestError::Cancelled));
                } else {
                    lock(&timer).timer = Some(conn.handler_mut().timers.add(now + delay, waiter));
                }
                JobStatus::Done
            })
            .map_err(|_| RequestError::Closed)?;
        // The slot lives as long as the wait, for the cancel handle to find it.
        let woken = receiver.await;
        drop(slot);
        woken.unwrap_or(Err(RequestError::Closed)).map(drop)
    }
}
