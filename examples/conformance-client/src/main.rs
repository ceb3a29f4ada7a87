//! `conformance-client`: the client the official MCP conformance suite drives
//! (`conformance client --command conformance-client`), on the public API only: the client engine
//! over the Streamable HTTP client of `mcp-sansio-http`.
//!
//! The suite starts a server for one scenario and runs `conformance-client <server-url>` (the URL
//! is the last argument) with the environment:
//! - `MCP_CONFORMANCE_SCENARIO`: the scenario, which says what to do (below);
//! - `MCP_CONFORMANCE_PROTOCOL_VERSION`: the version to speak, if given: up to 2025-11-25 the
//!   legacy handshake ([`EraPolicy::Legacy`]), 2026-07-28 the stateless one ([`EraPolicy::Modern`]);
//!   without it, the era is probed ([`EraPolicy::Auto`]);
//! - `MCP_CONFORMANCE_CONTEXT`: JSON the scenario hands over (the tool calls of
//!   `http-custom-headers`).
//!
//! Every scenario connects first, and the client declares elicitation (form), sampling and roots:
//! an elicitation form is accepted with its defaults filled in
//! ([`write_accepted_form`], SEP-1034), a sampling
//! request gets a fixed text answer, `roots/list` an empty list. It exits 0 once the scenario's
//! requests were answered, non-zero (with the reason on stderr) on any failure, and gives up after
//! [`DEADLINE`] (the suite waits 30 s). `RUST_LOG` sets what is logged on stderr.
//!
//! | Scenario | What the client does |
//! |---|---|
//! | `initialize`, `tools_call` | lists the tools, calls `add_numbers` (if listed) with `{"a":2,"b":3}` |
//! | `elicitation-sep1034-client-defaults` | calls `test_client_elicitation_defaults` |
//! | `sse-retry` | calls `test_reconnection` (its answer comes on the resumed stream) |
//! | `request-metadata`, `json-schema-ref-no-deref` | lists the tools |
//! | `sep-2322-client-request-state` | calls every listed tool, in order |
//! | `http-standard-headers` | calls every tool, reads every resource, gets every prompt |
//! | `http-custom-headers` | lists the tools, then makes the context's `toolCalls` |
//! | `http-invalid-tool-headers` | calls every tool listed (tools with invalid `x-mcp-header` are dropped) |
//! | `json-schema-2020-12-preservation` | echoes `json_schema_2020_12_tool`'s input schema to `json_schema_echo` |
//! | `auth/*` | connects with OAuth ([`mcp_sansio_http::client::oauth`], the headless user agent; the context's `client_id`/`client_secret` as pre-registered credentials; client credentials, with a secret or a private key, for `auth/client-credentials-*`; the context's identity provider and ID token for `auth/enterprise-managed-authorization`; its `valid_jwt` as the workload identity token for `auth/wif-jwt-bearer`), lists the tools and calls each |

#![forbid(unsafe_code)]

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use mcp_sansio::client::{Config, EraPolicy, InputAnswer};
use mcp_sansio::json::JsonWriter;
use mcp_sansio::mcp::ClientCapabilities;
use mcp_sansio::mcp::input::{ReceivedInput, write_accepted_form};
use mcp_sansio::version::{Era, ProtocolVersion};
use mcp_sansio_driver::host::{ClientHandle, Host};
use mcp_sansio_http::client::oauth::{EnterpriseIdp, OAuth, OAuthConfig, WorkloadIdentity};
use serde_json::{Value, json};

/// How long a scenario may take before the client gives up (the suite's timeout is 30 s).
const DEADLINE: Duration = Duration::from_secs(20);

type Failed = Box<dyn std::error::Error>;

