//! The fixtures' behaviour. Everything the suite checks is done for real: logs and progress go
//! through the engine ahead of the answer, input (elicitation, sampling, roots) is asked for with
//! `input_required` and read back from the retry (the engine turns it into server-to-client
//! requests in legacy sessions), `requestState` is sealed by the configured sealer.

use std::sync::Arc;

use mcp_sansio::json::Value;
use mcp_sansio::jsonrpc::code;
use mcp_sansio::mcp::{ListCapability, LoggingLevel, ResourceCapability, ServerCapabilities};
use mcp_sansio::server::{
    CompletionRef, CompletionReply, CompletionRequest, Content, Handler, InputRequest, ListChanges, Prompt, PromptGet,
    PromptReply, Resource, ResourceContents, ResourceRead, ResourceReply, ResourceTemplate, Role, Tool, ToolCall,
    ToolReply,
};
use tokio::sync::Notify;

use crate::fixtures::*;
use crate::lists::{Dynamic, DynamicLists};

const LOGGER: Option<&str> = Some("conformance-test-server");

/// The fixtures' state: what was added at run time, and the watched resource's revision.
pub struct Fixtures {
    /// Whether test_dynamic_tool and test_dynamic_prompt are listed.
    dynamic: DynamicLists,
    /// Lists changed by a request, for the announcer task to tell every engine.
    pub changes: ListChanges,
    /// Wakes the announcer task.
    pub announce: Arc<Notify>,
    /// How often `test://watched-resource` changed.
    pub watched_revision: u64,
    /// Deferred calls to answer later ([`crate::tasks::run_jobs`]).
    pub jobs: tokio::sync::mpsc::UnboundedSender<crate::tasks::Job>,
}

impl Fixtures {
    pub fn new(
        dynamic: DynamicLists,
        announce: Arc<Notify>,
        jobs: tokio::sync::mpsc::UnboundedSender<crate::tasks::Job>,
    ) -> Self {
        Fixtures { dynamic, changes: ListChanges::NONE, announce, watched_revision: 0, jobs }
    }

    /// Adds or removes the dynamic tool; whether it is listed now.
    fn toggle_tool(&mut self) -> bool {
        self.changes.tools = true;
        self.announce.notify_one();
        self.dynamic.toggle(Dynamic::Tool)
    }

    /// Adds or removes the dynamic prompt; whether it is listed now.
    fn toggle_prompt(&mut self) -> bool {
        self.changes.prompts = true;
        self.announce.notify_one();
        self.dynamic.toggle(Dynamic::Prompt)
    }
}

/// The unescaped text of a string value, or `unknown`.
fn text(value: Option<Value<'_>>) -> String {
    value.and_then(|v| v.as_str()).map_or_else(|| "unknown".to_owned(), |s| s.to_string())
}

/// The JSON text of a value, or `{}`.
fn json_text(value: Option<Value<'_>>) -> &str {
    value.and_then(|v| std::str::from_utf8(v.as_bytes()).ok()).unwrap_or("{}")
}

/// The `content.<field>` of an elicitation answer, unescaped.
fn answered(answer: Option<Value<'_>>, field: &str) -> String {
    text(answer.and_then(|a| a.get("content")).and_then(|c| c.get(field)))
}

/// `sampling/createMessage` params asking `prompt` (JSON string content, still escaped).
fn sample_params(prompt: &str, max_tokens: u32) -> String {
    format!(
        r#"{{"messages":[{{"role":"user","content":{{"type":"text","text":"{prompt}"}}}}],"maxTokens":{max_tokens}}}"#
    )
}

impl Fixtures {
    fn elicit_then(&self, call: &ToolCall<'_>, reply: ToolReply<'_>, message: &str, form: &str, done: &str) {
        match call.context.input("answer") {
            Some(answer) => reply
                .text_fmt(format_args!(
                    "{done}: action={}, content={}",
                    text(answer.get("action")),
                    json_text(answer.get("content"))
                ))
                .finish(),
            None => {
                let ask = InputRequest::ElicitForm { message, requested_schema: form };
                reply.input_required().request("answer", ask).finish()
            }
        }
    }

    fn log_three(reply: &mut ToolReply<'_>) {
        for step in ["Tool execution started", "Tool processing data", "Tool execution completed"] {
            let _ = reply.log(LoggingLevel::Info, LOGGER, format_args!("{step}"));
        }
    }

