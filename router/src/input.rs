//! Asking the client for input from a tool, prompt or resource function ([`Context::elicit`],
//! [`Context::sample`], [`Context::roots`]): one API in both eras, two ways underneath.
//!
//! - **Legacy sessions** (2024-11-05 … 2025-11-25): the request goes to the client on the call's own
//!   stream ([`Engine::request_input`](mcp_sansio::server::Engine::request_input)) and the function
//!   awaits its answer.
//! - **2026-07-28**: the server cannot ask; it answers the call with `input_required` and the client
//!   retries it with the answer. So the function *ends* where it asks for input it has not got, the
//!   call is answered `input_required`
//!   ([`Engine::reply_input`](mcp_sansio::server::Engine::reply_input)), and on the retry the function
//!   runs again from the start; this time the same question returns the client's answer. Questions
//!   are told apart by their order (the first the function asks is `"1"`, the next `"2"`, …), so the
//!   code before a question must be idempotent and ask the same questions in the same order on
//!   every run. Answers of earlier rounds travel in the sealed `requestState` (at most
//!   [`MAX_REQUEST_STATE`](mcp_sansio::server::MAX_REQUEST_STATE) bytes of JSON; a longer history
//!   fails the call with `-32603`), so a retry may reach another engine or replica that shares the
//!   sealing key. For a resource read the retry is bound to the URI read, as the client repeats it.
//! - **A task** (a long-running tool's call that became one,
//!   [`Router::task_tool`](crate::Router::task_tool)): the same, but the `input_required` answer
//!   is kept by the engine and the task becomes `input_required`; once the client has answered
//!   every question (with `tasks/update` in 2026-07-28; in 2025-11-25 the engine asks it on the
//!   stream of the client's `tasks/result`) the engine runs the call again with the answers (its
//!   state kept in the server), and the function runs again from the start as on a retry.
//!
//! A completion function ([`Router::completion_with_context`](crate::Router::completion_with_context))
//! reports progress and logs but asks nothing: every question answers
//! [`InputError::NotAllowed`]`("completion/complete")` at once, in both eras. 2026-07-28 lets only
//! `tools/call`, `prompts/get` and `resources/read` be answered `input_required` (its
//! `CompleteResultResponse` has no `InputRequiredResult`), so no question could reach a 2026-07-28
//! client; a legacy session could be asked (the core's `Engine::request_input` serves any
//! deferred request), but a completion that worked only there would break as its client moves to
//! 2026-07-28, so the router refuses alike in both.

use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use futures_channel::oneshot;
use futures_util::future::AbortHandle;
use mcp_sansio::endpoint::{OutboundKey, Outcome, SendError};
use mcp_sansio::mcp::ClientCapabilities;
use mcp_sansio::server::{Deferred, InputRequest, ReplyError, RequestContext};
use mcp_sansio::version::Era;
use mcp_sansio_driver::JobStatus;
use serde_json::{Map, Value as Json};

#[cfg(doc)]
use crate::Context;
use crate::engines::Target;
use crate::{RouterEngine, Shared};

/// Why a question to the client got no usable answer.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum InputError {
    /// The client did not declare the capability the question needs (named: `elicitation`,
    /// `sampling`, `sampling.tools`, `roots`): ask something else, or fail the call.
    NotSupported(&'static str),
    /// The client answered with a JSON-RPC error.
    Refused {
        /// Its `error.code`.
        code: i64,
        /// Its `error.message`.
        message: String,
    },
    /// The answer is not what the question asks for (its content does not read as the type).
    Unreadable(String),
    /// No answer in time ([`Config::request_timeout`](mcp_sansio::server::Config::request_timeout)).
    TimedOut,
    /// The connection ended, or the call is over (cancelled), before an answer came.
    Closed,
    /// The question could not be sent (a malformed request, too many requests to the client).
    NotSent(SendError),
    /// The request cannot ask the client at all (its method named: `completion/complete`):
    /// 2026-07-28 defines no `input_required` answer for it, so the router asks in no era (see the
    /// [module docs](self)).
    NotAllowed(&'static str),
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InputError::NotSupported(capability) => {
                write!(f, "the client did not declare the `{capability}` capability")
            }
            InputError::Refused { code, message } => write!(f, "the client refused ({code}): {message}"),
            InputError::Unreadable(why) => write!(f, "the client's answer is unreadable: {why}"),
            InputError::TimedOut => f.write_str("the client did not answer in time"),
            InputError::Closed => f.write_str("the connection or the call ended before the client answered"),
            InputError::NotSent(error) => write!(f, "the question was not sent: {error}"),
            InputError::NotAllowed(method) => write!(f, "a `{method}` request cannot ask the client for input"),
        }
    }
}

