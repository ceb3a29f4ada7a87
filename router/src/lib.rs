//! Typed async tools for an [`mcp_sansio`] server: each tool is one registration of an async
//! function (or closure) taking a `Deserialize + JsonSchema` argument type and returning a
//! [`ToolOutput`]; the input schema (and the output schema of [`Structured`] results) is generated
//! with schemars, arguments that do not match are answered as the negotiated version prescribes
//! ([`ToolReply::invalid_arguments`](mcp_sansio::server::ToolReply::invalid_arguments)), calls run concurrently on the runtime you give, and a
//! cancelled request drops its future.
//!
//! ```no_run
//! use mcp_sansio::server::{Config, Structured};
//! use mcp_sansio_router::Router;
//!
//! #[derive(serde::Deserialize, schemars::JsonSchema)]
//! struct Add {
//!     a: i64,
//!     b: i64,
//! }
//!
//! #[derive(serde::Serialize, schemars::JsonSchema)]
//! struct Sum {
//!     sum: i64,
//! }
//!
//! # async fn serve() -> std::io::Result<()> {
//! let router = Router::new()
//!     .tool("add", "Adds two numbers", |Add { a, b }| async move { Structured(Sum { sum: a + b }) })
//!     .tool("wait", "Waits a second", |_: mcp_sansio_router::NoArguments| async {
//!         tokio::time::sleep(std::time::Duration::from_secs(1)).await;
//!         "done"
//!     });
//! let (mut server, jobs) = router.into_server(Config::new("adder", "1.0.0"), |future| {
//!     tokio::spawn(future);
//! });
//! mcp_sansio_tokio::serve_stdio_with_jobs(&mut server, jobs).await
//! # }
//! ```
//!
//! # How it runs
//! The router registers its tools in the core's [`Registry`], the server's [`Handler`]: a call is
//! answered at once when its arguments do not match; otherwise its request is deferred
//! ([`ToolReply::defer`](mcp_sansio::server::ToolReply::defer)), the function's future is given to `spawn`, and its output is written
//! from the driver's job queue ([`Engine::reply_tool`](mcp_sansio::server::Engine::reply_tool)),
//! retried while the transmit buffer is full. The client's cancellation ([`Event::Cancelled`])
//! aborts the future. Resources, templates, prompts and completions are registered on the same
//! registry ([`Router::registry`]).
//!
//! A function registered with [`Router::tool_with_context`] also gets its request's [`Context`]:
//! progress and log messages about it, written ahead of its answer, and questions to the client
//! ([`Context::elicit`], [`Context::sample`], [`Context::roots`]) that work unchanged in both eras;
//! in 2026-07-28 a question ends the run and the retry runs the function again, so the code
//! before it must be idempotent ([`input`] explains why and how).
//!
//! A long-running tool, registered with [`Router::task_tool`] (or `#[tool(task)]`), becomes a
//! *task* when the client can follow one (the 2026-07-28 extension `io.modelcontextprotocol/tasks`):
//! the call is answered at once with the task, the function runs on, and its output becomes the
//! task's result, which the client polls with `tasks/get`; a question makes the task
//! `input_required` until the client answers with `tasks/update` (the function then runs again,
//! as on a 2026-07-28 retry), and `tasks/cancel` drops its future. No further code: the router
//! gives the engine its task table. Without the extension, and in legacy sessions, an optional
//! task tool runs as a plain call.
//!
//! Prompts, resources and completions are async functions too ([`Router::prompt`] and
//! [`Router::typed_prompt`] giving [`PromptMessages`], [`Router::resource`] and
//! [`Router::resource_template`] giving [`ResourceContents`], [`Router::completion`] giving
//! [`Completions`]), deferred and cancelled the same way.
//!
//! The router serves a byte stream ([`Router::into_server`]: stdio, a child's pipes, a serial
//! line) or, with the `http` feature, Streamable HTTP in both eras (`Router::into_http`).
//!
//! Prompt, resource and template functions registered with [`Router::prompt_with_context`] (or
//! [`Router::typed_prompt_with_context`]), [`Router::resource_with_context`] and
//! [`Router::resource_template_with_context`] get a [`Context`] too, with the same progress, logs
//! and questions in both eras (a 2026-07-28 read is answered `input_required` and retried like a
//! call). A completion function registered with [`Router::completion_with_context`] gets progress
//! and logs only: 2026-07-28 defines no `input_required` answer to `completion/complete`, so its
//! questions answer [`InputError::NotAllowed`] in both eras ([`input`] says why).
//!
//! [`tools`] makes the router of an `impl`'s `#[tool]`, `#[prompt]` and `#[resource]` methods,
//! each of which may take the request's [`Context`] last.

