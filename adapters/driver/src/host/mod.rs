//! An async client for hosts on the one job queue, under any executor (feature `std`).
//!
//! The client engine ([`mcp_sansio::client`]) is driven, like a server, by the driver's loop on
//! one task; the application talks to it from any task through a [`ClientHandle`], whose async
//! methods queue a job that sends the request and park a one-value channel for its answer. The
//! [`Host`] handler (the engine's [`client::Handler`]) hands each outcome to its waiting future,
//! and runs the application's callbacks for input from the server and notifications.
//!
//! Dropping a request's future cancels the request (`notifications/cancelled` on the wire), and so
//! does a [`CancelHandle`] from anywhere, for every request sent through
//! [`ClientHandle::with_cancel`]. The
//! transports (a child process on tokio or async-std/smol, Streamable HTTP) build the pair with
//! [`connection`] and drive the connection with their `run_with_jobs`.
//!
//! # Tasks
//! The client declares the 2026-07-28 tasks extension (`io.modelcontextprotocol/tasks`) with its
//! requests unless told not to ([`Host::with_tasks`]), so a server may answer a `tools/call` with a
//! task (2025-11-25: see below). [`ClientHandle::call_tool`] (and [`ClientHandle::call_tool_with_progress`]) then follow
//! it to its end ([`ClientHandle::follow_task`]), so the caller gets the call's result as if the
//! server had answered it at once:
//!
//! - `tasks/get` every [`Task::poll_delay`](mcp_sansio::client::Task::poll_delay): the server's
//!   `pollIntervalMs` bounded to [`MIN_POLL_INTERVAL`](mcp_sansio::client::MIN_POLL_INTERVAL) ..
//!   [`MAX_POLL_INTERVAL`](mcp_sansio::client::MAX_POLL_INTERVAL), or
//!   [`DEFAULT_POLL_INTERVAL`](mcp_sansio::client::DEFAULT_POLL_INTERVAL) without one. The waits
//!   are timers of the connection itself ([`HostConnection`]), so every transport and executor
//!   gets them.
//! - `input_required`: each question is answered once through the [`InputCallback`] (as legacy
//!   requests and `input_required` rounds are), and the answers sent with `tasks/update`; a
//!   question the client cannot answer abandons the task ([`RequestError::TaskInput`]).
//! - The end: `completed` gives its result (a tool result with `isError` included), `failed` the
//!   error ([`RequestError::Server`]), `cancelled` [`RequestError::TaskCancelled`].
//! - Given up (the future dropped, its [`CancelHandle`] cancelled, a question not answered): the
//!   task is cancelled with `tasks/cancel`.
//!
//! In a 2025-11-25 session (its experimental tasks) the client asks for a task itself (`params.task`):
//! for each tool the last [`ClientHandle::list_tools`] named as requiring one
//! (`execution.taskSupport: "required"`), and on request
//! ([`ClientHandle::start_tool_call_as_task`]), of a server that declares task-augmented calls. Such a
//! task is polled with `tasks/get` until it needs input or has ended; its outcome is then
//! [`ClientHandle::task_result`]'s (`tasks/result`), on whose stream the server asks the task's
//! questions, answered through the [`InputCallback`] as any request from the server.
//!
//! Each poll has the request timeout; the task as a whole has none (the server keeps a task for its
//! `ttlMs`, and answers `-32602` once it forgot it). [`ClientHandle::start_tool_call`] returns the
//! task instead of following it, for a host that polls ([`ClientHandle::get_task`]), answers
//! ([`ClientHandle::update_task`]) or cancels ([`ClientHandle::cancel_task`]) it itself;
//! [`ClientHandle::with_task_status`] reports each status a followed task goes through.
//!
//! # Limits
//! - At most [`MAX_IN_FLIGHT`] requests await answers at once: more wait for one of them to be
//!   answered (or dropped) before they are sent. Each answer is copied once into a `Vec<u8>` for
//!   its future.
//! - [`ClientHandle::list_tools`] follows at most [`MAX_PAGES`] cursors, and leaves out the tools
//!   a client must not call (invalid `x-mcp-header` annotations).
//! - A [`Listen`] stream keeps at most [`MAX_LISTEN_BACKLOG`] unread notifications.

mod app;
mod cancel;
mod listen;
mod oneshot;
mod permits;
mod tail;
mod tasks;
mod timer;

use std::fmt;
use std::string::String;
use std::vec::Vec;

