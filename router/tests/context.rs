//! Resource, template and completion functions with the request's `Context`, in both eras:
//! progress and log messages written ahead of the answer, and questions to the client from a
//! resource or template function (legacy: a request to the client that the function awaits;
//! 2026-07-28: the read is answered `input_required` and its retry runs the function again). A
//! completion function's questions are refused in both eras (2026-07-28 defines no
//! `input_required` answer to `completion/complete`).
//!
//! Progress and the 2026-07-28 round are read off the wire (this project's client asks for
//! progress on `tools/call` only); the template's question and the completion's refusal go through
//! the client.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use mcp_sansio::client::{self, EraPolicy, InputAnswer};
use mcp_sansio::mcp::{ClientCapabilities, LoggingLevel};
use mcp_sansio::server::{Config, ResourceInfo, TemplateInfo};
use mcp_sansio_router::{CompletionQuery, Context, Elicitation, InputError, Router};
use mcp_sansio_tokio::host::{self, ClientHandle, Host, RequestError};
use serde_json::{Value as Json, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines, ReadHalf, WriteHalf};

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct Confirm {
    /// Really?
    confirm: bool,
}

#[derive(serde::Deserialize)]
struct Note {
    key: String,
}

#[derive(serde::Deserialize)]
struct Item {
    item: String,
}