use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, OnceLock};

use futures_util::future::{AbortHandle, Abortable};
use mcp_sansio::endpoint::OutboundKey;
use mcp_sansio::server::{
    Config, Deferred, DeferredKey, Event, Handler, HmacSealer, OwnedBuffers, Registry, ReplyError, Server,
};
use mcp_sansio_driver::{JobQueue, JobStatus, job_queue};

pub use mcp_sansio::mcp::TaskSupport;
pub use mcp_sansio::server::Structured;

/// `#[tools]` on an `impl`: its `#[tool]`, `#[prompt]` and `#[resource]` methods as one
/// [`Router`], made by a generated `router(self: Arc<Self>)`. Each may take the request's
/// [`Context`] last (a parameter whose type is `Context` or a path ending in it), and is then
/// registered with the `_with_context` form of its method:
///
/// - `#[tool]`: `async fn name(&self[, arguments: A][, context: Context]) -> R` (`A`, `R` as for
///   [`Router::tool`]); its doc comment is the tool's description, its name the tool's name
///   (`#[tool(name = "…", description = "…")]` to choose them). `#[tool(task)]` (or `task =
///   "optional"`) makes it a long-running tool, a task when the client can follow one, and
///   `#[tool(task = "required")]` one that runs only as a task ([`Router::task_tool`]).
/// - `#[prompt]`: `async fn name(&self[, arguments: A][, context: Context]) -> R`, as for
///   [`Router::typed_prompt`] (`R` a [`PromptOutput`]); description and name as for a tool.
/// - `#[resource(uri = "…")]`: `async fn name(&self[, context: Context]) -> R`, as for
///   [`Router::resource`] (`R` a [`ResourceOutput`]); `#[resource(template = "…")]`: `async fn
///   name(&self[, uri: String], variables: V[, context: Context]) -> R`, as for
///   [`Router::resource_template`]. Both take `name = "…"` (the method's name otherwise),
///   `description = "…"` (the doc comment otherwise; optional) and `mime_type = "…"`.
///
/// A completion function is added to the router it makes ([`Router::completion`]).
///
/// ```
/// use std::sync::Arc;
///
/// use mcp_sansio::mcp::LoggingLevel;
/// use mcp_sansio_router::{Context, Elicitation, InputError, PromptMessages, Structured, tools};
///
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct Add {
///     a: i64,
///     b: i64,
/// }
///
/// #[derive(serde::Serialize, schemars::JsonSchema)]
/// struct Sum {
///     sum: i64,
/// }
///
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct Allow {
///     allow: bool,
/// }
///
/// struct Calculator;
///
/// #[tools]
/// impl Calculator {
///     /// Adds two numbers.
///     #[tool]
///     async fn add(&self, Add { a, b }: Add) -> Structured<Sum> {
///         Structured(Sum { sum: a + b })
///     }
///
///     /// Counts to ten, reporting progress.
///     #[tool(name = "count")]
///     async fn count_to_ten(&self, context: Context) -> &'static str {
///         for i in 1..=10 {
///             context.progress(i, Some(10), None);
///         }
///         "ten"
///     }
///
///     /// Asks for a number to double.
///     #[prompt]
///     async fn double(&self) -> PromptMessages {
///         PromptMessages::new().user("Which number should I double?")
///     }
///
///     /// The calculator's memory, if the user lets it be read.
///     #[resource(uri = "calculator://memory", mime_type = "text/plain")]
///     async fn memory(&self, context: Context) -> Result<&'static str, InputError> {
///         context.log(LoggingLevel::Info, "reading the memory");
///         match context.elicit::<Allow>("Read the memory?").await? {
///             Elicitation::Accept(Allow { allow: true }) => Ok("42"),
///             _ => Ok("(private)"),
///         }
///     }
/// }
///
/// let router = Arc::new(Calculator).router();
/// ```
pub use mcp_sansio_macros::tools;

/// For `#[tools]`: the bounds of a tool method's types, checked where they are written.
#[doc(hidden)]
pub mod __private {
    /// A tool method's arguments type.
    pub fn arguments<A: serde::de::DeserializeOwned + schemars::JsonSchema + Send + 'static>() {}
    /// A tool method's output type.
    pub fn output<R: super::ToolOutput>() {}
}

/// Requests served at once (deferred tool calls included): the server's `IN_FLIGHT`.
pub const MAX_IN_FLIGHT: usize = 64;
/// The server's receive and transmit buffers: the longest message either way.
pub const BUFFER: usize = 1 << 20;
/// How long a retry may follow an `input_required` answer, with the router's own sealer
/// ([`Router::into_server`]).
pub const STATE_LIFETIME: mcp_sansio::time::Duration = mcp_sansio::time::Duration::from_secs(600);

/// Tasks kept at once by [`Router::into_server`]'s engine when a tool may run as a task
/// ([`Router::task_tool`]); when all are kept, an optional task tool's call runs as a plain one.
pub const MAX_TASKS: usize = 64;
/// Bytes per task of [`Router::into_server`]'s engine: its request, its result or questions, and
/// the answers; a result that does not fit fails its task with `-32603`.
pub const TASK_BYTES: usize = 64 * 1024;

/// The server a [`Router`] becomes ([`Router::into_server`]): the core's [`Registry`] as its
/// handler.
pub type RouterServer = Server<'static, Registry, MAX_IN_FLIGHT, OUTBOUND>;

/// A future the router gives to the runtime to run.
pub type BoxFuture = Pin<Box<dyn Future<Output = ()> + Send + 'static>>;

mod completion;
mod context;
mod engines;
pub mod input;
mod prompt;
mod resource;
mod tool;

pub use completion::{CompletionOutput, CompletionQuery, Completions, Reference};
pub use context::{Context, Elicitation, Root};
pub use engines::{OUTBOUND, RouterEngine};
pub use input::InputError;
pub use prompt::{PromptMessages, PromptOutput};
#[doc(hidden)]
pub use resource::__resource;
pub use resource::{ResourceContents, ResourceOutput};
pub use tool::{NoArguments, ToolOutput};

/// The JSON text of a generated schema, without its `$schema`: schemars writes JSON Schema
/// 2020-12, the dialect of MCP from 2025-11-25 on (the default there when a schema names none);
/// without the declaration a client of an older version reads it in its own dialect (draft-07),
/// where the keywords schemars writes for structs, enums, options, sequences and maps mean the same
/// (a `$ref` into `$defs` is a JSON pointer in both; a tuple's `prefixItems` goes unchecked).
fn schema_text(mut schema: schemars::Schema) -> String {
    schema.remove("$schema");
    schema.as_value().to_string()
}

/// The runtime the router was given ([`Router::into_server`]), shared with its tools' closures.
struct Runtime {
    engines: engines::Engines,
    spawn: Arc<dyn Fn(BoxFuture) + Send + Sync>,
}

impl Runtime {
    /// The engine serving the request being handled now (call it from the handler).
    fn serving(&self) -> engines::Target {
        self.engines.serving(&self.spawn)
    }
}

/// What the tools' closures and the cancellation hook share.
#[derive(Default)]
struct Shared {
    runtime: OnceLock<Runtime>,
    /// The running calls, to abort on cancellation.
    running: Mutex<HashMap<DeferredKey, AbortHandle>>,
    /// Questions to legacy clients, by the key of their request, and who waits for the answer.
    waiting: Mutex<HashMap<OutboundKey, input::Waiting>>,
    /// Questions waiting for a free slot for requests to the client.
    parked: Mutex<std::collections::VecDeque<input::Parked>>,
}

/// Writes a deferred request's answer from what its future gave; hands it back when the reply
/// cannot be written now (`ReplyError::Busy`: again once output was written).
type Answer<T> = fn(&mut RouterEngine, &Deferred, T) -> Result<(), (ReplyError, T)>;

impl Shared {
    fn running(&self) -> std::sync::MutexGuard<'_, HashMap<DeferredKey, AbortHandle>> {
        self.running.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn waiting(&self) -> std::sync::MutexGuard<'_, HashMap<OutboundKey, input::Waiting>> {
        self.waiting.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn parked(&self) -> std::sync::MutexGuard<'_, std::collections::VecDeque<input::Parked>> {
        self.parked.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The [`Context`] of a request just deferred (call it from the handler: its notes and
    /// questions go to the engine serving the request now), asking through `input`.
    fn context(self: &Arc<Self>, runtime: &Runtime, input: &Arc<input::Input>, deferred: &Arc<Deferred>) -> Context {
        let jobs = runtime.serving();
        Context::new(input::Asker { input: input.clone(), deferred: deferred.clone(), jobs, shared: self.clone() })
    }

    /// Runs `future` on the runtime (aborted if the client cancels the request) and answers the
    /// deferred request with what it gives, from the driver's job queue.
    fn answer_later<T: Send + 'static>(
        self: &Arc<Self>,
        deferred: Arc<Deferred>,
        future: impl Future<Output = T> + Send + 'static,
        answer: Answer<T>,
    ) {
        self.run(deferred, future, answer, None);
    }

    /// [`answer_later`](Self::answer_later) for a function that may ask the client for input
    /// (`input`, for the call named `name`): a 2026-07-28 question it has no answer for ends it,
    /// and the call is answered `input_required`.
    fn run<T: Send + 'static>(
        self: &Arc<Self>,
        deferred: Arc<Deferred>,
        future: impl Future<Output = T> + Send + 'static,
        answer: Answer<T>,
        input: Option<(Arc<input::Input>, String)>,
    ) {
        let Some(runtime) = self.runtime.get() else { return };
        let (abort, registration) = AbortHandle::new_pair();
        if let Some((input, _)) = &input {
            let _ = input.abort.set(abort.clone());
        }
        self.running().insert(deferred.key(), abort);
        let (jobs, shared) = (runtime.serving(), self.clone());
        (runtime.spawn)(Box::pin(async move {
            let Ok(output) = Abortable::new(future, registration).await else {
                // Aborted: the client cancelled (its answer is suppressed by the engine), or the
                // function asked a question it has no answer for.
                let Some((input, name)) = input else { return };
                let Some(question) = input.take_unanswered() else { return };
                jobs.submit(move |engine: &mut RouterEngine, now| {
                    shared.running().remove(&deferred.key());
                    match input.reply(engine, now, &deferred, &name, &question) {
                        Err(ReplyError::Busy) => JobStatus::Retry,
                        _ => JobStatus::Done,
                    }
                });
                return;
            };
            let mut output = Some(output);
            jobs.submit(move |engine: &mut RouterEngine, _now| {
                shared.running().remove(&deferred.key());
                let Some(value) = output.take() else { return JobStatus::Done };
                match answer(engine, &deferred, value) {
                    Ok(()) => JobStatus::Done,
                    Err((ReplyError::Busy, value)) => {
                        output = Some(value);
                        JobStatus::Retry
                    }
                    // Cancelled meanwhile, or answered: nothing to write.
                    Err(_) => JobStatus::Done,
                }
            });
        }));
    }
}

/// Tools registered as typed async functions, in a [`Registry`] that becomes the server's
/// handler. See the [crate docs](crate).
#[must_use = "a router serves once made a server with `into_server`"]
pub struct Router {
    registry: Registry,
    shared: Arc<Shared>,
}

impl Default for Router {
    fn default() -> Self {
        Router::new()
    }
}

impl fmt::Debug for Router {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = (0..).map_while(|i| self.registry.tool(i)).map(|t| t.name).collect();
        f.debug_struct("Router").field("tools", &names).finish_non_exhaustive()
    }
}

