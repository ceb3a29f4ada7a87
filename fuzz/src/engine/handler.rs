//! The application under test: the tables of tools, resources and prompts, and a handler that
//! answers at once, defers, asks for input, logs and reports progress.

use super::*;

pub(super) const SCHEMA: &str = r#"{"type":"object","properties":{"text":{"type":"string"},"n":{"type":"integer"}}}"#;

/// A tool with a title, an output schema and annotations, and no description.
pub(super) const STRUCTURED_TOOL: Tool<'static> = {
    let mut tool = Tool::new("structured", "", SCHEMA)
        .with_title("Structured")
        .with_output_schema(r#"{"type":"array"}"#)
        .with_annotations(mcp_sansio::server::ToolAnnotations::new().with_read_only(true).with_idempotent(false));
    tool.description = None;
    tool
};

/// `tool` with the task support `support` (without the feature `tasks`: `tool`).
pub(super) const fn task_tool(tool: Tool<'static>, support: TaskSupport) -> Tool<'static> {
    #[cfg(feature = "tasks")]
    return tool.with_task_support(support);
    #[cfg(not(feature = "tasks"))]
    {
        let _ = support;
        tool
    }
}

/// The application's tools, by name; see [`FuzzHandler::call_tool`].
pub(super) static TOOLS: [Tool<'static>; 13] = [
    task_tool(Tool::new("ask", "Asks the user (elicitation), then answers", SCHEMA), TaskSupport::Optional),
    Tool::new("notes", "Logs and reports progress, then answers", SCHEMA),
    Tool::new("echo", "Returns `text` zero-copy", SCHEMA),
    Tool::new("echo_fmt", "Returns `text` formatted", SCHEMA),
    task_tool(Tool::new("defer", "Answered later", SCHEMA), TaskSupport::Optional),
    Tool::new("big", "Returns `n` bytes of text", SCHEMA),
    STRUCTURED_TOOL,
    Tool::new("misorder", "Structured content after text (an application bug)", SCHEMA),
    Tool::new("image", "Returns `text` as image bytes", SCHEMA),
    Tool::new("drop", "Drops its reply (an application bug)", SCHEMA),
    Tool::new("fail", "A JSON-RPC error with code `n`", SCHEMA),
    Tool::new("error", "An isError result", SCHEMA),
    task_tool(Tool::new("job", "Runs only as a task; what it does depends on `n`", SCHEMA), TaskSupport::Required),
];

/// Listed only when the configuration asks for it: `tools/list` must fail cleanly.
pub(super) const BAD_SCHEMA_TOOL: Tool<'static> = Tool::new("bad_schema", "Its schema is not JSON", "{\"type\":");

pub(super) static RESOURCES: [Resource<'static>; 3] = [
    Resource::new("fz://text", "text").with_title("Text").with_mime_type("text/plain"),
    Resource::new("fz://blob", "blob").with_description("Bytes"),
    Resource::new("fz://defer", "defer"),
];

pub(super) static PROMPT_ARGUMENTS: [PromptArgument<'static>; 1] =
    [PromptArgument::new("name", true).with_description("Who")];
pub(super) static PROMPTS: [Prompt<'static>; 3] = [
    Prompt::new("hello", &PROMPT_ARGUMENTS).with_title("Hello").with_description("Greets"),
    Prompt::new("later", &[]),
    Prompt::new("fail", &[]),
];

pub(super) static TEMPLATES: [ResourceTemplate<'static>; 1] = [ResourceTemplate::new("fz://t/{+x}", "t")];

pub(super) const FORM: &str = r#"{"type":"object","properties":{"ok":{"type":"boolean"}}}"#;

/// `n` repetitions of a character, formatted without a buffer.
pub(super) struct Repeat(pub(super) usize, pub(super) char);

impl fmt::Display for Repeat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for _ in 0..self.0 {
            fmt::Write::write_char(f, self.1)?;
        }
        Ok(())
    }
}

/// The application under test. It holds the handles of deferred requests.
#[derive(Default)]
pub(super) struct FuzzHandler {
    pub(super) bad_schema: bool,
    /// Whether the engine has a task table.
    #[cfg_attr(not(feature = "tasks"), allow(dead_code))]
    pub(super) task_table: bool,
    pub(super) deferred: Vec<Deferred>,
    /// The keys of the deferred requests that are tasks' (a subset of `deferred`).
    pub(super) task_handles: HashSet<DeferredKey>,
    /// How often the engine told of the cancellation of a task's deferred request.
    pub(super) task_cancellations: usize,
    pub(super) events: usize,
}

pub(super) fn argument_text(call: &ToolCall<'_>) -> Option<String> {
    call.argument("text").and_then(|v| v.as_str()).map(|s| s.chars().collect())
}

impl FuzzHandler {
    pub(super) fn keep(&mut self, deferred: Result<Deferred, mcp_sansio::server::DeferError>, task: bool) {
        // On error the engine has answered already.
        if let Ok(deferred) = deferred {
            if task {
                self.task_handles.insert(deferred.key());
            }
            self.deferred.push(deferred);
        }
    }

    /// Makes the call a task where it can be one: `Some((reply, is_task))`, or `None` when a tool
    /// that runs only as a task (`required`) cannot be one and was refused as the reason says.
    /// Checks the reason against what the request declared: a call may become a task exactly when
    /// the engine has a table and the request is a 2026-07-28 one declaring the extension (a task
    /// run again after its input carries its first request's `_meta`).
    pub(super) fn as_task<'r>(
        &self,
        call: &ToolCall<'_>,
        reply: ToolReply<'r>,
        required: bool,
    ) -> Option<(ToolReply<'r>, bool)> {
        #[cfg(feature = "tasks")]
        {
            let mut reply = reply;
            let may = self.task_table
                && call.context.version.era() == mcp_sansio::version::Era::Modern
                && call.context.client.tasks;
            match reply.run_as_task() {
                Ok(()) => {
                    assert!(may, "a call that cannot be a task became one");
                    Some((reply, true))
                }
                Err(why) => {
                    assert_eq!(why == NoTask::Unavailable, !may, "run_as_task refused: {why:?}");
                    if !required {
                        return Some((reply, false));
                    }
                    // The engine refuses such a call before the handler runs.
                    assert_eq!(why, NoTask::Full, "a tool that must be a task ran where it cannot be one");
                    reply.refuse_task(why);
                    None
                }
            }
        }
        #[cfg(not(feature = "tasks"))]
        {
            let _ = (call, required);
            Some((reply, false))
        }
    }

    /// The tool `job` (a task whenever it runs): by `n % 5` it answers at once, defers, asks for
    /// input (`ok` and `more`; once both are in, by `n / 5 % 3`: answers, defers, or asks `again`),
    /// fails, or answers `n` bytes (more than a task's share of the table).
    pub(super) fn job(&mut self, call: &ToolCall<'_>, reply: ToolReply<'_>, n: u64, task: bool) {
        let form = InputRequest::ElicitForm { message: "Go on?", requested_schema: FORM };
        match n % 5 {
            0 => reply.text("job done").finish(),
            1 => self.keep(reply.defer(), task),
            2 => {
                let input = |key| call.context.input(key);
                if input("again").is_some() {
                    reply.text("job: second round answered").finish()
                } else if let (Some(ok), Some(_)) = (input("ok"), input("more")) {
                    match n / 5 % 3 {
                        0 => reply.text(&String::from_utf8_lossy(ok.as_bytes())).finish(),
                        1 => self.keep(reply.defer(), task),
                        _ => reply.input_required().request("again", form).state(b"round 2").finish(),
                    }
                } else {
                    reply.input_required().request("ok", form).request("more", form).state(b"round 1").finish()
                }
            }
            3 => reply.fail(-32000, "the job failed"),
            _ => reply.text_fmt(format_args!("{}", Repeat(n.min(1 << 13) as usize, 'j'))).finish(),
        }
    }
}

