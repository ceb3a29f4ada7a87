//! The application's side of a host connection: [`Host`], the client engine's handler, which
//! routes each outcome to the future waiting for it and runs the application's callbacks; what a
//! request ends with ([`RequestError`]); what the host knows once connected ([`Connected`]).

use std::boxed::Box;
use std::collections::HashMap;
use std::fmt;
use std::string::String;
use std::vec::Vec;

use mcp_sansio::client::{self, ConnectError, InputAnswer, Notification, TaskInputError};
use mcp_sansio::endpoint::{OutboundKey, Outcome, Response, SendError};
use mcp_sansio::json::{self, JsonWriter};
use mcp_sansio::mcp::input::ReceivedInput;
use mcp_sansio::time::Instant;
use mcp_sansio::version::ProtocolVersion;

use super::listen::{self, ListenNotification};
use super::oneshot::Sender;
use super::timer::Timers;

/// The application's answer to input the server asks for: write the result, see
/// [`client::Handler::on_input`].
pub type InputCallback = Box<dyn FnMut(ReceivedInput<'_>, &mut JsonWriter<'_>) -> InputAnswer + Send>;
/// Called with each notification from the server.
pub type NotificationCallback = Box<dyn FnMut(Notification<'_>) + Send>;
/// Called with a request's progress: `progress`, `total` if known, and the server's message.
pub type ProgressCallback = Box<dyn FnMut(f64, Option<f64>, Option<&str>) + Send>;

/// The outcome of a request, copied out of the received message.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RequestError {
    /// The request could not be sent (not connected yet, too many in flight, too large).
    Send(SendError),
    /// The server answered with an error.
    Server {
        /// `error.code`.
        code: i64,
        /// `error.message`.
        message: String,
        /// `error.data` as JSON text.
        data: Option<String>,
    },
    /// No answer within the request timeout (it was cancelled on the wire).
    TimedOut,
    /// The connection ended first (or its driver stopped).
    Closed,
    /// The connection could not be set up.
    Connect(ConnectError),
    /// Cancelled through a [`CancelHandle`](super::CancelHandle) (and on the wire, if it was sent).
    Cancelled,
    /// The answer is not what the method returns.
    Invalid(&'static str),
    /// The task the server made of the request ended `cancelled`, and not because this client
    /// cancelled it.
    TaskCancelled {
        /// The task's id.
        task: String,
        /// Its `statusMessage`, if given.
        message: Option<String>,
    },
    /// The task the server made of the request asked for input the client could not give (it
    /// was cancelled).
    TaskInput(TaskInputError),
}

impl fmt::Display for RequestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestError::Send(error) => write!(f, "cannot send: {error}"),
            RequestError::Server { code, message, .. } => write!(f, "the server answered {code}: {message}"),
            RequestError::TimedOut => f.write_str("the server did not answer in time"),
            RequestError::Closed => f.write_str("the connection to the server ended"),
            RequestError::Connect(error) => write!(f, "cannot connect: {error}"),
            RequestError::Cancelled => f.write_str("cancelled"),
            RequestError::Invalid(what) => write!(f, "the server's answer is not usable: {what}"),
            RequestError::TaskCancelled { task, message: Some(message) } => {
                write!(f, "the server cancelled task {task}: {message}")
            }
            RequestError::TaskCancelled { task, message: None } => write!(f, "the server cancelled task {task}"),
            RequestError::TaskInput(error) => write!(f, "task abandoned: {error}"),
        }
    }
}

impl std::error::Error for RequestError {}

pub(super) type Answer = Result<Vec<u8>, RequestError>;

/// What the host knows once connected.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Connected {
    /// The version spoken (its era is the verdict to cache).
    pub version: ProtocolVersion,
    /// `serverInfo.name`, if given.
    pub server_name: Option<String>,
    /// The server's `instructions`, if given.
    pub instructions: Option<String>,
}

/// The client engine's handler in a host: routes each outcome to its waiting future and runs the
/// application's callbacks.
#[derive(Default)]
pub struct Host {
    pub(super) waiters: HashMap<OutboundKey, Sender<Answer>>,
    pub(super) listens: HashMap<OutboundKey, listen::Queue>,
    pub(super) progress: HashMap<i64, ProgressCallback>,
    pub(super) connect: Option<Sender<Result<Connected, RequestError>>>,
    pub(super) input: Option<InputCallback>,
    pub(super) notifications: Option<NotificationCallback>,
    /// A new session is being set up ([`reinitialize`](super::reinitialize)): requests wait for it.
    pub(super) renewing: bool,
    /// Futures waiting for an instant (between two polls of a task).
    pub(super) timers: Timers,
    /// The client does not declare the tasks extension ([`Host::with_tasks`]).
    pub(super) no_tasks: bool,
}