impl std::error::Error for InputError {}

/// A question, owned until it is written.
#[derive(Clone, Debug)]
pub(crate) enum Question {
    Form { message: String, schema: String },
    Sample { params: String },
    Roots,
}

impl Question {
    /// The client capability it needs.
    fn capability(&self) -> &'static str {
        match self {
            Question::Form { .. } => "elicitation",
            Question::Sample { params } if params.contains("\"tools\"") => "sampling.tools",
            Question::Sample { .. } => "sampling",
            Question::Roots => "roots",
        }
    }

    fn request(&self) -> InputRequest<'_> {
        match self {
            Question::Form { message, schema } => InputRequest::ElicitForm { message, requested_schema: schema },
            Question::Sample { params } => InputRequest::Sample { params },
            Question::Roots => InputRequest::ListRoots,
        }
    }
}

/// What a call knows about input: its era, what its client declared, the answers it has.
pub(crate) struct Input {
    /// The era whose way of asking the call takes (a legacy task's: 2026-07-28's, see
    /// [`Input::for_task`]).
    era: Era,
    /// The call came with answers (`inputResponses`).
    has_responses: bool,
    client: ClientCapabilities,
    /// The answers so far by key: earlier rounds' (from the request state) and this round's.
    answers: Map<String, Json>,
    /// How many questions the function has asked in this run.
    asked: AtomicUsize,
    /// 2026-07-28: the question without an answer that ended the run, with its key.
    unanswered: Mutex<Option<(String, Question)>>,
    /// Aborts the function's future (set when it is spawned).
    pub(crate) abort: OnceLock<AbortHandle>,
    /// The method of a request that cannot ask ([`InputError::NotAllowed`]).
    refused: Option<&'static str>,
}

impl Input {
    /// What `context` (the call's) says about input.
    pub(crate) fn new(context: &RequestContext<'_>) -> Self {
        let mut answers = context
            .request_state
            .and_then(|state| serde_json::from_slice::<Map<String, Json>>(state).ok())
            .unwrap_or_default();
        if let Some(responses) = context.input_responses
            && let Ok(Json::Object(responses)) = serde_json::from_slice::<Json>(responses.as_bytes())
        {
            // The sealed earlier answers stand: a retry cannot change them.
            for (key, answer) in responses {
                answers.entry(key).or_insert(answer);
            }
        }
        Input {
            era: context.version.era(),
            has_responses: context.input_responses.is_some(),
            client: context.client,
            answers,
            asked: AtomicUsize::new(0),
            unanswered: Mutex::new(None),
            abort: OnceLock::new(),
            refused: None,
        }
    }

    /// The input of a call that is a task's (`task`): a 2025-11-25 task asks as a 2026-07-28 call
    /// does, in rounds (the engine asks the client through `tasks/result`, and runs the call again
    /// with the answers), as does the run again of one, which is the only legacy call that comes with
    /// answers.
    pub(crate) fn for_task(mut self, task: bool) -> Self {
        if task || self.has_responses {
            self.era = Era::Modern;
        }
        self
    }

    /// What a request of `method` that cannot ask knows: every question answers
    /// [`InputError::NotAllowed`].
    pub(crate) fn refused(context: &RequestContext<'_>, method: &'static str) -> Self {
        Input { refused: Some(method), ..Input::new(context) }
    }

    /// The question that ended the run (2026-07-28), if one did.
    pub(crate) fn take_unanswered(&self) -> Option<(String, Question)> {
        self.unanswered.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take()
    }

    /// Answers the deferred call `input_required` with `question` under `key`, and the answers so
    /// far as its state.
    pub(crate) fn reply(
        &self,
        engine: &mut RouterEngine,
        now: mcp_sansio::time::Instant,
        deferred: &Deferred,
        name: &str,
        (key, question): &(String, Question),
    ) -> Result<(), ReplyError> {
        let reply = engine.reply_input(now, deferred, name)?;
        let reply = reply.request(key, question.request());
        let reply = match self.answers.is_empty() {
            true => reply,
            false => reply.state(Json::Object(self.answers.clone()).to_string().as_bytes()),
        };
        reply.finish();
        Ok(())
    }
}

/// A call's way to ask: its input, its deferred handle and the queue to its engine.
#[derive(Clone)]
pub(crate) struct Asker {
    pub(crate) input: Arc<Input>,
    pub(crate) deferred: Arc<Deferred>,
    pub(crate) jobs: Target,
    pub(crate) shared: Arc<Shared>,
}