impl Handler for FuzzHandler {
    const RESOURCE_TEMPLATES: &'static [ResourceTemplate<'static>] = &TEMPLATES;

    fn capabilities(&self) -> ServerCapabilities {
        ServerCapabilities::NONE
            .with_tools(ListCapability { list_changed: true })
            .with_resources(ResourceCapability { subscribe: true, list_changed: true })
            .with_prompts(ListCapability { list_changed: false })
            .with_logging()
            .with_completions()
    }

    fn complete(&mut self, request: CompletionRequest<'_>, reply: CompletionReply<'_>) {
        let n = request.value.len() * 7;
        let values: Vec<String> = (0..n).map(|i| format!("{}{i}", request.value)).collect();
        reply.values(values.iter().map(String::as_str)).finish()
    }

    fn tool(&self, index: usize) -> Option<Tool<'_>> {
        TOOLS.get(index).copied().or((self.bad_schema && index == TOOLS.len()).then_some(BAD_SCHEMA_TOOL))
    }

    fn resource(&self, index: usize) -> Option<Resource<'_>> {
        RESOURCES.get(index).copied()
    }

    fn prompt(&self, index: usize) -> Option<Prompt<'_>> {
        PROMPTS.get(index).copied()
    }

    fn call_tool(&mut self, call: ToolCall<'_>, reply: ToolReply<'_>) {
        let n = call.argument("n").and_then(|v| v.as_u64()).unwrap_or(0);
        match call.name {
            "ask" => {
                let Some((reply, _)) = self.as_task(&call, reply, false) else { return };
                match call.context.input("ok") {
                    Some(answer) => reply.text(&String::from_utf8_lossy(answer.as_bytes())).finish(),
                    None => reply
                        .input_required()
                        .request("ok", InputRequest::ElicitForm { message: "Sure?", requested_schema: FORM })
                        .state(&n.to_be_bytes())
                        .finish(),
                }
            }
            "notes" => {
                let mut reply = reply;
                for step in 0..n.min(8) {
                    let _ = reply.log(LoggingLevel::ALL[step as usize % 8], Some("fz"), format_args!("step {step}"));
                    let _ = reply.progress(step, Some(8), None);
                }
                reply.text("noted").finish()
            }
            "echo" => match call.argument("text").and_then(|v| v.as_str()) {
                Some(text) => reply.text_json(text).finish(),
                None => reply.finish_error_text("\"text\" must be a string"),
            },
            "echo_fmt" => match call.argument("text").and_then(|v| v.as_str()) {
                Some(text) => reply.text_fmt(format_args!("{text}")).finish(),
                None => reply.finish_error(),
            },
            "defer" => {
                let Some((reply, task)) = self.as_task(&call, reply, false) else { return };
                self.keep(reply.defer(), task)
            }
            "job" => {
                let Some((reply, task)) = self.as_task(&call, reply, true) else { return };
                self.job(&call, reply, n, task)
            }
            "big" => reply.text_fmt(format_args!("{}", Repeat(n.min(1 << 13) as usize, 'é'))).finish(),
            "structured" => {
                let text = argument_text(&call).unwrap_or_default();
                reply.structured(&(n, text.as_str(), true)).text("done").finish()
            }
            "misorder" => reply.text("first").structured(&[1u8, 2]).finish(),
            "image" => reply.image("image/png", argument_text(&call).unwrap_or_default().as_bytes()).finish(),
            "fail" => reply.fail(n as i32, "the tool failed"),
            "error" => reply.finish_error_text(&argument_text(&call).unwrap_or_default()),
            _ => drop(reply),
        }
    }

    fn read_resource(&mut self, read: ResourceRead<'_>, reply: ResourceReply<'_>) {
        match read.uri {
            "fz://text" => reply.text(read.uri, Some("text/plain"), "line one\nline two\u{0}").finish(),
            "fz://blob" => reply
                .blob(read.uri, None, &[0, 1, 2, 0xff])
                .cache(CacheHints::new(u64::MAX, CacheScope::Public))
                .finish(),
            "fz://json" => reply.json(read.uri, &(1u8, "two", [3.5f32])).finish(),
            "fz://defer" => self.keep(reply.defer(), false),
            "fz://empty" => reply.finish(),
            "fz://fail" => reply.fail(-1, "unreadable"),
            uri => reply.not_found(uri),
        }
    }

    fn get_prompt(&mut self, get: PromptGet<'_>, reply: PromptReply<'_>) {
        match get.name {
            "hello" => {
                let name = get.argument("name");
                reply
                    .description("A greeting")
                    .text_fmt(
                        Role::User,
                        format_args!("Say hello to {}", name.map(|n| n.to_string()).unwrap_or_default()),
                    )
                    .text(Role::Assistant, "Hello!")
                    .finish()
            }
            "later" => self.keep(reply.defer(), false),
            _ => reply.fail(-32000, "no prompt today"),
        }
    }

    fn on_event(&mut self, _now: Instant, event: Event<'_>) {
        self.events += 1;
        if let Event::Cancelled { request } = event
            && self.task_handles.contains(&request)
        {
            self.task_cancellations += 1;
        }
        if let Event::Endpoint(endpoint::Event::Rejected { code, reason }) = event {
            assert!((-32800..=-32000).contains(&code), "unexpected error code {code}");
            assert!(!reason.is_empty());
        }
    }
}