/// Reports two steps of `what` (progress 1 and 2 of 2, a log message each).
async fn report(ctx: &Context, what: &str) {
    for i in 1..=2 {
        ctx.progress(i, Some(2), Some(what));
        ctx.log(LoggingLevel::Info, format_args!("{what} {i}"));
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
}

/// Asks to confirm; whether the user did.
async fn confirmed(ctx: &Context, message: &str) -> Result<bool, InputError> {
    Ok(matches!(ctx.elicit::<Confirm>(message).await?, Elicitation::Accept(Confirm { confirm: true })))
}

/// A resource, a template and a completion that report progress and log; a resource and a
/// template that ask; `runs` counts how often the asking resource started.
fn router(runs: Arc<AtomicUsize>) -> Router {
    Router::new()
        .resource_with_context(ResourceInfo::new("memo://steps", "steps"), |ctx: Context| async move {
            report(&ctx, "reading").await;
            "read"
        })
        .resource_template_with_context(
            TemplateInfo::new("notes://{key}", "notes"),
            |uri: String, Note { key }, ctx: Context| async move {
                report(&ctx, "noting").await;
                format!("note {key} at {uri}")
            },
        )
        .resource_with_context(ResourceInfo::new("memo://secret", "secret"), move |ctx: Context| {
            runs.fetch_add(1, Ordering::SeqCst);
            async move {
                match confirmed(&ctx, "Show the secret?").await? {
                    true => Ok::<_, InputError>("the secret"),
                    false => Ok("hidden"),
                }
            }
        })
        .resource_template_with_context(
            TemplateInfo::new("vault://{item}", "vault"),
            |_uri: String, Item { item }, ctx: Context| async move {
                let confirmed = confirmed(&ctx, &format!("Open {item}?")).await?;
                Ok::<_, InputError>(format!("{item} opened: {confirmed}"))
            },
        )
        .completion_with_context(|query: CompletionQuery, ctx: Context| async move {
            report(&ctx, "completing").await;
            if query.value == "ask" {
                confirmed(&ctx, "Complete?").await?;
            }
            Ok::<_, InputError>(vec!["alpha", "alps"])
        })
}

/// The raw wire to the router's server: JSON-RPC lines each way.
struct Wire {
    to_server: WriteHalf<DuplexStream>,
    from_server: Lines<BufReader<ReadHalf<DuplexStream>>>,
    era: EraPolicy,
}

impl Wire {
    /// The router served over a pipe; a legacy session initialized (2025-11-25, declaring form
    /// elicitation).
    async fn start(router: Router, era: EraPolicy) -> Wire {
        let (server_io, client_io) = tokio::io::duplex(1 << 16);
        let (mut server, jobs) = router.into_server(Config::new("context-test", "1.0.0"), |future| {
            tokio::spawn(future);
        });
        let (server_in, server_out) = tokio::io::split(server_io);
        tokio::spawn(async move { mcp_sansio_tokio::run_with_jobs(&mut server, server_in, server_out, jobs).await });
        let (from_server, to_server) = tokio::io::split(client_io);
        let mut wire = Wire { to_server, from_server: BufReader::new(from_server).lines(), era };
        if era == EraPolicy::Legacy {
            let capabilities = json!({"elicitation":{"form":{}}});
            let client = json!({"name":"wire","version":"1.0.0"});
            let params = json!({"protocolVersion":"2025-11-25","capabilities":capabilities,"clientInfo":client});
            wire.send(json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":params})).await;
            assert_eq!(wire.until_answer(0).await.len(), 1);
            wire.send(json!({"jsonrpc":"2.0","method":"notifications/initialized"})).await;
        }
        wire
    }

    async fn send(&mut self, message: Json) {
        let mut line = message.to_string();
        line.push('\n');
        self.to_server.write_all(line.as_bytes()).await.unwrap();
    }

    /// Sends the request `id`: `method` with `params`, asking for progress (token `"p<id>"`) and
    /// log messages (a 2026-07-28 request carries its version, capabilities and log level).
    async fn request(&mut self, id: u64, method: &str, mut params: Json) {
        let mut meta = json!({"progressToken": format!("p{id}")});
        if self.era == EraPolicy::Modern {
            meta["io.modelcontextprotocol/protocolVersion"] = json!("2026-07-28");
            meta["io.modelcontextprotocol/clientCapabilities"] = json!({"elicitation":{"form":{}}});
            meta["io.modelcontextprotocol/logLevel"] = json!("debug");
        }
        params["_meta"] = meta;
        self.send(json!({"jsonrpc":"2.0","id":id,"method":method,"params":params})).await;
    }

    /// The next message from the server.
    async fn next(&mut self) -> Json {
        let line = tokio::time::timeout(Duration::from_secs(10), self.from_server.next_line()).await;
        serde_json::from_str(&line.expect("the server is silent").unwrap().expect("the server ended")).unwrap()
    }

    /// The next request from the server (past notifications: `list_changed`, …).
    async fn next_request(&mut self) -> Json {
        loop {
            let message = self.next().await;
            if message.get("method").is_some() && message.get("id").is_some() {
                return message;
            }
        }
    }

    /// Every message up to the answer to `id`, that answer last.
    async fn until_answer(&mut self, id: u64) -> Vec<Json> {
        let mut messages = Vec::new();
        loop {
            let message = self.next().await;
            let answered = message.get("method").is_none() && message["id"] == id;
            messages.push(message);
            if answered {
                return messages;
            }
        }
    }
}

/// The progress values and log texts in `messages`, in order.
fn notes(messages: &[Json]) -> (Vec<u64>, Vec<String>) {
    let progress = messages
        .iter()
        .filter(|m| m["method"] == "notifications/progress")
        .map(|m| m["params"]["progress"].as_u64().unwrap())
        .collect();
    let logs = messages
        .iter()
        .filter(|m| m["method"] == "notifications/message")
        .map(|m| m["params"]["data"].as_str().unwrap().to_owned())
        .collect();
    (progress, logs)
}

#[tokio::test]
async fn progress_and_logs_come_ahead_of_the_answer_in_both_eras() {
    for era in [EraPolicy::Legacy, EraPolicy::Modern] {
        let mut wire = Wire::start(router(Arc::default()), era).await;
        let template = json!({"type":"ref/resource","uri":"notes://{key}"});
        let requests = [
            (1, "resources/read", json!({"uri":"memo://steps"}), "reading"),
            (2, "resources/read", json!({"uri":"notes://today"}), "noting"),
            (3, "completion/complete", json!({"ref":template,"argument":{"name":"key","value":"al"}}), "completing"),
        ];
        for (id, method, params, what) in requests {
            wire.request(id, method, params).await;
            let messages = wire.until_answer(id).await;
            let (progress, logs) = notes(&messages);
            assert_eq!(progress, [1, 2], "{era:?} {method}: {messages:?}");
            assert_eq!(logs, [format!("{what} 1"), format!("{what} 2")], "{era:?} {method}");
            let progressed = messages.iter().filter(|m| m["method"] == "notifications/progress");
            for note in progressed {
                assert_eq!(note["params"]["progressToken"], format!("p{id}"), "{era:?}");
                assert_eq!(
                    (note["params"]["total"].as_u64(), note["params"]["message"].as_str()),
                    (Some(2), Some(what))
                );
            }
            let answer = &messages.last().unwrap()["result"];
            match id {
                1 => assert_eq!(answer["contents"][0]["text"], "read", "{era:?}: {answer}"),
                2 => assert_eq!(answer["contents"][0]["text"], "note today at notes://today", "{era:?}: {answer}"),
                _ => assert_eq!(answer["completion"]["values"], json!(["alpha", "alps"]), "{era:?}: {answer}"),
            }
        }
    }
}

#[tokio::test]
async fn a_resource_asks_the_client_in_both_eras() {
    for era in [EraPolicy::Legacy, EraPolicy::Modern] {
        let runs = Arc::new(AtomicUsize::new(0));
        let mut wire = Wire::start(router(runs.clone()), era).await;
        wire.request(1, "resources/read", json!({"uri":"memo://secret"})).await;
        let confirm = json!({"action":"accept","content":{"confirm":true}});
        let answer = match era {
            // Legacy: the question is a request to the client; the function awaits its answer.
            EraPolicy::Legacy => {
                let question = wire.next_request().await;
                assert_eq!(question["method"], "elicitation/create", "{question}");
                assert_eq!(question["params"]["message"], "Show the secret?");
                assert_eq!(question["params"]["requestedSchema"]["properties"]["confirm"]["type"], "boolean");
                wire.send(json!({"jsonrpc":"2.0","id":question["id"],"result":confirm})).await;
                wire.until_answer(1).await.pop().unwrap()
            }
            // 2026-07-28: the read is answered `input_required`; the retry carries the answer and
            // the sealed state, and runs the function again.
            _ => {
                let first = wire.until_answer(1).await.pop().unwrap();
                let result = &first["result"];
                assert_eq!(result["resultType"], "input_required", "{first}");
                let (key, question) = result["inputRequests"].as_object().unwrap().iter().next().unwrap();
                assert_eq!(question["method"], "elicitation/create", "{first}");
                assert_eq!(question["params"]["message"], "Show the secret?");
                let mut retry = json!({"uri":"memo://secret","inputResponses":{key.as_str(): confirm}});
                if let Some(state) = result.get("requestState") {
                    retry["requestState"] = state.clone();
                }
                wire.request(2, "resources/read", retry).await;
                wire.until_answer(2).await.pop().unwrap()
            }
        };
        assert_eq!(answer["result"]["contents"][0]["text"], "the secret", "{era:?}: {answer}");
        assert_eq!(runs.load(Ordering::SeqCst), if era == EraPolicy::Legacy { 1 } else { 2 }, "{era:?}");
    }
}

/// A client of `era` declaring form elicitation; `asked` counts the questions it answers (it
/// confirms each).
async fn client(era: EraPolicy, asked: Arc<AtomicUsize>) -> ClientHandle {
    let (server_io, client_io) = tokio::io::duplex(1 << 16);
    let (mut server, jobs) = router(Arc::default()).into_server(Config::new("context-test", "1.0.0"), |future| {
        tokio::spawn(future);
    });
    let (server_in, server_out) = tokio::io::split(server_io);
    tokio::spawn(async move { mcp_sansio_tokio::run_with_jobs(&mut server, server_in, server_out, jobs).await });
    let host = Host::new().with_input(Box::new(move |_, result| {
        asked.fetch_add(1, Ordering::SeqCst);
        result.raw(br#"{"action":"accept","content":{"confirm":true}}"#);
        InputAnswer::Written
    }));
    let capabilities = ClientCapabilities::NONE.with_elicitation_form();
    let config = client::Config::new("context-client", "1.0.0").with_era(era).with_capabilities(capabilities);
    let (handle, mut conn, jobs) = host::connection(config, host, 1 << 16, 1 << 16);
    let (client_in, client_out) = tokio::io::split(client_io);
    tokio::spawn(async move { mcp_sansio_tokio::run_with_jobs(&mut conn, client_in, client_out, jobs).await });
    handle.connect().await.unwrap();
    handle
}

#[tokio::test]
async fn a_template_asks_through_the_client_in_both_eras() {
    for era in [EraPolicy::Legacy, EraPolicy::Modern] {
        let asked = Arc::new(AtomicUsize::new(0));
        let client = client(era, asked.clone()).await;
        let read: Json = serde_json::from_slice(&client.read_resource("vault://box").await.unwrap()).unwrap();
        assert_eq!(read["contents"][0]["text"], "box opened: true", "{era:?}: {read}");
        assert_eq!(asked.load(Ordering::SeqCst), 1, "{era:?}");
    }
}

#[tokio::test]
async fn a_completion_cannot_ask_in_either_era() {
    let template = r#"{"type":"ref/resource","uri":"notes://{key}"}"#;
    for era in [EraPolicy::Legacy, EraPolicy::Modern] {
        let asked = Arc::new(AtomicUsize::new(0));
        let client = client(era, asked.clone()).await;
        let refused = client.complete(template, "key", "ask").await;
        let Err(RequestError::Server { code, message, .. }) = refused else { panic!("{era:?}: {refused:?}") };
        assert_eq!(code, -32603, "{era:?}");
        assert_eq!(message, InputError::NotAllowed("completion/complete").to_string(), "{era:?}");
        assert_eq!(asked.load(Ordering::SeqCst), 0, "{era:?}: the client was not asked");
        let completed: Json = serde_json::from_slice(&client.complete(template, "key", "al").await.unwrap()).unwrap();
        assert_eq!(completed["completion"]["values"], json!(["alpha", "alps"]), "{era:?}");
    }
}
