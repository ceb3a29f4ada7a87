//! Tools declared once: [`ToolSet`] pairs each [`Tool`] with its function, so a tool's name is
//! written once and its table entry and its dispatch cannot drift apart; [`ToolResult`] writes
//! what a function returns as the tool's result; [`ToolCall::run`] reads typed arguments, runs a
//! function and answers with its result or with the version's error for arguments that do not
//! match. `no_std`, no allocation, `const` tables.

use core::fmt;

use serde::{Deserialize, Serialize};

use crate::json::JsonStr;
use crate::server::{Tool, ToolCall, ToolReply};

/// The function of one tool: the handler's state, the call and its reply.
pub type ToolFn<S> = for<'c, 'r> fn(&mut S, ToolCall<'c>, ToolReply<'r>);

/// A `const` table of tools and their functions, over the handler's state `S`.
///
/// ```
/// use mcp_sansio::server::{Handler, Structured, Tool, ToolCall, ToolReply, ToolSet};
///
/// #[derive(Default)]
/// struct Board {
///     position: i32,
/// }
///
/// #[derive(serde::Deserialize)]
/// struct Move {
///     steps: i32,
/// }
///
/// #[derive(serde::Serialize)]
/// struct Position {
///     position: i32,
/// }
///
/// const MOVE_SCHEMA: &str =
///     r#"{"type":"object","properties":{"steps":{"type":"integer"}},"required":["steps"]}"#;
/// const POSITION_SCHEMA: &str = r#"{"type":"object","properties":{"position":{"type":"integer"}}}"#;
///
/// const TOOLS: ToolSet<Board, 2> = ToolSet::new([
///     (Tool::new("move", "Moves the axis", MOVE_SCHEMA).with_output_schema(POSITION_SCHEMA), |board, call, reply| {
///         call.run(reply, |m: Move| {
///             board.position += m.steps;
///             Structured(Position { position: board.position })
///         })
///     }),
///     (Tool::new("home", "Moves the axis home", r#"{"type":"object"}"#), |board, _call, reply| {
///         board.position = 0;
///         reply.send("home")
///     }),
/// ]);
///
/// impl Handler for Board {
///     const TOOLS: &'static [Tool<'static>] = TOOLS.tools();
///
///     fn call_tool(&mut self, call: ToolCall<'_>, reply: ToolReply<'_>) {
///         TOOLS.call(self, call, reply)
///     }
/// }
/// ```
pub struct ToolSet<S: 'static, const N: usize> {
    tools: [Tool<'static>; N],
    functions: [ToolFn<S>; N],
}

impl<S: 'static, const N: usize> ToolSet<S, N> {
    /// The set of `entries`, each a tool and its function, listed in this order. At least one.
    pub const fn new(entries: [(Tool<'static>, ToolFn<S>); N]) -> Self {
        assert!(N > 0, "a ToolSet has at least one tool");
        let mut tools = [entries[0].0; N];
        let mut functions = [entries[0].1; N];
        let mut i = 1;
        while i < N {
            tools[i] = entries[i].0;
            functions[i] = entries[i].1;
            i += 1;
        }
        ToolSet { tools, functions }
    }

    /// The tools, for [`Handler::TOOLS`](crate::server::Handler::TOOLS).
    pub const fn tools(&'static self) -> &'static [Tool<'static>] {
        &self.tools
    }

    /// Runs the function of the tool called ([`ToolCall::index`], from the engine's lookup of
    /// [`Handler::tool`](crate::server::Handler::tool)); a call past the table (a handler whose
    /// `tool` lists more) is answered as an unknown tool.
    pub fn call(&self, state: &mut S, call: ToolCall<'_>, reply: ToolReply<'_>) {
        match self.functions.get(call.index) {
            Some(function) => function(state, call, reply),
            None => reply.finish_error_text("unknown tool"),
        }
    }
}

/// What a tool's function returns, written as the tool's result by [`ToolReply::send`].
///
/// Text (`&str`, `heapless::String`, `String` with `alloc`, `format_args!`, a [`JsonStr`] of the
/// request), [`Structured`] output (serialized, with its
/// text block), `()` (an empty result), and `Result<T, E: Display>`, whose error is a tool
/// execution error (`isError: true`, the error's text) that the model sees.
pub trait ToolResult {
    /// Writes `self` into `reply` and sends it.
    fn send(self, reply: ToolReply<'_>);
}

impl ToolResult for &str {
    fn send(self, reply: ToolReply<'_>) {
        reply.text(self).finish()
    }
}

impl<const N: usize> ToolResult for heapless::String<N> {
    fn send(self, reply: ToolReply<'_>) {
        reply.text(&self).finish()
    }
}

#[cfg(feature = "alloc")]
impl ToolResult for alloc::string::String {
    fn send(self, reply: ToolReply<'_>) {
        reply.text(&self).finish()
    }
}

/// A string of the request (its arguments), echoed without unescaping it.
impl ToolResult for JsonStr<'_> {
    fn send(self, reply: ToolReply<'_>) {
        reply.text_json(self).finish()
    }
}

impl ToolResult for fmt::Arguments<'_> {
    fn send(self, reply: ToolReply<'_>) {
        reply.text_fmt(self).finish()
    }
}

impl ToolResult for () {
    fn send(self, reply: ToolReply<'_>) {
        reply.finish()
    }
}

/// Structured output: `structuredContent` serialized from `T` (declare the tool's
/// [`output_schema`](Tool::output_schema) to match it), and its JSON text as a text block for
/// clients of versions without structured output.
pub struct Structured<T: Serialize>(pub T);

impl<T: Serialize> ToolResult for Structured<T> {
    fn send(self, reply: ToolReply<'_>) {
        reply.structured(&self.0).finish()
    }
}

impl<T: ToolResult, E: fmt::Display> ToolResult for Result<T, E> {
    fn send(self, reply: ToolReply<'_>) {
        match self {
            Ok(value) => value.send(reply),
            Err(error) => reply.text_fmt(format_args!("{error}")).finish_error(),
        }
    }
}

impl ToolReply<'_> {
    /// Sends `result` ([`ToolResult`]).
    pub fn send(self, result: impl ToolResult) {
        result.send(self)
    }
}

impl<'a> ToolCall<'a> {
    /// Reads the arguments as a `T` ([`ToolCall::arguments`]) and answers with what `function`
    /// returns for them, or, when they do not match, as the version prescribes
    /// ([`ToolReply::invalid_arguments`]).
    pub fn run<T: Deserialize<'a>, R: ToolResult>(self, reply: ToolReply<'_>, function: impl FnOnce(T) -> R) {
        match self.arguments::<T>() {
            Ok(arguments) => function(arguments).send(reply),
            Err(error) => reply.invalid_arguments(&error),
        }
    }
}