impl Host {
    /// A host that refuses input requests and ignores notifications.
    pub fn new() -> Self {
        Host::default()
    }

    /// With `input` answering the server's requests for input (declare them in
    /// [`client::Config::capabilities`]).
    pub fn with_input(mut self, input: InputCallback) -> Self {
        self.input = Some(input);
        self
    }

    /// Whether the client declares the tasks extension (2026-07-28, `io.modelcontextprotocol/tasks`)
    /// with its requests, whatever [`client::Config::capabilities`] says; by default it does, and
    /// a `tools/call` the server answers with a task is followed to its end
    /// ([`ClientHandle::call_tool`](super::ClientHandle::call_tool)). Without it, servers answer
    /// such calls at once (or refuse tools that only run as tasks).
    pub fn with_tasks(mut self, declare: bool) -> Self {
        self.no_tasks = !declare;
        self
    }

    /// With `notifications` called for each notification.
    pub fn with_notifications(mut self, notifications: NotificationCallback) -> Self {
        self.notifications = Some(notifications);
        self
    }
}

impl fmt::Debug for Host {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Host")
            .field("waiting", &self.waiters.len())
            .field("timers", &self.timers.len())
            .finish_non_exhaustive()
    }
}

fn text(s: Option<json::JsonStr<'_>>) -> Option<String> {
    s.map(|s| s.chars().collect())
}

impl client::Handler for Host {
    fn on_response(&mut self, _now: Instant, response: Response<'_>) {
        if let Some(listen) = self.listens.remove(&response.request) {
            // The server ended the stream (its result), or it timed out or the input ended.
            listen.end();
            return;
        }
        self.progress.remove(&response.request.id());
        let Some(waiter) = self.waiters.remove(&response.request) else { return };
        waiter.send(match response.outcome {
            Outcome::Result(value) => Ok(value.as_bytes().to_vec()),
            Outcome::Error { code, message, data } => Err(RequestError::Server {
                code,
                message: text(message).unwrap_or_default(),
                data: data.map(|d| String::from_utf8_lossy(d.as_bytes()).into_owned()),
            }),
            Outcome::TimedOut => Err(RequestError::TimedOut),
            _ => Err(RequestError::Closed),
        });
    }

    fn on_notification(&mut self, _now: Instant, notification: Notification<'_>) {
        if let Notification::Progress { request: Some(id), progress, total, message } = notification
            && let Some(callback) = self.progress.get_mut(&id)
        {
            let message: Option<String> = text(message);
            callback(progress.as_f64().unwrap_or(0.0), total.and_then(|t| t.as_f64()), message.as_deref());
        }
        if let Some(callback) = &mut self.notifications {
            callback(notification);
        }
    }

    fn on_listen_notification(
        &mut self,
        now: Instant,
        listen: OutboundKey,
        method: json::JsonStr<'_>,
        params: Option<json::Value<'_>>,
    ) {
        match self.listens.get(&listen) {
            Some(queue) => queue.push(ListenNotification {
                method: method.chars().collect(),
                params: params.map(|p| String::from_utf8_lossy(p.as_bytes()).into_owned()),
            }),
            None => self.on_notification(now, Notification::read(method, params)),
        }
    }

    fn on_input(&mut self, _now: Instant, input: ReceivedInput<'_>, result: &mut JsonWriter<'_>) -> InputAnswer {
        match &mut self.input {
            Some(callback) => callback(input, result),
            None => InputAnswer::Refused,
        }
    }

    fn on_event(&mut self, _now: Instant, event: client::Event<'_>) {
        match event {
            client::Event::Connected { version, server_name, instructions, .. } => {
                self.renewing = false;
                if let Some(connect) = self.connect.take() {
                    connect.send(Ok(Connected {
                        version,
                        server_name: text(server_name),
                        instructions: text(instructions),
                    }));
                }
            }
            client::Event::ConnectFailed(error) => {
                self.renewing = false;
                if let Some(connect) = self.connect.take() {
                    connect.send(Err(RequestError::Connect(error)));
                }
            }
            _ => {}
        }
    }
}
