//! `mcp`: an MCP client on the command line, for trying servers by hand and for scripts.
//!
//! ```text
//! mcp tools  <SERVER>                         the server's tools
//! mcp resources <SERVER>                      its resources and resource templates
//! mcp prompts <SERVER>                        its prompts
//! mcp call   <SERVER> <TOOL> [KEY=VALUE]...   call a tool (values typed from its input schema)
//! mcp read   <SERVER> <URI>                   read a resource
//! mcp prompt <SERVER> <NAME> [KEY=VALUE]...   get a prompt
//! mcp ping   <SERVER>                         whether the server answers
//! mcp login  <URL>                            sign in to a server behind OAuth (tokens kept)
//! mcp complete <SERVER> <REF> <ARG> [VALUE] [KEY=VALUE]...
//!                                             complete an argument of a prompt (REF `prompt:NAME`)
//!                                             or resource template (`resource:URI-TEMPLATE`);
//!                                             KEY=VALUE: the arguments already chosen (context)
//! ```
//!
//! The server is an `http://` or `https://` URL (Streamable HTTP), one quoted command (`"python server.py"`),
//! or everything after `--` (`mcp call echo message=hi -- ./server --flag`). `--json` prints the results as JSON, one per
//! line; otherwise text for people (with a tool's progress on stderr when it is a terminal). Exit status: 0, 1 for an error (the message on stderr), 2 for a
//! tool that reported an error (`isError`).
//!
//! What the server may ask of the client, answered without a person (each option declares the
//! capability to the server; without it the server is told the client cannot):
//! - `--sampling-reply TEXT`: every `sampling/createMessage` is answered with the assistant text
//!   TEXT (model `mcp-cli`, stop reason `endTurn`); the request's last user message goes to stderr.
//! - `--elicit accept:{JSON}|accept|decline|cancel`: every form elicitation is answered so; an
//!   accepted form gets the schema's defaults for what the JSON leaves out. The message goes to
//!   stderr.
//! - roots: always the current directory.
//!
//! Both eras: legacy requests from the server and 2026-07-28 `input_required` rounds alike.
//!
//! A 2026-07-28 server may run a call as a task (the tasks extension, which `mcp` declares): `mcp`
//! follows it to its end (polling at the server's interval, its questions answered by the options
//! above) and prints each status it reaches on stderr, `[task] ID: STATUS (message)`, or
//! `{"task":{"id":…,"status":…}}` with `--json`. `--timeout` bounds each answer, not the task.
//! A 2025-11-25 server's tool that runs only as a task is called as one (`params.task`) and
//! followed the same way, its questions coming on the stream of `tasks/result`; `mcp call --task`
//! asks for a task for a tool that may run as one (`execution.taskSupport: "optional"`).
//!
//! Ctrl-C (SIGINT) gives up the request under way: it is cancelled on the wire
//! (`notifications/cancelled`, or `tasks/cancel` for a task), the server is closed as usual, and
//! `mcp` exits with status 130.
//!
//! A URL server behind OAuth is signed in to when it first answers 401 (see `auth.rs`): the
//! system browser opens the authorization page and the redirect comes back to a loopback port
//! (`--headless-auth`: no browser, for servers that approve at once); `--client-id` and
//! `--client-secret` give pre-registered credentials. Tokens and registrations are kept in the
//! credentials file (`--credentials FILE`, `$MCP_CREDENTIALS`, or
//! `~/.config/mcp-sansio/credentials.json`), refreshed when they expire.
//!
//! `--log-level LEVEL` asks for the server's log messages (`logging/setLevel` in a legacy
//! session) and prints each `notifications/message` on stderr: `[level] logger: data`, or one JSON
//! object a line with `--json`. In 2026-07-28 the level goes with each request, in its `_meta`
//! (`io.modelcontextprotocol/logLevel`).

mod args;
mod auth;
mod connect;
mod output;

use std::io::IsTerminal;
use std::process::ExitCode;