fn main() -> ExitCode {
    if std::env::var_os("RUST_LOG").is_some() {
        tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
            .with_writer(std::io::stderr)
            .init();
    }
    let Some(url) = std::env::args().skip(1).last() else {
        eprintln!("usage: conformance-client <server-url>  (with MCP_CONFORMANCE_SCENARIO set)");
        return ExitCode::from(2);
    };
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    let era = match std::env::var("MCP_CONFORMANCE_PROTOCOL_VERSION").ok().as_deref() {
        None | Some("") => EraPolicy::Auto,
        Some(name) => match ProtocolVersion::from_wire(name) {
            Some(version) if version.era() == Era::Modern => EraPolicy::Modern,
            Some(_) => EraPolicy::Legacy,
            None => {
                eprintln!("conformance-client: unknown protocol version {name:?}");
                return ExitCode::from(2);
            }
        },
    };
    let context: Value = match std::env::var("MCP_CONFORMANCE_CONTEXT") {
        Ok(text) if !text.is_empty() => match serde_json::from_str(&text) {
            Ok(context) => context,
            Err(error) => {
                eprintln!("conformance-client: MCP_CONFORMANCE_CONTEXT is not JSON: {error}");
                return ExitCode::from(2);
            }
        },
        _ => Value::Null,
    };
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("conformance-client: no runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    let outcome = runtime.block_on(async {
        tokio::time::timeout(DEADLINE, run(&url, &scenario, era, &context))
            .await
            .unwrap_or_else(|_| Err(format!("no end after {} s", DEADLINE.as_secs()).into()))
    });
    match outcome {
        Ok(()) => {
            eprintln!("conformance-client: {scenario}: done");
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("conformance-client: {scenario}: {error}");
            ExitCode::FAILURE
        }
    }
}

/// Connects to `url`, plays `scenario`, and closes the connection.
async fn run(url: &str, scenario: &str, era: EraPolicy, context: &Value) -> Result<(), Failed> {
    let capabilities = ClientCapabilities::NONE.with_elicitation_form().with_sampling(false).with_roots(false);
    let config = Config::new("mcp-sansio-conformance-client", env!("CARGO_PKG_VERSION"))
        .with_capabilities(capabilities)
        .with_era(era)
        .with_connect_timeout(mcp_sansio::time::Duration::from_secs(10))
        .with_request_timeout(Some(mcp_sansio::time::Duration::from_secs(15)));
    let host = Host::new().with_input(Box::new(answer_input));
    let client = match scenario.starts_with("auth/") {
        true => mcp_sansio_http::client::connect_with_oauth(url, config, host, Arc::new(oauth(scenario, context)))?,
        false => mcp_sansio_http::client::connect(url, config, host)?,
    };
    let connected = client.connect().await?;
    eprintln!("conformance-client: connected at {}", connected.version);
    let played = play(&client, scenario, context).await;
    client.close().await?;
    played
}

/// The client's OAuth for the `auth/*` scenarios: a native client (loopback redirect), with the
/// suite's client ID metadata document URL, and the context's credentials if it has any.
fn oauth(scenario: &str, context: &Value) -> OAuth {
    let id = context["client_id"].as_str();
    let secret = context["client_secret"].as_str();
    if scenario.starts_with("auth/client-credentials")
        && let Some(id) = id
    {
        if let (Some(key), Some(algorithm)) =
            (context["private_key_pem"].as_str(), context["signing_algorithm"].as_str())
        {
            return OAuth::new(OAuthConfig::for_machine_with_key(id, key, algorithm));
        }
        if let Some(secret) = secret {
            return OAuth::new(OAuthConfig::for_machine(id, secret));
        }
    }
    if scenario == "auth/enterprise-managed-authorization"
        && let (Some(id), Some(endpoint), Some(idp_client), Some(id_token)) = (
            id,
            context["idp_token_endpoint"].as_str(),
            context["idp_client_id"].as_str(),
            context["idp_id_token"].as_str(),
        )
    {
        let idp = EnterpriseIdp::new(endpoint, idp_client, id_token);
        return OAuth::new(OAuthConfig::for_enterprise(idp, id, secret.map(str::to_owned)));
    }
    if scenario == "auth/wif-jwt-bearer"
        && let (Some(id), Some(token)) = (id, context["valid_jwt"].as_str())
    {
        return OAuth::new(OAuthConfig::for_workload(id, WorkloadIdentity::token(token)));
    }
    let mut config = OAuthConfig::new("mcp-sansio-conformance-client", "http://localhost:3000/callback")
        .with_client_metadata_url("https://conformance-test.local/client-metadata.json");
    if let Some(id) = id {
        config = config.with_client(id, secret.map(str::to_owned));
    }
    OAuth::new(config)
}

