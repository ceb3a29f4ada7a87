//! What the tests of `Context` share (`context.rs`, `macros.rs`): the raw wire to a router's
//! server, to read progress, log messages and the 2026-07-28 round off it (this project's client
//! asks for progress on `tools/call` only), and a client that answers questions, in both eras.

// Each test crate uses part of it.
#![allow(dead_code)]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use mcp_sansio::client::{self, EraPolicy, InputAnswer};
use mcp_sansio::mcp::{ClientCapabilities, LoggingLevel};
use mcp_sansio::server::Config;
use mcp_sansio_router::{Context, Elicitation, InputError, Router};
use mcp_sansio_tokio::host::{self, CancelHandle, ClientHandle, Host, RequestError, Started, TaskInfo};
use serde_json::{Value as Json, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines, ReadHalf, WriteHalf};

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
pub struct Confirm {
    /// Really?
    pub confirm: bool,
}

/// Reports two steps of `what` (progress 1 and 2 of 2, a log message each).
pub async fn report(ctx: &Context, what: &str) {
    for i in 1..=2 {
        ctx.progress(i, Some(2), Some(what));
        ctx.log(LoggingLevel::Info, format_args!("{what} {i}"));
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
}

/// Asks to confirm; whether the user did.
pub async fn confirmed(ctx: &Context, message: &str) -> Result<bool, InputError> {
    Ok(matches!(ctx.elicit::<Confirm>(message).await?, Elicitation::Accept(Confirm { confirm: true })))
}

/// The raw wire to the router's server: JSON-RPC lines each way.
pub struct Wire {
    to_server: WriteHalf<DuplexStream>,
    from_server: Lines<BufReader<ReadHalf<DuplexStream>>>,
    era: EraPolicy,
}

impl Wire {
    /// The router served over a pipe; a legacy session initialized (2025-11-25, declaring form
    /// elicitation).
    pub async fn start(router: Router, era: EraPolicy) -> Wire {
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

    pub async fn send(&mut self, message: Json) {
        let mut line = message.to_string();
        line.push('\n');
        self.to_server.write_all(line.as_bytes()).await.unwrap();
    }

    /// Sends the request `id`: `method` with `params`, asking for progress (token `"p<id>"`) and
    /// log messages (a 2026-07-28 request carries its version, capabilities and log level).
    pub async fn request(&mut self, id: u64, method: &str, mut params: Json) {
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
    pub async fn next(&mut self) -> Json {
        serde_json::from_str(&self.next_line().await).unwrap()
    }

    /// The next message from the server as it came (without its newline).
    pub async fn next_line(&mut self) -> String {
        let line = tokio::time::timeout(Duration::from_secs(10), self.from_server.next_line()).await;
        line.expect("the server is silent").unwrap().expect("the server ended")
    }

    /// The next request from the server (past notifications: `list_changed`, …).
    pub async fn next_request(&mut self) -> Json {
        loop {
            let message = self.next().await;
            if message.get("method").is_some() && message.get("id").is_some() {
                return message;
            }
        }
    }

    /// Every message up to the answer to `id`, that answer last.
    pub async fn until_answer(&mut self, id: u64) -> Vec<Json> {
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

    /// Sends the request `id` and checks what comes ahead of its answer: progress 1 and 2 of 2
    /// (message `what`, token `"p<id>"`) and the log messages `"<what> 1"`, `"<what> 2"`; the
    /// answer's result.
    pub async fn reported(&mut self, id: u64, method: &str, params: Json, what: &str) -> Json {
        self.request(id, method, params).await;
        let era = self.era;
        let mut messages = self.until_answer(id).await;
        let (progress, logs) = notes(&messages);
        assert_eq!(progress, [1, 2], "{era:?} {method}: {messages:?}");
        assert_eq!(logs, [format!("{what} 1"), format!("{what} 2")], "{era:?} {method}");
        for note in messages.iter().filter(|m| m["method"] == "notifications/progress") {
            assert_eq!(note["params"]["progressToken"], format!("p{id}"), "{era:?}");
            assert_eq!((note["params"]["total"].as_u64(), note["params"]["message"].as_str()), (Some(2), Some(what)));
        }
        messages.pop().unwrap()["result"].take()
    }
}

/// The progress values and log texts in `messages`, in order.
pub fn notes(messages: &[Json]) -> (Vec<u64>, Vec<String>) {
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

/// A client of `era` of `router`'s server, declaring form elicitation; `asked` counts the
/// questions it answers (it confirms each).
pub async fn client(router: Router, era: EraPolicy, asked: Arc<AtomicUsize>) -> ClientHandle {
    let (server_io, client_io) = tokio::io::duplex(1 << 16);
    let (mut server, jobs) = router.into_server(Config::new("context-test", "1.0.0"), |future| {
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

/// Starts `tool` as a task and follows it through a handle that is cancelled `after` later; the
/// task, once the follower returned `Cancelled` (having had `tasks/cancel` answered and reported
/// the task's status then, `cancelled`, last).
pub async fn follow_then_cancel(client: &ClientHandle, tool: &str, after: Duration) -> TaskInfo {
    let Started::Task(task) = client.start_tool_call_as_task(tool, "{}").await.unwrap() else {
        panic!("{tool}: no task");
    };
    let cancel = CancelHandle::new();
    let statuses = Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = statuses.clone();
    let follower = client.with_cancel(&cancel).with_task_status(Arc::new(move |task: &TaskInfo| {
        seen.lock().unwrap().push(task.status);
    }));
    let follow = tokio::spawn({
        let task = task.clone();
        async move { follower.follow_task(task).await }
    });
    tokio::time::sleep(after).await;
    cancel.cancel();
    assert_eq!(follow.await.unwrap(), Err(RequestError::Cancelled));
    let statuses = statuses.lock().unwrap().clone();
    assert_eq!(statuses.last(), Some(&mcp_sansio::mcp::TaskStatus::Cancelled), "{statuses:?}");
    task
}