use args::ElicitAnswer;
use clap::Parser;
use connect::{Connection, explain, start};
use mcp_sansio::mcp::LoggingLevel;
use mcp_sansio::version::{Era as WireEra, ProtocolVersion};
use mcp_sansio_tokio::host::{CancelHandle, RequestError, TaskInfo};
use serde_json::Value as Json;
use std::sync::Arc;

/// An MCP client on the command line.
#[derive(Parser, Debug)]
#[command(name = "mcp", version, about, args_override_self = true)]
struct Cli {
    /// Print results as JSON (one per line) instead of text.
    #[arg(long, global = true)]
    json: bool,
    /// How to find the server's protocol era.
    #[arg(long, global = true, value_enum, default_value_t = Era::Auto)]
    era: Era,
    /// Seconds to wait for each answer.
    #[arg(long, global = true, default_value_t = 30)]
    timeout: u64,
    /// Ask for the server's log messages from LEVEL up (debug, info, notice, warning, error,
    /// critical, alert, emergency) and print them on stderr.
    #[arg(long, global = true, value_name = "LEVEL", value_parser = args::log_level)]
    log_level: Option<LoggingLevel>,
    /// Offer sampling: answer each `sampling/createMessage` with this assistant text.
    #[arg(long, global = true, value_name = "TEXT")]
    sampling_reply: Option<String>,
    /// Offer form elicitation, answered `accept:{JSON object}` (defaults fill the rest), `decline`
    /// or `cancel`.
    #[arg(long, global = true, value_name = "ANSWER", value_parser = args::parse_elicit)]
    elicit: Option<ElicitAnswer>,
    /// A URL server's OAuth credentials file (default: `$MCP_CREDENTIALS`, else
    /// `~/.config/mcp-sansio/credentials.json`).
    #[arg(long, global = true, value_name = "FILE")]
    credentials: Option<std::path::PathBuf>,
    /// A pre-registered OAuth client id (instead of registering dynamically).
    #[arg(long, global = true, value_name = "ID")]
    client_id: Option<String>,
    /// The secret of `--client-id`, for a confidential client.
    #[arg(long, global = true, value_name = "SECRET", requires = "client_id")]
    client_secret: Option<String>,
    /// Authorize without a browser: follow the authorization server's redirect directly (a
    /// server that approves at once, as in tests).
    #[arg(long, global = true)]
    headless_auth: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum Era {
    /// `server/discover` first, `initialize` if the server is not modern.
    Auto,
    /// `initialize` (2025-11-25 and earlier).
    Legacy,
    /// 2026-07-28 only.
    Modern,
}

#[derive(clap::Subcommand, Debug)]
enum Command {
    /// List the server's tools.
    Tools {
        /// The server: one quoted command, or `--` then the command.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        words: Vec<String>,
    },
    /// List the server's resources and resource templates.
    Resources {
        /// The server: one quoted command, or `--` then the command.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        words: Vec<String>,
    },
    /// List the server's prompts.
    Prompts {
        /// The server: one quoted command, or `--` then the command.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        words: Vec<String>,
    },
    /// Call a tool: `mcp call <SERVER> <TOOL> [KEY=VALUE]...`.
    Call {
        /// Whole arguments as a JSON object (instead of, or under, KEY=VALUE pairs).
        #[arg(long = "args")]
        arguments: Option<String>,
        /// Ask the server to run the call as a task (2025-11-25's `params.task`, for a tool whose
        /// `execution.taskSupport` is `optional`; one that requires a task is called as one
        /// anyway, and in 2026-07-28 the server decides): followed to its end, its statuses on
        /// stderr.
        #[arg(long)]
        task: bool,
        /// The server, the tool and its arguments.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        words: Vec<String>,
    },
    /// Read a resource: `mcp read <SERVER> <URI>`.
    Read {
        /// The server and the URI.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        words: Vec<String>,
    },
    /// Get a prompt: `mcp prompt <SERVER> <NAME> [KEY=VALUE]...`.
    Prompt {
        /// The server, the prompt and its arguments.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        words: Vec<String>,
    },
    /// Complete an argument: `mcp complete <SERVER> <prompt:NAME|resource:URI-TEMPLATE> <ARGUMENT> [VALUE] [KEY=VALUE]...`.
    Complete {
        /// The server, what to complete, the argument, its value so far, and the other
        /// arguments already chosen.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        words: Vec<String>,
    },
    /// Sign in to a server behind OAuth (`mcp login <URL>`): the tokens go to the credentials
    /// file, for the later commands.
    Login {
        /// The server's URL.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        words: Vec<String>,
    },
    /// Check that the server answers.
    Ping {
        /// The server.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        words: Vec<String>,
    },
}

fn main() -> ExitCode {
    // Everything after the first `--` is the server's. Split here, not by clap: clap takes a `--`
    // right after the subcommand (`mcp tools -- ./server --flag`) as its own end of options and
    // drops it, and the server's words would be read as one quoted command and the rest.
    let mut argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let server = match argv.iter().position(|word| word == "--") {
        Some(at) => {
            let server = argv.split_off(at + 1);
            argv.pop();
            match server.into_iter().map(std::ffi::OsString::into_string).collect::<Result<Vec<_>, _>>() {
                Ok(server) => Some(server),
                Err(word) => return fail(&format!("the server command is not UTF-8: {}", word.to_string_lossy())),
            }
        }
        None => None,
    };
    let mut cli = Cli::parse_from(argv);
    if let Some(server) = server {
        let words = cli.command.words_mut();
        words.push(String::from("--"));
        words.extend(server);
    }
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(error) => return fail(&format!("cannot start the runtime: {error}")),
    };
    match runtime.block_on(run(cli)) {
        Ok(code) => code,
        Err(message) => fail(&message),
    }
}

