//! `mcp`: an MCP client on the command line, for trying servers by hand and for scripts.
//!
//! ```text
//! mcp tools  <SERVER>                         the server's tools
//! mcp call   <SERVER> <TOOL> [KEY=VALUE]...   call a tool (values typed from its input schema)
//! mcp read   <SERVER> <URI>                   read a resource
//! mcp prompt <SERVER> <NAME> [KEY=VALUE]...   get a prompt
//! mcp ping   <SERVER>                         whether the server answers
//! ```
//!
//! The server is an `http://` or `https://` URL (Streamable HTTP), one quoted command (`"python server.py"`),
//! or everything after `--` (`mcp call echo message=hi -- ./server --flag`). `--json` prints the results as JSON, one per
//! line; otherwise text for people (with a tool's progress on stderr when it is a terminal). Exit status: 0, 1 for an error (the message on stderr), 2 for a
//! tool that reported an error (`isError`).

mod args;
mod output;

use std::io::IsTerminal;
use std::process::ExitCode;

use clap::Parser;
use mcp_sansio::client::{self, EraPolicy, InputAnswer};
use mcp_sansio::mcp::ClientCapabilities;
use mcp_sansio::mcp::input::ReceivedInput;
use mcp_sansio::time::Duration;
use mcp_sansio_http::client::HttpClient;
use mcp_sansio_tokio::child::{self, ChildClient};
use mcp_sansio_tokio::host::{ClientHandle, Host, RequestError};
use serde_json::Value as Json;

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
    /// Call a tool: `mcp call <SERVER> <TOOL> [KEY=VALUE]...`.
    Call {
        /// Whole arguments as a JSON object (instead of, or under, KEY=VALUE pairs).
        #[arg(long = "args")]
        arguments: Option<String>,
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
            | Command::Call { words, .. }
            | Command::Read { words }
            | Command::Prompt { words }
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
        Command::Call { words, .. } => (words, "call"),
        Command::Read { words } => (words, "read"),
        Command::Prompt { words } => (words, "prompt"),
        Command::Ping { words } => (words, "ping"),
    };
    let (server, rest) = args::split_server(words)?;
    let client = start(&server, &cli).await?;
    let result = serve(&client, &cli, kind, &rest).await;
    let result = result.map_err(|failure| match failure {
        Failure::Request(error) => explain(error, &client),
        Failure::Usage(usage) => usage.to_string(),
    });
    let _ = client.close().await;
    result
}

/// A connected server: a child process or an HTTP endpoint.
enum Connection {
    Child(ChildClient),
    Http(HttpClient),
}

impl std::ops::Deref for Connection {
    type Target = ClientHandle;

    fn deref(&self) -> &ClientHandle {
        match self {
            Connection::Child(child) => child,
            Connection::Http(http) => http,
        }
    }
}

impl Connection {
    async fn close(self) {
        match self {
            Connection::Child(child) => drop(child.close().await),
            Connection::Http(http) => drop(http.close().await),
        }
    }

    /// The last lines a child wrote on stderr (none over HTTP).
    fn stderr_tail(&self) -> String {
        match self {
            Connection::Child(child) => child.stderr_tail(),
            Connection::Http(_) => String::new(),
        }
    }
}

/// Spawns or reaches the server, and connects.
async fn start(server: &args::Server, cli: &Cli) -> Result<Connection, String> {
    let era = match cli.era {
        Era::Auto => EraPolicy::Auto,
        Era::Legacy => EraPolicy::Legacy,
        Era::Modern => EraPolicy::Modern,
    };
    let timeout = Duration::from_secs(cli.timeout);
    let config = client::Config::new("mcp", env!("CARGO_PKG_VERSION"))
        .with_era(era)
        .with_capabilities(ClientCapabilities::NONE.with_roots(false))
        .with_connect_timeout(timeout)
        .with_request_timeout(Some(timeout));
    // The current directory is the one root this client offers.
    let root = std::env::current_dir().ok().map(|dir| format!("file://{}", dir.display()));
    let host = Host::new().with_input(Box::new(move |input, result| match (&input, &root) {
        (ReceivedInput::ListRoots, Some(root)) => {
            result.raw(b"{\"roots\":[{\"uri\":");
            result.string(root);
            result.raw(b"}]}");
            InputAnswer::Written
        }
        _ => InputAnswer::Refused,
    }));
    let client = match server {
        args::Server::Url(url) => Connection::Http(
            mcp_sansio_http::client::connect(url, config, host)
                .map_err(|error| format!("cannot reach {url}: {error}"))?,
        ),
        args::Server::Command(words) => {
            let (program, arguments) = words.split_first().ok_or("no server command given")?;
            let mut command = tokio::process::Command::new(program);
            command.args(arguments);
            Connection::Child(child::spawn(command, config, host).map_err(|error| match error.kind() {
                std::io::ErrorKind::NotFound => format!("cannot start `{program}`: not found"),
                _ => format!("cannot start `{program}`: {error}"),
            })?)
        }
    };
    match client.connect().await {
        Ok(_) => Ok(client),
        Err(error) => {
            let message = explain(error, &client);
            let _ = client.close().await;
            Err(message)
        }
    }
}

/// An error, with what the server said on stderr when it is gone.
fn explain(error: RequestError, client: &Connection) -> String {
    let stderr = client.stderr_tail();
    let tail = stderr.trim_end().lines().rev().take(5).collect::<Vec<_>>();
    let tail: Vec<&str> = tail.into_iter().rev().collect();
    match error {
        // A failed HTTP exchange is answered -32000 by the transport; without any HTTP response
        // (nothing listens, TLS refused) the server was not reached at all.
        RequestError::Connect(client::ConnectError::Refused { code: -32000 }) if matches!(client, Connection::Http(http) if !http.reached_server()) => {
            String::from("cannot reach the server over HTTP")
        }
        RequestError::Closed | RequestError::Connect(client::ConnectError::Closed) if !tail.is_empty() => {
            format!("the server exited; its last words:\n  {}", tail.join("\n  "))
        }
        RequestError::Closed | RequestError::Connect(client::ConnectError::Closed) => match client {
            Connection::Child(_) => String::from("the server exited (its output ended)"),
            Connection::Http(_) => String::from("the server closed the connection"),
        },
        error => error.to_string(),
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

async fn serve(client: &Connection, cli: &Cli, kind: &str, rest: &[String]) -> Result<ExitCode, Failure> {
    let print = |value: &Json| output::print(value, cli.json);
    match kind {
        "tools" => {
            let tools = client.list_tools().await?;
            let tools: Vec<Json> = tools.iter().filter_map(|t| serde_json::from_slice(t).ok()).collect();
            output::print_tools(&tools, cli.json);
        }
        "call" => {
            let Some((tool, pairs)) = rest.split_first() else {
                return Err(Failure::Usage("which tool? `mcp call <SERVER> <TOOL> [KEY=VALUE]...`"));
            };
            let tools = client.list_tools().await?;
            let tools: Vec<Json> = tools.iter().filter_map(|t| serde_json::from_slice(t).ok()).collect();
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
            // Progress on a terminal: one line on stderr, rewritten with each report.
            let result = if !cli.json && std::io::stderr().is_terminal() {
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