/// What the scenario expects of a connected client.
async fn play(client: &ClientHandle, scenario: &str, context: &Value) -> Result<(), Failed> {
    match scenario {
        _ if scenario.starts_with("auth/") => {
            for tool in tools(client).await? {
                call(client, name(&tool)?, &json!({})).await?;
            }
        }
        "initialize" | "tools_call" => {
            if tools(client).await?.iter().any(|tool| tool["name"] == "add_numbers") {
                call(client, "add_numbers", &json!({"a": 2, "b": 3})).await?;
            }
        }
        "elicitation-sep1034-client-defaults" => {
            tools(client).await?;
            call(client, "test_client_elicitation_defaults", &json!({})).await?;
        }
        "sse-retry" => {
            tools(client).await?;
            call(client, "test_reconnection", &json!({})).await?;
        }
        "request-metadata" | "json-schema-ref-no-deref" => {
            tools(client).await?;
        }
        "sep-2322-client-request-state" => {
            for tool in tools(client).await? {
                call(client, name(&tool)?, &json!({})).await?;
            }
        }
        "http-standard-headers" => {
            for tool in tools(client).await? {
                call(client, name(&tool)?, &json!({})).await?;
            }
            for resource in parse_all(client.list_resources().await?)? {
                let uri = resource["uri"].as_str().ok_or("a resource without a uri")?;
                client.read_resource(uri).await?;
            }
            for prompt in parse_all(client.list_prompts().await?)? {
                client.get_prompt(name(&prompt)?, None).await?;
            }
        }
        "http-custom-headers" => {
            tools(client).await?;
            let calls = context["toolCalls"].as_array().ok_or("the context names no toolCalls")?;
            for planned in calls {
                call(client, name(planned)?, &planned["arguments"]).await?;
            }
        }
        "http-invalid-tool-headers" => {
            for tool in tools(client).await? {
                call(client, name(&tool)?, &arguments_for(&tool["inputSchema"])).await?;
            }
        }
        "json-schema-2020-12-preservation" => {
            let listed = tools(client).await?;
            let focal = listed
                .iter()
                .find(|tool| tool["name"] == "json_schema_2020_12_tool")
                .ok_or("json_schema_2020_12_tool is not listed")?;
            call(client, "json_schema_echo", &json!({"schema": focal["inputSchema"]})).await?;
        }
        other => return Err(format!("unknown scenario {other:?}").into()),
    }
    Ok(())
}

/// Every tool of the server, as JSON.
async fn tools(client: &ClientHandle) -> Result<Vec<Value>, Failed> {
    let tools = parse_all(client.list_tools().await?)?;
    eprintln!("conformance-client: {} tools", tools.len());
    Ok(tools)
}

/// Calls the tool `name` with `arguments`; an error answer fails the scenario.
async fn call(client: &ClientHandle, name: &str, arguments: &Value) -> Result<Value, Failed> {
    let result: Value = serde_json::from_slice(&client.call_tool(name, &arguments.to_string()).await?)?;
    eprintln!("conformance-client: {name}: {result}");
    Ok(result)
}

fn parse_all(items: Vec<Vec<u8>>) -> Result<Vec<Value>, Failed> {
    items.iter().map(|item| serde_json::from_slice(item).map_err(Failed::from)).collect()
}

fn name(item: &Value) -> Result<&str, Failed> {
    item["name"].as_str().ok_or_else(|| format!("no name in {item}").into())
}

/// Arguments for a tool: a plain value of its type for each required property.
fn arguments_for(schema: &Value) -> Value {
    let mut arguments = serde_json::Map::new();
    for required in schema["required"].as_array().into_iter().flatten().filter_map(Value::as_str) {
        let value = match schema["properties"][required]["type"].as_str() {
            Some("integer" | "number") => json!(1),
            Some("boolean") => json!(true),
            _ => json!("conformance"),
        };
        arguments.insert(required.to_owned(), value);
    }
    Value::Object(arguments)
}

/// The answer to the server's requests for input: accept an elicitation form with its defaults,
/// decline a URL elicitation, answer sampling with a fixed text and roots with none.
fn answer_input(input: ReceivedInput<'_>, w: &mut JsonWriter<'_>) -> InputAnswer {
    eprintln!("conformance-client: input requested: {}", input.method());
    match input {
        ReceivedInput::ElicitForm { requested_schema, .. } => write_accepted_form(w, requested_schema, None),
        ReceivedInput::ElicitUrl { .. } => w.raw(b"{\"action\":\"decline\"}"),
        ReceivedInput::Sample { .. } => w.raw(
            b"{\"role\":\"assistant\",\"content\":{\"type\":\"text\",\"text\":\"A sample from the conformance client.\"},\
              \"model\":\"conformance-client\",\"stopReason\":\"endTurn\"}",
        ),
        ReceivedInput::ListRoots => w.raw(b"{\"roots\":[]}"),
        _ => return InputAnswer::Refused,
    }
    InputAnswer::Written
}