impl Command {
    /// The subcommand's words: the server (unless after `--`) and what it acts on.
    fn words_mut(&mut self) -> &mut Vec<String> {
        match self {
            Command::Tools { words }
            | Command::Resources { words }
            | Command::Prompts { words }
            | Command::Call { words, .. }
            | Command::Read { words }
            | Command::Prompt { words }
            | Command::Complete { words }
            | Command::Login { words }
            | Command::Ping { words } => words,
        }
    }
}

fn fail(message: &str) -> ExitCode {
    eprintln!("mcp: {message}");
    ExitCode::FAILURE
}

async fn run(cli: Cli) -> Result<ExitCode, String> {
    let (words, kind) = match &cli.command {
        Command::Tools { words } => (words, "tools"),
        Command::Resources { words } => (words, "resources"),
        Command::Prompts { words } => (words, "prompts"),
        Command::Call { words, .. } => (words, "call"),
        Command::Read { words } => (words, "read"),
        Command::Prompt { words } => (words, "prompt"),
        Command::Complete { words } => (words, "complete"),
        Command::Ping { words } => (words, "ping"),
        Command::Login { words } => (words, "login"),
    };
    let (server, rest) = args::split_server(words)?;
    let (client, connected) = start(&server, &cli).await?;
    if let Some(level) = cli.log_level {
        ask_for_logs(&client, connected.version, level).await;
    }
    // Ctrl-C gives up the request: it is cancelled on the wire (`notifications/cancelled`; a task
    // followed, `tasks/cancel`, whose acknowledgement is awaited for the request timeout at most).
    let cancel = CancelHandle::new();
    let result = {
        let serving = serve(&client, &cli, kind, &rest, &cancel);
        tokio::pin!(serving);
        tokio::select! {
            result = &mut serving => result,
            _ = tokio::signal::ctrl_c() => {
                eprintln!("mcp: interrupted");
                cancel.cancel();
                let _ = tokio::time::timeout(std::time::Duration::from_secs(cli.timeout), serving).await;
                Ok(ExitCode::from(130))
            }
        }
    };
    let result = result.map_err(|failure| match failure {
        Failure::Request(error) => explain(error, &client),
        Failure::Usage(usage) => usage.to_string(),
    });
    let _ = client.close().await;
    result
}

