//! Tools: [`Router::tool`], [`Router::tool_with_context`] and [`Router::task_tool`], and what a
//! tool function takes and returns ([`NoArguments`], [`ToolOutput`]).

use std::fmt;
use std::future::Future;
use std::sync::Arc;

use mcp_sansio::mcp::TaskSupport;
use mcp_sansio::server::{Structured, ToolCall, ToolInfo, ToolReply, ToolResult};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;

use crate::{Context, Router, input, schema_text};

/// The arguments of a tool that takes none: any object (an empty one).
#[derive(Clone, Copy, Debug, Default, serde::Deserialize, JsonSchema)]
pub struct NoArguments {}

/// What a tool function returns: a [`ToolResult`] (text, [`Structured`] output, `()`,
/// `Result<_, E: Display>` as a tool execution error) that can cross to the runtime's tasks,
/// with the output schema it declares.
pub trait ToolOutput: ToolResult + Send + 'static {
    /// The JSON Schema of its `structuredContent`, if it has one.
    fn output_schema() -> Option<schemars::Schema> {
        None
    }
}

impl ToolOutput for String {}
impl ToolOutput for &'static str {}
impl ToolOutput for () {}

impl<T: serde::Serialize + JsonSchema + Send + 'static> ToolOutput for Structured<T> {
    fn output_schema() -> Option<schemars::Schema> {
        Some(schemars::schema_for!(T))
    }
}

impl<T: ToolOutput, E: fmt::Display + Send + 'static> ToolOutput for Result<T, E> {
    fn output_schema() -> Option<schemars::Schema> {
        T::output_schema()
    }
}

impl Router {
    /// Registers the tool `name`: `function` is called with its arguments read as an `A` (whose
    /// schema, generated with schemars, is the tool's input schema) and its output sent as the
    /// result. A name registered twice keeps the last registration.
    pub fn tool<A, F, Fut, R>(self, name: &str, description: &str, function: F) -> Self
    where
        A: DeserializeOwned + JsonSchema + Send + 'static,
        F: Fn(A) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: ToolOutput,
    {
        self.tool_with_context(name, description, move |arguments: A, _: Context| function(arguments))
    }

    /// [`Router::tool`] whose function also gets the request's [`Context`] (progress, logging,
    /// questions to the client).
    pub fn tool_with_context<A, F, Fut, R>(self, name: &str, description: &str, function: F) -> Self
    where
        A: DeserializeOwned + JsonSchema + Send + 'static,
        F: Fn(A, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: ToolOutput,
    {
        self.task_tool(name, description, TaskSupport::Forbidden, function)
    }

    /// Registers a long-running tool: [`Router::tool_with_context`] whose calls become tasks
    /// (the 2026-07-28 extension `io.modelcontextprotocol/tasks`) as `support` says, with no
    /// further code. A call that becomes a task is answered at once with the task
    /// (`resultType: "task"`); the function runs on, its output becomes the task's result (read
    /// with `tasks/get`), a question it asks ([`Context::elicit`], …) makes the task
    /// `input_required` (the client answers with `tasks/update`, and the function runs again with
    /// the answers, as a 2026-07-28 retry runs it: see [`input`]), and `tasks/cancel` drops its
    /// future. A task has no stream: its [`Context::progress`] and [`Context::log`] send nothing.
    /// Arguments that do not match are answered at once, without a task.
    ///
    /// - [`TaskSupport::Optional`]: a task when the request declared the extension (in its `_meta`
    ///   client capabilities) or, in a 2025-11-25 session, asked for one (`params.task`);
    ///   otherwise a plain call as [`Router::tool_with_context`] runs it.
    /// - [`TaskSupport::Required`]: only a task. The engine answers a client that did not declare
    ///   the extension `-32021` before the function runs (`-32601` for a 2025-11-25 call without
    ///   `params.task`); a call that finds the task table full is answered `-32603`.
    ///
    /// A task's questions ([`Context::elicit`] and the others) end the run and are asked in rounds
    /// in both eras (see [`input`]): 2026-07-28 clients answer with `tasks/update`;
    /// 2025-11-25 clients are asked by the engine once they have seen the task's `input_required`
    /// status.
    /// - [`TaskSupport::Forbidden`]: never a task ([`Router::tool_with_context`]).
    ///
    /// [`Router::into_server`] and `Router::into_http` give the engine a task table when a tool
    /// registered here may run as a task. `#[tool(task)]` (`task = "required"`) registers a
    /// [`tools`](crate::tools) method this way.
    ///
    /// ```
    /// use mcp_sansio_router::{Context, NoArguments, Router, TaskSupport};
    ///
    /// let router = Router::new().task_tool(
    ///     "report",
    ///     "Builds the monthly report (takes minutes)",
    ///     TaskSupport::Optional,
    ///     |_: NoArguments, _: Context| async {
    ///         // … long work …
    ///         "the report"
    ///     },
    /// );
    /// ```
    pub fn task_tool<A, F, Fut, R>(mut self, name: &str, description: &str, support: TaskSupport, function: F) -> Self
    where
        A: DeserializeOwned + JsonSchema + Send + 'static,
        F: Fn(A, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: ToolOutput,
    {
        let mut info = ToolInfo::new(name, description, schema_text(schemars::schema_for!(A)));
        info.output_schema = R::output_schema().map(schema_text);
        info.task_support = support;
        let shared = self.shared.clone();
        self.registry.add_tool(info, move |call: ToolCall<'_>, mut reply: ToolReply<'_>| {
            let arguments = match call.arguments::<A>() {
                Ok(arguments) => arguments,
                Err(error) => return reply.invalid_arguments(&error),
            };
            let Some(runtime) = shared.runtime.get() else {
                return reply.fail(mcp_sansio::jsonrpc::code::INTERNAL_ERROR, "the router has no runtime");
            };
            // A task: answered with the task when deferred below, the output kept as its result.
            let task = match support {
                TaskSupport::Forbidden => false,
                _ => match reply.run_as_task() {
                    Ok(()) => true,
                    Err(why) if support == TaskSupport::Required => return reply.refuse_task(why),
                    Err(_) => false,
                },
            };
            let input = Arc::new(input::Input::new(&call.context).for_task(task));
            // No free slot: answered with an internal error already.
            let Ok(deferred) = reply.defer() else { return };
            let deferred = Arc::new(deferred);
            let future = function(arguments, shared.context(runtime, &input, &deferred));
            let input = Some((input, call.name.to_owned()));
            shared.run(
                deferred,
                future,
                |server, deferred, output: R| {
                    let reply = match server.reply_tool(deferred) {
                        Ok(reply) => reply,
                        Err(error) => return Err((error, output)),
                    };
                    output.send(reply);
                    Ok(())
                },
                input,
            );
        });
        self
    }
}