    fn mrtr(&mut self, call: &ToolCall<'_>, reply: ToolReply<'_>) {
        let context = &call.context;
        let state = context.request_state;
        match call.name {
            "test_input_required_result_elicitation" => match context.input("user_name") {
                Some(answer) => reply.text_fmt(format_args!("Hello, {}!", answered(Some(answer), "name"))).finish(),
                None => {
                    let ask = InputRequest::ElicitForm { message: "What is your name?", requested_schema: NAME_FORM };
                    reply.input_required().request("user_name", ask).finish()
                }
            },
            "test_input_required_result_sampling" => match context.input("sample_request") {
                Some(answer) => reply
                    .text_fmt(format_args!(
                        "Sampling result: {}",
                        text(answer.get("content").and_then(|c| c.get("text")))
                    ))
                    .finish(),
                None => {
                    let params = sample_params("What is the capital of France?", 100);
                    let ask = InputRequest::Sample { params: &params };
                    reply.input_required().request("sample_request", ask).finish()
                }
            },
            "test_input_required_result_list_roots" => match context.input("roots_request") {
                Some(answer) => {
                    let roots = answer.get("roots").map_or(0, |r| r.elements().count());
                    reply.text_fmt(format_args!("Found {roots} root(s)")).finish()
                }
                None => reply.input_required().request("roots_request", InputRequest::ListRoots).finish(),
            },
            "test_input_required_result_request_state" | "test_input_required_result_tampered_state" => {
                let (kind, done) = if call.name.ends_with("request_state") {
                    (&b"request-state"[..], "state-ok: requestState validated")
                } else {
                    (&b"tamper-test"[..], "integrity-ok: state verified")
                };
                let confirm = context.input("confirm").and_then(|a| a.get("content")).and_then(|c| c.get("ok"));
                if state == Some(kind) && confirm.is_some() {
                    return reply.text(done).finish();
                }
                let ask = InputRequest::ElicitForm { message: "Please confirm", requested_schema: CONFIRM_FORM };
                reply.input_required().request("confirm", ask).state(kind).finish()
            }
            "test_input_required_result_multiple_inputs" => {
                let (name, greeting, roots) =
                    (context.input("user_name"), context.input("greeting"), context.input("client_roots"));
                if let (Some(b"multiple-inputs"), Some(name), Some(greeting), Some(roots)) =
                    (state, name, greeting, roots)
                {
                    let roots = roots.get("roots").map_or(0, |r| r.elements().count());
                    let greeting = text(greeting.get("content").and_then(|c| c.get("text")));
                    let name = answered(Some(name), "name");
                    return reply.text_fmt(format_args!("Name: {name}; Greeting: {greeting}; Roots: {roots}")).finish();
                }
                let params = sample_params("Generate a greeting", 50);
                reply
                    .input_required()
                    .request(
                        "user_name",
                        InputRequest::ElicitForm { message: "What is your name?", requested_schema: NAME_FORM },
                    )
                    .request("greeting", InputRequest::Sample { params: &params })
                    .request("client_roots", InputRequest::ListRoots)
                    .state(b"multiple-inputs")
                    .finish()
            }
            "test_input_required_result_multi_round" => {
                let round2 = state.and_then(|s| s.strip_prefix(b"round2:"));
                match (round2, context.input("step1"), context.input("step2")) {
                    (Some(name), _, Some(answer)) => {
                        let name = String::from_utf8_lossy(name);
                        let color = answered(Some(answer), "color");
                        reply.text_fmt(format_args!("Multi-round complete for {name} who likes {color}")).finish()
                    }
                    (None, Some(answer), _) if state == Some(b"round1") => {
                        let name = answered(Some(answer), "name");
                        let ask = InputRequest::ElicitForm {
                            message: "Step 2: What is your favorite color?",
                            requested_schema: COLOR_FORM,
                        };
                        let next = format!("round2:{name}");
                        reply.input_required().request("step2", ask).state(next.as_bytes()).finish()
                    }
                    _ => {
                        let ask = InputRequest::ElicitForm {
                            message: "Step 1: What is your name?",
                            requested_schema: NAME_FORM,
                        };
                        reply.input_required().request("step1", ask).state(b"round1").finish()
                    }
                }
            }
            "test_input_required_result_capabilities" => {
                if let Some(responses) = context.input_responses.filter(|r| r.members().next().is_some()) {
                    let keys: Vec<String> = responses.members().map(|(k, _)| k.to_string()).collect();
                    return reply.text_fmt(format_args!("capabilities-ok: received {}", keys.join(","))).finish();
                }
                let params = sample_params("Sample request", 50);
                let elicit = InputRequest::ElicitForm { message: "Elicitation input", requested_schema: VALUE_FORM };
                let sample = InputRequest::Sample { params: &params };
                let wanted = [("elicit_input", elicit), ("sample_input", sample)];
                let supported: Vec<_> = wanted.iter().filter(|(_, r)| r.is_supported_by(&context.client)).collect();
                if supported.is_empty() {
                    return reply.text("No supported capabilities declared").finish();
                }
                let mut input = reply.input_required();
                for (key, request) in supported {
                    input = input.request(key, *request);
                }
                input.state(b"capabilities-test").finish()
            }
            other => reply.finish_error_text(other),
        }
    }
}