/// `--log-level`: `logging/setLevel` in a legacy session. A 2026-07-28 request carries the level
/// in its `_meta` ([`Config::log_level`](mcp_sansio::client::Config::log_level)): nothing to send.
async fn ask_for_logs(client: &Connection, version: ProtocolVersion, level: LoggingLevel) {
    if version.era() == WireEra::Modern {
        return;
    }
    let params = serde_json::json!({ "level": level.as_str() }).to_string();
    if let Err(error) = client.request("logging/setLevel", Some(&params)).await {
        eprintln!("mcp: --log-level: logging/setLevel: {error}");
    }
}

/// Why a command failed: the server (or the connection), or how it was called.
enum Failure {
    Request(RequestError),
    Usage(&'static str),
}

impl From<RequestError> for Failure {
    fn from(error: RequestError) -> Self {
        Failure::Request(error)
    }
}

const NOT_JSON: Failure = Failure::Request(RequestError::Invalid("not JSON"));
/// JSON-RPC's "Method not found".
const METHOD_NOT_FOUND: i64 = -32601;

/// The items of a list (each a JSON text), parsed; those that are not JSON left out.
fn parsed(items: &[Vec<u8>]) -> Vec<Json> {
    items.iter().filter_map(|item| serde_json::from_slice(item).ok()).collect()
}

async fn serve(
    client: &Connection,
    cli: &Cli,
    kind: &str,
    rest: &[String],
    cancel: &CancelHandle,
) -> Result<ExitCode, Failure> {
    let print = |value: &Json| output::print(value, cli.json);
    match kind {
        "tools" => {
            output::print_tools(&parsed(&client.list_tools().await?), cli.json);
        }
        "resources" => {
            let resources = parsed(&client.list_resources().await?);
            // A server with resources and no templates may not know the method.
            let templates = match client.list_resource_templates().await {
                Err(RequestError::Server { code: METHOD_NOT_FOUND, .. }) => Vec::new(),
                templates => parsed(&templates?),
            };
            output::print_resources(&resources, &templates, cli.json);
        }
        "prompts" => output::print_prompts(&parsed(&client.list_prompts().await?), cli.json),
        "call" => {
            let Some((tool, pairs)) = rest.split_first() else {
                return Err(Failure::Usage("which tool? `mcp call <SERVER> <TOOL> [KEY=VALUE]...`"));
            };
            let tools = parsed(&client.list_tools().await?);
            let Some(schema) = tools.iter().find(|t| t["name"] == tool.as_str()).map(|t| &t["inputSchema"]) else {
                let known: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
                eprintln!("mcp: unknown tool `{tool}`; the server has: {}", known.join(", "));
                return Ok(ExitCode::FAILURE);
            };
            let base = match &cli.command {
                Command::Call { arguments: Some(text), .. } => Some(text.as_str()),
                _ => None,
            };
            let arguments = match args::typed_arguments(base, pairs, schema) {
                Ok(arguments) => arguments,
                Err(message) => {
                    eprintln!("mcp: {message}");
                    return Ok(ExitCode::FAILURE);
                }
            };
            // A task's statuses on stderr, as it reaches them.
            let json = cli.json;
            let client = client
                .with_task_status(Arc::new(move |task: &TaskInfo| {
                    output::task_status(&task.id, task.status.as_str(), task.status_message.as_deref(), json);
                }))
                .with_cancel(cancel);
            let as_task = matches!(cli.command, Command::Call { task: true, .. });
            // Progress on a terminal: one line on stderr, rewritten with each report.
            let result = if as_task {
                client.call_tool_as_task(tool, &arguments.to_string()).await?
            } else if !cli.json && std::io::stderr().is_terminal() {
                let report = Box::new(|progress: f64, total: Option<f64>, message: Option<&str>| {
                    let of = total.map(|t| format!("/{t}")).unwrap_or_default();
                    eprint!("\r\x1b[2K  {progress}{of} {}", message.unwrap_or(""));
                });
                let result = client.call_tool_with_progress(tool, &arguments.to_string(), report).await;
                eprint!("\r\x1b[2K");
                result?
            } else {
                client.call_tool(tool, &arguments.to_string()).await?
            };
            let result: Json = serde_json::from_slice(&result).map_err(|_| NOT_JSON)?;
            print(&result);
            if result["isError"] == true {
                return Ok(ExitCode::from(2));
            }
        }
        "read" => {
            let [uri] = rest else { return Err(Failure::Usage("which URI? `mcp read <SERVER> <URI>`")) };
            let result = client.read_resource(uri).await?;
            print(&serde_json::from_slice(&result).map_err(|_| NOT_JSON)?);
        }
        "prompt" => {
            let Some((name, pairs)) = rest.split_first() else {
                return Err(Failure::Usage("which prompt? `mcp prompt <SERVER> <NAME> [KEY=VALUE]...`"));
            };
            let arguments =
                args::string_arguments(pairs).map_err(|_| Failure::Usage("prompt arguments are KEY=VALUE"))?;
            let result = client.get_prompt(name, Some(&arguments.to_string())).await?;
            print(&serde_json::from_slice(&result).map_err(|_| NOT_JSON)?);
        }
        "complete" => {
            let [reference, argument, more @ ..] = rest else {
                return Err(Failure::Usage(
                    "what to complete? `mcp complete <SERVER> <prompt:NAME|resource:URI-TEMPLATE> <ARGUMENT> [VALUE] [KEY=VALUE]...`",
                ));
            };
            let (value, context) = match more.split_first() {
                Some((value, context)) => (value.as_str(), context),
                None => ("", &[][..]),
            };
            let reference = match args::completion_ref(reference) {
                Ok(reference) => reference,
                Err(message) => {
                    eprintln!("mcp: {message}");
                    return Ok(ExitCode::FAILURE);
                }
            };
            let context = args::string_arguments(context)
                .map_err(|_| Failure::Usage("the arguments already chosen are KEY=VALUE"))?;
            let mut params = serde_json::json!({"ref": reference, "argument": {"name": argument, "value": value}});
            if context.as_object().is_some_and(|c| !c.is_empty()) {
                params["context"] = serde_json::json!({ "arguments": context });
            }
            let result = client.request("completion/complete", Some(&params.to_string())).await?;
            let result: Json = serde_json::from_slice(&result).map_err(|_| NOT_JSON)?;
            output::print_completion(&result, cli.json);
        }
        "login" => {
            // Connected: authorized if the server asked for it, the tokens kept.
            let url = match args::split_server(match &cli.command {
                Command::Login { words } => words,
                _ => return Err(Failure::Usage("`mcp login <URL>`")),
            }) {
                Ok((args::Server::Url(url), _)) => url,
                _ => return Err(Failure::Usage("`mcp login <URL>`: the server is an http(s) URL")),
            };
            let oauth = auth::oauth(cli).await.map_err(|_| Failure::Usage("no credentials file"))?;
            match oauth.tokens(&url) {
                Some(tokens) if cli.json => output::say!(
                    "{}",
                    serde_json::json!({"url": url, "issuer": tokens.issuer, "scope": tokens.scope, "expiresAt": tokens.expires_at})
                ),
                Some(tokens) => output::say!(
                    "signed in to {url} (issuer {}, scope {})",
                    tokens.issuer,
                    tokens.scope.as_deref().unwrap_or("-")
                ),
                None => output::say!("{url} did not ask for authorization"),
            }
        }
        _ => {
            let started = std::time::Instant::now();
            client.ping().await?;
            let elapsed = started.elapsed();
            if cli.json {
                output::say!("{}", serde_json::json!({"ok": true, "ms": elapsed.as_secs_f64() * 1000.0}));
            } else {
                output::say!("the server answers ({:.1} ms)", elapsed.as_secs_f64() * 1000.0);
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