use mcp_sansio::client::{self, Client};
use mcp_sansio::endpoint::{OutboundKey, SendError};
use mcp_sansio::http::client::check_param_annotations;
use mcp_sansio::json::{self, JsonWriter, Kind};
use mcp_sansio::mcp::view::ListPage;
use mcp_sansio::time::Instant;

use crate::{JobQueue, JobSender, JobStatus, job_queue};
use app::Answer;
pub use app::{Connected, Host, InputCallback, NotificationCallback, ProgressCallback, RequestError};
pub use cancel::CancelHandle;
use cancel::{Slot, SlotRef, lock};
pub use listen::{Listen, ListenNotification};
use oneshot::{Receiver, oneshot};
use permits::{Permit, Permits};
pub use tail::{STDERR_TAIL, StderrTail};
use tasks::TaskTools;
pub use tasks::{Started, TaskCallback, TaskInfo};
pub use timer::HostConnection;

/// Most requests awaiting answers at once.
pub const MAX_IN_FLIGHT: usize = 32;
/// Most pages [`ClientHandle::list_tools`] reads.
pub const MAX_PAGES: usize = 64;
/// Most notifications a [`Listen`] stream keeps unread; older ones are dropped beyond it (and
/// counted: [`Listen::dropped`]).
pub const MAX_LISTEN_BACKLOG: usize = 256;

/// Starts a new legacy session on `conn` ([`Engine::reinitialize`](client::Engine::reinitialize)),
/// as a Streamable HTTP client must once the server answered 404 to its session: requests the
/// handle sends meanwhile wait for the new session (their jobs return [`JobStatus::Retry`] until
/// the handshake's outcome, so the transport's loop must run retried jobs again after each
/// message received, as the HTTP client's does) instead of failing.
pub fn reinitialize(conn: &mut HostConnection, now: Instant) -> Result<(), SendError> {
    conn.reinitialize(now)?;
    conn.handler_mut().renewing = true;
    Ok(())
}

/// Creates the connection a transport drives (over owned buffers of `rx` and `tx` bytes; `tx`
/// also bounds one request) and the handle to talk to it. The client declares the tasks extension
/// as [`Host::with_tasks`] says (by default it does), whatever `config` says.
pub fn connection(
    mut config: client::Config<'static>,
    host: Host,
    rx: usize,
    tx: usize,
) -> (ClientHandle, HostConnection, JobQueue<HostConnection>) {
    config.capabilities.tasks = !host.no_tasks;
    let mut conn = Client::with_storage(host, config, std::vec![0u8; rx], std::vec![0u8; tx]);
    // Room to retry 2026-07-28 requests with input: as much as one request can take.
    conn.set_retry_buffer(std::vec![0u8; tx]);
    let (jobs, queue) = job_queue();
    let handle = ClientHandle {
        jobs,
        permits: Permits::new(MAX_IN_FLIGHT),
        cancel: None,
        task_status: None,
        task_tools: TaskTools::default(),
    };
    (handle, HostConnection::new(conn), queue)
}

/// Talks to a client engine driven on another task: cloneable, `Send + Sync`.
#[derive(Clone)]
pub struct ClientHandle {
    jobs: JobSender<HostConnection>,
    permits: Permits,
    cancel: Option<CancelHandle>,
    task_status: Option<TaskCallback>,
    /// The tools the last [`ClientHandle::list_tools`] named as requiring a task (2025-11-25).
    task_tools: TaskTools,
}

impl fmt::Debug for ClientHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientHandle").field("jobs", &self.jobs).finish_non_exhaustive()
    }
}

/// A request's answer, cancelled on the wire if dropped before it came.
struct Pending {
    /// Held until the answer came (or the request was given up).
    _permit: Permit,
    answer: Receiver<Answer>,
    slot: SlotRef,
    jobs: JobSender<HostConnection>,
    done: bool,
}

impl Pending {
    async fn wait(mut self) -> Answer {
        let answer = (&mut self.answer).await;
        self.done = true;
        answer.unwrap_or(Err(RequestError::Closed))
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        if !self.done {
            cancel::cancel(&self.slot, &self.jobs);
        }
    }
}

impl ClientHandle {
    /// This handle, with every request sent through it cancelled when `cancel` is
    /// ([`CancelHandle::cancel`]); the connection is the same.
    #[must_use]
    pub fn with_cancel(&self, cancel: &CancelHandle) -> ClientHandle {
        ClientHandle { cancel: Some(cancel.clone()), ..self.clone() }
    }