impl Handler for Fixtures {
    const RESOURCES: &'static [Resource<'static>] = &RESOURCES;
    const RESOURCE_TEMPLATES: &'static [ResourceTemplate<'static>] = &RESOURCE_TEMPLATES;

    fn capabilities(&self) -> ServerCapabilities {
        ServerCapabilities::NONE
            .with_tools(ListCapability { list_changed: true })
            .with_resources(ResourceCapability { subscribe: true, list_changed: true })
            .with_prompts(ListCapability { list_changed: true })
            .with_logging()
            .with_completions()
    }

    fn tool(&self, index: usize) -> Option<Tool<'_>> {
        let tasks = &crate::tasks::TASK_TOOLS;
        match TOOLS.get(index).or_else(|| tasks.get(index - TOOLS.len())) {
            Some(tool) => Some(*tool),
            None => (index == TOOLS.len() + tasks.len() && self.dynamic.listed(Dynamic::Tool)).then_some(DYNAMIC_TOOL),
        }
    }

    fn prompt(&self, index: usize) -> Option<Prompt<'_>> {
        match PROMPTS.get(index) {
            Some(prompt) => Some(*prompt),
            None => (index == PROMPTS.len() && self.dynamic.listed(Dynamic::Prompt)).then_some(DYNAMIC_PROMPT),
        }
    }

    fn call_tool(&mut self, call: ToolCall<'_>, mut reply: ToolReply<'_>) {
        match call.name {
            "test_simple_text" => reply.text("This is a simple text response for testing.").finish(),
            "test_image_content" => reply.image("image/png", &PNG).finish(),
            "test_audio_content" => reply.audio("audio/wav", &WAV).finish(),
            "test_embedded_resource" => reply
                .embedded(ResourceContents::Text {
                    uri: "test://embedded-resource",
                    mime_type: Some("text/plain"),
                    text: "This is an embedded resource content.",
                })
                .finish(),
            "test_multiple_content_types" => reply
                .text("Multiple content types test:")
                .image("image/png", &PNG)
                .embedded(ResourceContents::Text {
                    uri: "test://mixed-content-resource",
                    mime_type: Some("application/json"),
                    text: r#"{"test":"data","value":123}"#,
                })
                .finish(),
            "test_tool_with_logging" => {
                Self::log_three(&mut reply);
                reply.text("Tool with logging executed successfully").finish()
            }
            "test_tool_with_progress" => {
                for step in [0, 50, 100] {
                    let message = format!("Completed step {step} of 100");
                    let _ = reply.progress(step, Some(100), Some(&message));
                }
                let token = call.context.meta.and_then(|m| m.get("progressToken"));
                match token.and_then(|t| t.as_str()) {
                    Some(token) => reply.text_fmt(format_args!("{token}")).finish(),
                    None => reply.text(json_text(token)).finish(),
                }
            }
            "test_error_handling" => reply.finish_error_text("This tool intentionally returns an error for testing"),
            "test_header_param" => match call.argument("region").and_then(|v| v.as_str()) {
                Some(region) => reply.text_json(region).finish(),
                None => reply.finish_error_text("missing region"),
            },
            "test_sampling" | "test_missing_capability" => match call.context.input("sampling") {
                Some(answer) => reply
                    .text_fmt(format_args!("LLM response: {}", text(answer.get("content").and_then(|c| c.get("text")))))
                    .finish(),
                None => {
                    let prompt = call.argument("prompt").and_then(|p| p.as_str());
                    let prompt = prompt.map_or("Say hello", |p| std::str::from_utf8(p.raw()).unwrap_or_default());
                    let params = sample_params(prompt, 100);
                    reply.input_required().request("sampling", InputRequest::Sample { params: &params }).finish()
                }
            },
            "test_elicitation" => {
                let message = text(call.argument("message"));
                self.elicit_then(&call, reply, &message, RESPONSE_FORM, "User response")
            }
            "test_elicitation_sep1034_defaults" => self.elicit_then(
                &call,
                reply,
                "Please review and update the form fields with defaults",
                DEFAULTS_FORM,
                "Elicitation completed",
            ),
            "test_elicitation_sep1330_enums" => self.elicit_then(
                &call,
                reply,
                "Please select options from the enum fields",
                ENUMS_FORM,
                "Elicitation completed",
            ),
            "test_streaming_elicitation" => {
                self.elicit_then(&call, reply, "Please enter a value", VALUE_FORM, "Streaming complete")
            }
            "test_logging_tool" => {
                let _ = reply.log(LoggingLevel::Info, LOGGER, format_args!("Diagnostic trace logging activated"));
                reply.text("Logging evaluated").finish()
            }
            "test_trigger_tool_change" => {
                let now = if self.toggle_tool() { "added" } else { "removed" };
                reply.text_fmt(format_args!("Mutation triggered: test_dynamic_tool {now}")).finish()
            }
            "test_trigger_prompt_change" => {
                let now = if self.toggle_prompt() { "added" } else { "removed" };
                reply.text_fmt(format_args!("Mutation triggered: test_dynamic_prompt {now}")).finish()
            }
            "test_dynamic_tool" => reply.text("This tool was added at run time.").finish(),
            "json_schema_2020_12_tool" => reply
                .text_fmt(format_args!("JSON Schema 2020-12 tool called with: {}", json_text(call.arguments)))
                .finish(),
            name if name.starts_with("test_input_required_result_") => self.mrtr(&call, reply),
            name if crate::tasks::is_task_tool(name) => self.call_task_tool(&call, reply),
            other => reply.finish_error_text(other),
        }
    }

    fn read_resource(&mut self, read: ResourceRead<'_>, reply: ResourceReply<'_>) {
        match read.uri {
            "test://static-text" => reply
                .text("test://static-text", Some("text/plain"), "This is the content of the static text resource.")
                .finish(),
            "test://static-binary" => reply.blob("test://static-binary", Some("image/png"), &PNG).finish(),
            WATCHED_URI => reply
                .text_fmt(
                    WATCHED_URI,
                    Some("text/plain"),
                    format_args!("Watched resource content, revision {}", self.watched_revision),
                )
                .finish(),
            uri => match read.template.and_then(|t| read.variables(&RESOURCE_TEMPLATES[t])).and_then(|v| v.get("id")) {
                Some(id) => reply
                    .text_fmt(
                        uri,
                        Some("application/json"),
                        format_args!(r#"{{"id":"{id}","templateTest":true,"data":"Data for ID: {id}"}}"#),
                    )
                    .finish(),
                None => reply.not_found(uri),
            },
        }
    }

    fn get_prompt(&mut self, get: PromptGet<'_>, reply: PromptReply<'_>) {
        match get.name {
            "test_prompt_with_arguments" => match (get.argument("arg1"), get.argument("arg2")) {
                (Some(arg1), Some(arg2)) => reply
                    .text_fmt(Role::User, format_args!("Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"))
                    .finish(),
                _ => reply.fail(code::INVALID_PARAMS, "arg1 and arg2 are required"),
            },
            "test_prompt_with_embedded_resource" => {
                let uri = get.argument("resourceUri").map(|u| u.to_string()).unwrap_or_default();
                reply
                    .message(
                        Role::User,
                        Content::Resource(ResourceContents::Text {
                            uri: &uri,
                            mime_type: Some("text/plain"),
                            text: "Embedded resource content for testing.",
                        }),
                    )
                    .text(Role::User, "Please process the embedded resource above.")
                    .finish()
            }
            "test_prompt_with_image" => reply
                .message(Role::User, Content::Image { data: &PNG, mime_type: "image/png" })
                .text(Role::User, "Please analyze the image above.")
                .finish(),
            "test_input_required_result_prompt" => match get.context.input("user_context") {
                Some(answer) => reply
                    .text_fmt(Role::User, format_args!("Prompt with context: {}", answered(Some(answer), "context")))
                    .finish(),
                None => {
                    let ask = InputRequest::ElicitForm {
                        message: "What context should the prompt use?",
                        requested_schema: CONTEXT_FORM,
                    };
                    reply.input_required().request("user_context", ask).finish()
                }
            },
            "test_dynamic_prompt" => reply.text(Role::User, "This prompt was added at run time.").finish(),
            _ => reply.text(Role::User, "This is a simple prompt for testing.").finish(),
        }
    }

    fn complete(&mut self, request: CompletionRequest<'_>, reply: CompletionReply<'_>) {
        let candidates: &[&str] = match request.reference {
            CompletionRef::Prompt { name: "test_prompt_with_arguments", .. } => &ARGUMENT_VALUES,
            CompletionRef::ResourceTemplate { .. } if request.argument == "id" => &TEMPLATE_IDS,
            _ => &[],
        };
        reply.values(candidates.iter().copied().filter(|c| c.starts_with(request.value))).finish()
    }
}