impl Router {
    /// A router without tools. It declares `logging` (its functions log through their
    /// [`Context`]).
    pub fn new() -> Self {
        let shared = Arc::new(Shared::default());
        let mut registry = Registry::new();
        let cancelled = shared.clone();
        let answered = shared.clone();
        registry
            .declare_logging()
            .set_events(move |_now, event| {
                if let Event::Cancelled { request } = event
                    && let Some(abort) = cancelled.running().remove(&request)
                {
                    abort.abort();
                }
            })
            .set_responses(move |_now, response| input::deliver(&answered, response.request, response.outcome));
        Router { registry, shared }
    }

    /// The registry, to register resources, templates, prompts and a completion closure
    /// ([`Registry::add_resource`], [`Registry::add_prompt`], …) beside the typed tools.
    pub fn registry(&mut self) -> &mut Registry {
        &mut self.registry
    }

    /// The server that serves these tools (over owned [`BUFFER`]-byte buffers), and the job queue
    /// its driver must run (`serve_stdio_with_jobs`, `run_with_jobs`). `spawn` runs a call's
    /// future on the runtime (`tokio::spawn`, `smol::spawn(…).detach()`).
    ///
    /// Without a [`state_sealer`](Config::state_sealer) in `config` the router seals 2026-07-28
    /// `requestState` (the answers a function got in earlier rounds, see [`input`]) with an
    /// [`HmacSealer`] on a random key of its own, valid for [`STATE_LIFETIME`]; replicas that may
    /// receive each other's retries need a sealer with a shared key instead.
    ///
    /// When a tool may run as a task ([`Router::task_tool`]) the server gets a task table of
    /// [`MAX_TASKS`] tasks of [`TASK_BYTES`] each, kept an hour (the core's defaults), ids from
    /// the operating system's randomness ([`mcp_sansio_driver::task_table`]); another one may
    /// replace it ([`Engine::set_task_table`](mcp_sansio::server::Engine::set_task_table)).
    pub fn into_server(
        self,
        mut config: Config<'static>,
        spawn: impl Fn(BoxFuture) + Send + Sync + 'static,
    ) -> (RouterServer, JobQueue<RouterServer>) {
        seal_by_default(&mut config);
        let (jobs, queue) = job_queue();
        let runs_tasks = self.runs_tasks();
        let _ = self.shared.runtime.set(Runtime { engines: engines::Engines::Queue(jobs), spawn: Arc::new(spawn) });
        let mut server = Server::new_owned(self.registry, config, OwnedBuffers::zeroed(BUFFER, BUFFER, 0));
        if runs_tasks {
            // The driver's clock starts at zero when it starts serving.
            let (ttl, poll) =
                (mcp_sansio::server::tasks::DEFAULT_TASK_TTL, mcp_sansio::server::tasks::DEFAULT_POLL_INTERVAL);
            let zero = mcp_sansio::time::Instant::from_millis(0);
            server.set_task_table(mcp_sansio_driver::task_table(MAX_TASKS, TASK_BYTES, ttl, poll, zero));
        }
        (server, queue)
    }