    /// Ends the connection from this side, as the end of the server's output would: requests
    /// still waiting get [`RequestError::Closed`], and the driving loop returns once its output
    /// is written (a transport then closes its end: a child's stdin).
    pub fn end(&self) -> Result<(), crate::DriverStopped> {
        self.jobs.complete(|conn: &mut HostConnection, now| {
            mcp_sansio::connection::Connection::handle_eof(conn, now);
        })
    }

    /// Starts the connection (the era probe or `initialize`) and waits until it is set up.
    pub async fn connect(&self) -> Result<Connected, RequestError> {
        let (sender, receiver) = oneshot();
        let mut sender = Some(sender);
        self.jobs
            .submit(move |conn: &mut HostConnection, now| {
                let Some(waiter) = sender.take() else { return JobStatus::Done };
                match conn.connect(now) {
                    Ok(()) => conn.handler_mut().connect = Some(waiter),
                    Err(SendError::Full) => {
                        sender = Some(waiter);
                        return JobStatus::Retry;
                    }
                    Err(error) => waiter.send(Err(RequestError::Send(error))),
                }
                JobStatus::Done
            })
            .map_err(|_| RequestError::Closed)?;
        receiver.await.unwrap_or(Err(RequestError::Closed))
    }

    /// Sends `method` with `params` (a JSON object as text, or none) and waits for the result
    /// (JSON text).
    pub async fn request(&self, method: &str, params: Option<&str>) -> Result<Vec<u8>, RequestError> {
        let (method, params) = (String::from(method), params.map(String::from));
        self.send(move |conn, now| {
            let object = match &params {
                Some(text) => match json::parse(text.as_bytes(), json::MAX_DEPTH_LIMIT) {
                    Ok(value) if value.kind() == Kind::Object => Some(value),
                    _ => return Err(SendError::TooLarge),
                },
                None => None,
            };
            let members = |w: &mut JsonWriter<'_>| {
                if let Some(object) = object {
                    write_members(w, object);
                }
            };
            conn.request(now, &method, Some(&members))
        })
        .await
    }

    /// `subscriptions/listen` (2026-07-28) for `notifications` (its `notifications` object as
    /// JSON text: `{"toolsListChanged":true}`): a stream of the notifications the server sends
    /// on it, the first `notifications/subscriptions/acknowledged`. Dropping it cancels it.
    pub async fn listen(&self, notifications: &str) -> Result<Listen, RequestError> {
        let filter = String::from(notifications);
        let (sender, receiver) = oneshot();
        let mut sender = Some(sender);
        self.jobs
            .submit(move |conn: &mut HostConnection, now| {
                let Some(waiter) = sender.take() else { return JobStatus::Done };
                let object =
                    json::parse(filter.as_bytes(), json::MAX_DEPTH_LIMIT).ok().filter(|v| v.kind() == Kind::Object);
                let Some(object) = object else {
                    waiter.send(Err(RequestError::Invalid("the filter is not a JSON object")));
                    return JobStatus::Done;
                };
                let members = |w: &mut JsonWriter<'_>| write_members(w, object);
                match conn.listen(now, &members) {
                    Ok(key) => {
                        let (queue, stream) = listen::channel(key);
                        conn.handler_mut().listens.insert(key, queue);
                        waiter.send(Ok(stream));
                    }
                    Err(SendError::Full | SendError::TooManyRequests) => {
                        sender = Some(waiter);
                        return JobStatus::Retry;
                    }
                    Err(error) => waiter.send(Err(RequestError::Send(error))),
                }
                JobStatus::Done
            })
            .map_err(|_| RequestError::Closed)?;
        let stream = receiver.await.unwrap_or(Err(RequestError::Closed))?;
        Ok(stream.with_jobs(self.jobs.clone()))
    }

    /// `tools/call` of `name` with `arguments` (a JSON object as text); the `CallToolResult`. A
    /// call the server makes a task of is followed to its end (see [Tasks](self#tasks)).
    pub async fn call_tool(&self, name: &str, arguments: &str) -> Result<Vec<u8>, RequestError> {
        self.finish(self.start_tool_call(name, arguments).await?).await
    }

    /// [`ClientHandle::call_tool`] asking for progress: `progress` is called with each report
    /// the server sends about this call (each also moves its timeout, up to
    /// [`client::Config::max_request_time`]). A task is followed as by `call_tool`.
    pub async fn call_tool_with_progress(
        &self,
        name: &str,
        arguments: &str,
        progress: ProgressCallback,
    ) -> Result<Vec<u8>, RequestError> {
        let as_task = self.task_tools.requires(name);
        let (name, arguments) = (String::from(name), String::from(arguments));
        let mut progress = Some(progress);
        let result = self
            .send(move |conn, now| {
                let arguments = object(&arguments)?;
                // A 2025-11-25 task reports statuses ([`ClientHandle::with_task_status`]), not progress.
                if let Some(sent) = tasks::call_as_task(conn, now, as_task, &name, arguments) {
                    return sent;
                }
                let members = |w: &mut JsonWriter<'_>| {
                    w.raw(b"\"name\":");
                    w.string(&name);
                    w.raw(b",\"arguments\":");
                    w.value(arguments);
                };
                let key = conn.request_with_progress(now, "tools/call", Some(&members))?;
                if let Some(progress) = progress.take() {
                    conn.handler_mut().progress.insert(key.id(), progress);
                }
                Ok(key)
            })
            .await?;
        self.finish(Started::read(result)?).await
    }

    /// `ping`.
    pub async fn ping(&self) -> Result<(), RequestError> {
        self.send(|conn, now| conn.ping(now)).await.map(drop)
    }

    /// Every tool of the server (`tools/list`, following `nextCursor` up to [`MAX_PAGES`] pages),
    /// each as JSON text. A tool whose `x-mcp-header` annotations are invalid
    /// ([`check_param_annotations`]) is left out, as the specification requires of clients
    /// (2026-07-28); the raw answer stays available through [`ClientHandle::request`].
    pub async fn list_tools(&self) -> Result<Vec<Vec<u8>>, RequestError> {
        let mut tools = self.list_all("tools/list", "tools").await?;
        tools.retain(|tool| {
            let schema = json::parse(tool, json::MAX_DEPTH_LIMIT).ok().and_then(|t| t.get("inputSchema"));
            schema.is_none_or(|schema| check_param_annotations(schema).is_ok())
        });
        self.task_tools.learn(&tools);
        Ok(tools)
    }

    /// Every prompt of the server; see [`ClientHandle::list_tools`].
    pub async fn list_prompts(&self) -> Result<Vec<Vec<u8>>, RequestError> {
        self.list_all("prompts/list", "prompts").await
    }

    /// Every resource of the server; see [`ClientHandle::list_tools`].
    pub async fn list_resources(&self) -> Result<Vec<Vec<u8>>, RequestError> {
        self.list_all("resources/list", "resources").await
    }

    /// Every resource template of the server (`resources/templates/list`); see
    /// [`ClientHandle::list_tools`].
    pub async fn list_resource_templates(&self) -> Result<Vec<Vec<u8>>, RequestError> {
        self.list_all("resources/templates/list", "resourceTemplates").await
    }

    pub(super) async fn list_all(&self, method: &'static str, key: &'static str) -> Result<Vec<Vec<u8>>, RequestError> {
        let mut items = Vec::new();
        let mut cursor: Option<String> = None;
        for _ in 0..MAX_PAGES {
            let params = cursor.as_ref().map(|c| {
                let mut text = String::from("{\"cursor\":");
                text.push_str(&json_string(c));
                text.push('}');
                text
            });
            let page = self.request(method, params.as_deref()).await?;
            let value = json::parse(&page, json::MAX_DEPTH_LIMIT).map_err(|_| RequestError::Invalid("not JSON"))?;
            let page = ListPage::read(value, key).ok_or(RequestError::Invalid("not a list page"))?;
            items.extend(page.items().map(|item| item.as_bytes().to_vec()));
            match page.next_cursor {
                Some(next) => cursor = Some(next.chars().collect()),
                None => return Ok(items),
            }
        }
        Ok(items)
    }

    /// `resources/read` of `uri`; the `ReadResourceResult`.
    pub async fn read_resource(&self, uri: &str) -> Result<Vec<u8>, RequestError> {
        let uri = String::from(uri);
        self.send(move |conn, now| conn.read_resource(now, &uri)).await
    }

    /// `completion/complete` of the argument `argument`, partly typed as `value`, of `reference`
    /// (`{"type":"ref/prompt","name":…}` or `{"type":"ref/resource","uri":…}` as JSON text); the
    /// `CompleteResult`.
    pub async fn complete(&self, reference: &str, argument: &str, value: &str) -> Result<Vec<u8>, RequestError> {
        let (reference, argument, value) = (String::from(reference), String::from(argument), String::from(value));
        self.send(move |conn, now| conn.complete(now, object(&reference)?, &argument, &value)).await
    }

    /// `prompts/get` of `name` with `arguments` (a JSON object of strings as text, or none).
    pub async fn get_prompt(&self, name: &str, arguments: Option<&str>) -> Result<Vec<u8>, RequestError> {
        let (name, arguments) = (String::from(name), arguments.map(String::from));
        self.send(move |conn, now| {
            let arguments = match &arguments {
                Some(text) => {
                    Some(json::parse(text.as_bytes(), json::MAX_DEPTH_LIMIT).map_err(|_| SendError::TooLarge)?)
                }
                None => None,
            };
            conn.get_prompt(now, &name, arguments)
        })
        .await
    }

    /// Queues `send` (which sends one request on the engine) and waits for the answer.
    async fn send<F>(&self, mut send: F) -> Answer
    where
        F: FnMut(&mut HostConnection, Instant) -> Result<OutboundKey, SendError> + Send + 'static,
    {
        self.send_with(move |conn, now| send(conn, now).map_err(RequestError::Send)).await
    }

    /// [`ClientHandle::send`] of a job that may fail otherwise than the engine does.
    async fn send_with<F>(&self, mut send: F) -> Answer
    where
        F: FnMut(&mut HostConnection, Instant) -> Result<OutboundKey, RequestError> + Send + 'static,
    {
        let slot = SlotRef::new(std::sync::Mutex::new(Slot::default()));
        if let Some(cancel) = &self.cancel
            && !cancel.register(&slot, &self.jobs)
        {
            return Err(RequestError::Cancelled);
        }
        let permit = self.permits.acquire().await;
        let (sender, receiver) = oneshot();
        let pending =
            Pending { _permit: permit, answer: receiver, slot: slot.clone(), jobs: self.jobs.clone(), done: false };
        let mut sender = Some(sender);
        self.jobs
            .submit(move |conn: &mut HostConnection, now| {
                let Some(waiter) = sender.take() else { return JobStatus::Done };
                if lock(&slot).cancelled {
                    waiter.send(Err(RequestError::Cancelled));
                    return JobStatus::Done;
                }
                match send(conn, now) {
                    Ok(request) => {
                        lock(&slot).key = Some(request);
                        conn.handler_mut().waiters.insert(request, waiter);
                    }
                    // No room, or the table still holds given-up requests whose cancellations
                    // are being written: again once output went out. While a new session is
                    // set up ([`reinitialize`]): again once it is.
                    Err(RequestError::Send(SendError::Full | SendError::TooManyRequests)) => {
                        sender = Some(waiter);
                        return JobStatus::Retry;
                    }
                    Err(RequestError::Send(SendError::NotAvailable)) if conn.handler().renewing => {
                        sender = Some(waiter);
                        return JobStatus::Retry;
                    }
                    Err(error) => waiter.send(Err(error)),
                }
                JobStatus::Done
            })
            .map_err(|_| RequestError::Closed)?;
        pending.wait().await
    }
}

/// `text` read as a JSON object (the caller's arguments or params); not one: nothing can be sent
/// (reported as [`SendError::TooLarge`], the engine's "never fits").
fn object(text: &str) -> Result<json::Value<'_>, SendError> {
    json::parse(text.as_bytes(), json::MAX_DEPTH_LIMIT)
        .ok()
        .filter(|v| v.kind() == Kind::Object)
        .ok_or(SendError::TooLarge)
}

/// The members of `object`, without its braces.
fn write_members(w: &mut JsonWriter<'_>, object: json::Value<'_>) {
    for (i, (key, value)) in object.members().enumerate() {
        if i > 0 {
            w.byte(b',');
        }
        w.json_str(key);
        w.byte(b':');
        w.value(value);
    }
}

/// `text` as a JSON string.
fn json_string(text: &str) -> String {
    let mut buf = std::vec![0u8; text.len() * 6 + 2];
    let mut w = JsonWriter::new(&mut buf);
    w.string(text);
    String::from_utf8_lossy(w.written()).into_owned()
}
