//! Reaching a server: the child process or HTTP endpoint (`Connection`), the client's
//! configuration from the command line, and how it answers the server's questions (roots,
//! sampling, form elicitation) and explains a failure.

use std::sync::Arc;

use mcp_sansio::client::{self, EraPolicy, InputAnswer, Notification};
use mcp_sansio::json::{self, JsonWriter};
use mcp_sansio::mcp::input::{self, ReceivedInput};
use mcp_sansio::mcp::{ClientCapabilities, LoggingLevel};
use mcp_sansio::time::Duration;
use mcp_sansio_http::client::HttpClient;
use mcp_sansio_http::client::oauth::OAuth;
use mcp_sansio_tokio::child::{self, ChildClient};
use mcp_sansio_tokio::host::{ClientHandle, Connected, Host, RequestError};
use serde_json::Value as Json;

use crate::args::{self, ElicitAnswer};
use crate::{Cli, Era, auth, output};

/// A connected server: a child process or an HTTP endpoint.
pub(crate) enum Connection {
    Child(ChildClient),
    /// With the OAuth that authorizes its requests.
    Http(HttpClient, Arc<OAuth>),
}

impl std::ops::Deref for Connection {
    type Target = ClientHandle;

    fn deref(&self) -> &ClientHandle {
        match self {
            Connection::Child(child) => child,
            Connection::Http(http, _) => http,
        }
    }
}

impl Connection {
    pub(crate) async fn close(self) {
        match self {
            Connection::Child(child) => drop(child.close().await),
            Connection::Http(http, _) => drop(http.close().await),
        }
    }

    /// The last lines a child wrote on stderr (none over HTTP).
    fn stderr_tail(&self) -> String {
        match self {
            Connection::Child(child) => child.stderr_tail(),
            Connection::Http(..) => String::new(),
        }
    }
}

/// Spawns or reaches the server, and connects.
pub(crate) async fn start(server: &args::Server, cli: &Cli) -> Result<(Connection, Connected), String> {
    let era = match cli.era {
        Era::Auto => EraPolicy::Auto,
        Era::Legacy => EraPolicy::Legacy,
        Era::Modern => EraPolicy::Modern,
    };
    let timeout = Duration::from_secs(cli.timeout);
    let mut capabilities = ClientCapabilities::NONE.with_roots(false);
    if cli.sampling_reply.is_some() {
        capabilities = capabilities.with_sampling(false);
    }
    if cli.elicit.is_some() {
        capabilities = capabilities.with_elicitation_form();
    }
    let config = client::Config::new("mcp", env!("CARGO_PKG_VERSION"))
        .with_era(era)
        .with_capabilities(capabilities)
        .with_log_level(cli.log_level)
        .with_connect_timeout(timeout)
        .with_request_timeout(Some(timeout));
    // The current directory is the one root this client offers.
    let root = std::env::current_dir().ok().map(|dir| format!("file://{}", dir.display()));
    let (sampling, elicit, json) = (cli.sampling_reply.clone(), cli.elicit.clone(), cli.json);
    let mut host = Host::new().with_input(Box::new(move |input, result| match input {
        ReceivedInput::ListRoots => match &root {
            Some(root) => {
                result.raw(b"{\"roots\":[{\"uri\":");
                result.string(root);
                result.raw(b"}]}");
                InputAnswer::Written
            }
            None => InputAnswer::Refused,
        },
        ReceivedInput::Sample { params } => match &sampling {
            Some(reply) => {
                let params: Json = serde_json::from_slice(params.as_bytes()).unwrap_or(Json::Null);
                output::sampling_asked(&params, json);
                write_sampled(result, reply);
                InputAnswer::Written
            }
            None => InputAnswer::Refused,
        },
        ReceivedInput::ElicitForm { message, requested_schema } => match &elicit {
            Some(answer) => {
                let message: String = message.chars().collect();
                output::elicitation_asked(&message, answer, json);
                write_elicited(result, answer, requested_schema);
                InputAnswer::Written
            }
            None => InputAnswer::Refused,
        },
        _ => InputAnswer::Refused,
    }));
    if cli.log_level.is_some() {
        host = host.with_notifications(Box::new(move |notification| {
            if let Notification::Log { level, logger, data } = notification {
                let logger: Option<String> = logger.map(|l| l.chars().collect());
                let data: Json = data.and_then(|d| serde_json::from_slice(d.as_bytes()).ok()).unwrap_or(Json::Null);
                output::log_message(level.map_or("?", LoggingLevel::as_str), logger.as_deref(), &data, json);
            }
        }));
    }
    let client = match server {
        args::Server::Url(url) => {
            let oauth = auth::oauth(cli).await?;
            let client = mcp_sansio_http::client::connect_with_oauth(url, config, host, oauth.clone())
                .map_err(|error| format!("cannot reach {url}: {error}"))?;
            Connection::Http(client, oauth)
        }
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
        Ok(connected) => Ok((client, connected)),
        Err(error) => {
            let message = explain(error, &client);
            let _ = client.close().await;
            Err(message)
        }
    }
}

/// The answer to `sampling/createMessage`: `reply` as the assistant's text.
fn write_sampled(result: &mut JsonWriter<'_>, reply: &str) {
    result.raw(b"{\"role\":\"assistant\",\"content\":{\"type\":\"text\",\"text\":");
    result.string(reply);
    result.raw(b"},\"model\":\"mcp-cli\",\"stopReason\":\"endTurn\"}");
}

/// The answer to a form elicitation; an accepted one gets the form's defaults for what `answer`
/// leaves out.
fn write_elicited(result: &mut JsonWriter<'_>, answer: &ElicitAnswer, form: json::Value<'_>) {
    match answer {
        ElicitAnswer::Accept(content) => {
            let content = content.to_string();
            let content = json::parse(content.as_bytes(), json::MAX_DEPTH_LIMIT).ok();
            input::write_accepted_form(result, form, content);
        }
        ElicitAnswer::Decline => result.raw(b"{\"action\":\"decline\"}"),
        ElicitAnswer::Cancel => result.raw(b"{\"action\":\"cancel\"}"),
    }
}

/// An error, with what the server said on stderr when it is gone.
pub(crate) fn explain(error: RequestError, client: &Connection) -> String {
    let stderr = client.stderr_tail();
    let tail = stderr.trim_end().lines().rev().take(5).collect::<Vec<_>>();
    let tail: Vec<&str> = tail.into_iter().rev().collect();
    if let Connection::Http(_, oauth) = client
        && let Some(why) = oauth.last_error()
    {
        return format!("authorization failed: {why}");
    }
    match error {
        // A failed HTTP exchange is answered -32000 by the transport; without any HTTP response
        // (nothing listens, TLS refused) the server was not reached at all.
        RequestError::Connect(client::ConnectError::Refused { code: -32000 }) if matches!(client, Connection::Http(http, _) if !http.reached_server()) => {
            String::from("cannot reach the server over HTTP")
        }
        RequestError::Closed | RequestError::Connect(client::ConnectError::Closed) if !tail.is_empty() => {
            format!("the server exited; its last words:\n  {}", tail.join("\n  "))
        }
        RequestError::Closed | RequestError::Connect(client::ConnectError::Closed) => match client {
            Connection::Child(_) => String::from("the server exited (its output ended)"),
            Connection::Http(..) => String::from("the server closed the connection"),
        },
        error => error.to_string(),
    }
}