    /// Whether a tool may run as a task ([`Router::task_tool`]): the engine then needs a task table.
    fn runs_tasks(&self) -> bool {
        (0..).map_while(|i| self.registry.tool(i)).any(|tool| tool.task_support != TaskSupport::Forbidden)
    }

    /// The Streamable HTTP endpoint that serves these tools (both eras: the stateless 2026-07-28
    /// engine and legacy sessions; serve it with `mcp_sansio_http::serve`). A call's answer,
    /// progress, log messages and questions go to the engine that received it. `spawn` and the
    /// request state's sealing as for [`Router::into_server`] (`config.engine`'s sealer). When a
    /// tool may run as a task ([`Router::task_tool`]) and `config.tasks` is `None`, the stateless
    /// engine and each legacy session's get tasks with the default `TaskLimits` (2025-11-25
    /// sessions: `params.task`, see `TaskLimits::session_tasks`).
    ///
    /// ```no_run
    /// # async fn serve() -> std::io::Result<()> {
    /// use mcp_sansio::server::Config;
    /// use mcp_sansio_http::HttpConfig;
    /// use mcp_sansio_router::Router;
    ///
    /// let addr = "127.0.0.1:8000".parse().unwrap();
    /// let config = HttpConfig::new(Config::new("hello", "1.0.0"), addr);
    /// let router = Router::new().tool("hello", "Says hello", |_: mcp_sansio_router::NoArguments| async { "hello" });
    /// let endpoint = router.into_http(config, |future| {
    ///     tokio::spawn(future);
    /// });
    /// let listener = tokio::net::TcpListener::bind(addr).await?;
    /// mcp_sansio_http::serve(listener, endpoint, mcp_sansio_http::shutdown_signal()).await
    /// # }
    /// ```
    #[cfg(feature = "http")]
    pub fn into_http(
        self,
        mut config: mcp_sansio_http::HttpConfig,
        spawn: impl Fn(BoxFuture) + Send + Sync + 'static,
    ) -> mcp_sansio_http::McpHttp<Registry> {
        seal_by_default(&mut config.engine);
        if config.tasks.is_none() && self.runs_tasks() {
            config.tasks = Some(mcp_sansio_http::TaskLimits::default());
        }
        let endpoint = mcp_sansio_http::McpHttp::new(self.registry, config);
        let engines = engines::Engines::Http(endpoint.downgrade());
        let _ = self.shared.runtime.set(Runtime { engines, spawn: Arc::new(spawn) });
        endpoint
    }
}

/// Gives `config` the router's own [`HmacSealer`] (a random key, [`STATE_LIFETIME`]) if it has no
/// sealer.
fn seal_by_default(config: &mut Config<'static>) {
    if config.state_sealer.is_none() {
        let mut key = [0u8; 32];
        if getrandom::fill(&mut key).is_ok() {
            config.state_sealer = Some(Box::leak(Box::new(HmacSealer::new(key, STATE_LIFETIME))));
        }
    }
}