/// Where a legacy answer goes: the function waiting for it.
pub(crate) type Waiting = oneshot::Sender<Result<Json, InputError>>;

impl Asker {
    /// Asks `question`; the client's answer (its `result`).
    pub(crate) async fn ask(&self, question: Question) -> Result<Json, InputError> {
        if let Some(method) = self.input.refused {
            return Err(InputError::NotAllowed(method));
        }
        if !question.request().is_supported_by(&self.input.client) {
            return Err(InputError::NotSupported(question.capability()));
        }
        match self.input.era {
            Era::Modern => self.ask_modern(question).await,
            _ => self.ask_legacy(question).await,
        }
    }

    async fn ask_modern(&self, question: Question) -> Result<Json, InputError> {
        let key = (self.input.asked.fetch_add(1, Ordering::Relaxed) + 1).to_string();
        if let Some(answer) = self.input.answers.get(&key) {
            return Ok(answer.clone());
        }
        // Ends the run: the call is answered `input_required` (see `Shared::answer_later`).
        *self.input.unanswered.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Some((key, question));
        if let Some(abort) = self.input.abort.get() {
            abort.abort();
        }
        std::future::pending().await
    }

    async fn ask_legacy(&self, question: Question) -> Result<Json, InputError> {
        let (waiting, receiver) = oneshot::channel();
        let parked = Parked { target: self.jobs.clone(), deferred: self.deferred.clone(), question, waiting };
        if !parked.send(self.shared.clone()) {
            return Err(InputError::Closed);
        }
        receiver.await.unwrap_or(Err(InputError::Closed))
    }
}

/// A legacy question not sent yet: every slot for requests to the client was taken (the
/// engine's `OUTBOUND`). It waits, in order, until an answer frees one ([`deliver`]).
pub(crate) struct Parked {
    target: Target,
    deferred: Arc<Deferred>,
    question: Question,
    waiting: Waiting,
}

impl Parked {
    /// Sends the question from a job on its engine (parked again while no slot is free); `false`
    /// if the engine is gone.
    fn send(self, shared: Arc<Shared>) -> bool {
        let target = self.target.clone();
        let mut parked = Some(self);
        target.submit(move |engine: &mut RouterEngine, now| {
            let Some(this) = parked.take() else { return JobStatus::Done };
            match engine.request_input(now, &this.deferred, this.question.request()) {
                Ok(key) => {
                    shared.waiting().insert(key, this.waiting);
                }
                Err(SendError::Full) => {
                    parked = Some(this);
                    return JobStatus::Retry;
                }
                Err(SendError::TooManyRequests) => shared.parked().push_back(this),
                Err(error) => {
                    let error = match error {
                        SendError::NotAvailable | SendError::Closed => InputError::Closed,
                        SendError::MissingCapability => InputError::NotSupported(this.question.capability()),
                        error => InputError::NotSent(error),
                    };
                    let _ = this.waiting.send(Err(error));
                    // No slot taken: the next parked question may have it.
                    send_next_parked(&shared);
                }
            }
            JobStatus::Done
        })
    }
}

/// What came of a question sent to a legacy client, for the function awaiting it.
pub(crate) fn answer(outcome: Outcome<'_>) -> Result<Json, InputError> {
    match outcome {
        Outcome::Result(value) => {
            serde_json::from_slice(value.as_bytes()).map_err(|error| InputError::Unreadable(error.to_string()))
        }
        Outcome::Error { code, message, .. } => {
            Err(InputError::Refused { code, message: message.map(|m| m.to_string()).unwrap_or_default() })
        }
        Outcome::TimedOut => Err(InputError::TimedOut),
        _ => Err(InputError::Closed),
    }
}

/// Hands a legacy answer to the function waiting for it; the slot it freed goes to the first
/// parked question.
pub(crate) fn deliver(shared: &Arc<Shared>, key: OutboundKey, outcome: Outcome<'_>) {
    let Some(waiting) = shared.waiting().remove(&key) else { return };
    let _ = waiting.send(answer(outcome));
    send_next_parked(shared);
}

/// Sends the first parked question, if any (a slot was freed, or not used after all).
fn send_next_parked(shared: &Arc<Shared>) {
    let next = shared.parked().pop_front();
    if let Some(parked) = next {
        // `false`: the engine is gone; its function hears `Closed` as the job drops `waiting`.
        let _ = parked.send(shared.clone());
    }
}
