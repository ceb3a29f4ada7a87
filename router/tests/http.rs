//! The router as a Streamable HTTP endpoint (`Router::into_http`), called by this project's HTTP
//! client in both eras: a tool that awaits a timer, one that reports progress and one that elicits
//! confirmation, with the functions on tokio and on smol. Each answer, note and question reaches
//! the engine that received the call: the stateless engine (2026-07-28) or the session's (legacy).
//! Long-running tools run as tasks of the stateless engine (raw POSTs: a timer, a question).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mcp_sansio::client::{self, EraPolicy, InputAnswer};
use mcp_sansio::mcp::ClientCapabilities;
use mcp_sansio::mcp::input::ReceivedInput;
use mcp_sansio::server::Config;
use mcp_sansio_driver::host::Host;
use mcp_sansio_http::HttpConfig;
use mcp_sansio_http::client::{HttpClient, connect};
use mcp_sansio_router::{Context, Elicitation, InputError, NoArguments, Router, TaskSupport};
use serde_json::Value as Json;

mod common;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Wait {
    ms: u64,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Confirm {
    confirm: bool,
}

/// Where the functions run, and so which timer they await.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Runtime {
    Tokio,
    Smol,
}

async fn sleep(runtime: Runtime, ms: u64) {
    match runtime {
        Runtime::Tokio => tokio::time::sleep(Duration::from_millis(ms)).await,
        Runtime::Smol => drop(smol::Timer::after(Duration::from_millis(ms)).await),
    }
}

fn router(runtime: Runtime, runs: Arc<AtomicUsize>) -> Router {
    Router::new()
        .tool("wait", "Awaits a timer", move |Wait { ms }| async move {
            sleep(runtime, ms).await;
            format!("waited {ms} ms")
        })
        .tool_with_context(
            "count",
            "Counts to three, reporting progress",
            move |_: NoArguments, ctx: Context| async move {
                for i in 1..=3 {
                    ctx.progress(i, Some(3), None);
                    sleep(runtime, 5).await;
                }
                "three"
            },
        )
        .tool_with_context("delete", "Deletes after confirmation", move |_: NoArguments, ctx: Context| {
            runs.fetch_add(1, Ordering::SeqCst);
            async move {
                match ctx.elicit::<Confirm>("Delete?").await? {
                    Elicitation::Accept(Confirm { confirm: true }) => Ok::<_, InputError>("deleted"),
                    _ => Ok("kept"),
                }
            }
        })
}

/// Serves `router` on a loopback port (its functions spawned on `runtime`); its URL.
async fn start(router: Router, runtime: Runtime) -> (String, tokio::sync::oneshot::Sender<()>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let endpoint =
        router.into_http(HttpConfig::new(Config::new("router-http", "1.0.0"), addr), move |future| match runtime {
            Runtime::Tokio => drop(tokio::spawn(future)),
            Runtime::Smol => smol::spawn(future).detach(),
        });
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(mcp_sansio_http::serve(listener, endpoint, async move {
        let _ = stopped.await;
    }));
    (format!("http://{addr}/mcp"), stop)
}

/// A client in `era` that confirms every form, counting the questions.
async fn client(url: &str, era: EraPolicy, asked: Arc<AtomicUsize>) -> HttpClient {
    let host = Host::new().with_input(Box::new(move |input, result| match input {
        ReceivedInput::ElicitForm { .. } => {
            asked.fetch_add(1, Ordering::SeqCst);
            result.raw(br#"{"action":"accept","content":{"confirm":true}}"#);
            InputAnswer::Written
        }
        _ => InputAnswer::Refused,
    }));
    let capabilities = ClientCapabilities::NONE.with_elicitation_form();
    let config = client::Config::new("router-http-client", "1.0.0").with_era(era).with_capabilities(capabilities);
    let client = connect(url, config, host).unwrap();
    client.connect().await.unwrap();
    client
}

fn parse(bytes: &[u8]) -> Json {
    serde_json::from_slice(bytes).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_timer_progress_and_elicitation_over_streamable_http_in_both_eras_on_tokio_and_smol() {
    for runtime in [Runtime::Tokio, Runtime::Smol] {
        let runs = Arc::new(AtomicUsize::new(0));
        let (url, _stop) = start(router(runtime, runs.clone()), runtime).await;
        for era in [EraPolicy::Legacy, EraPolicy::Modern] {
            let asked = Arc::new(AtomicUsize::new(0));
            let client = client(&url, era, asked.clone()).await;
            let what = format!("{runtime:?}, {era:?}");

            let started = Instant::now();
            let waited = parse(&client.call_tool("wait", r#"{"ms":50}"#).await.unwrap());
            assert_eq!(waited["content"][0]["text"], "waited 50 ms", "{what}: {waited}");
            assert!(started.elapsed() >= Duration::from_millis(50), "{what}: the timer ran");

            let progress = Arc::new(Mutex::new(Vec::new()));
            let seen = progress.clone();
            let counted = client
                .call_tool_with_progress("count", "{}", Box::new(move |p, _, _| seen.lock().unwrap().push(p)))
                .await
                .unwrap();
            assert_eq!(parse(&counted)["content"][0]["text"], "three", "{what}");
            assert_eq!(*progress.lock().unwrap(), [1.0, 2.0, 3.0], "{what}");

            runs.store(0, Ordering::SeqCst);
            let deleted = parse(&client.call_tool("delete", "{}").await.unwrap());
            assert_eq!(deleted["content"][0]["text"], "deleted", "{what}: {deleted}");
            assert_eq!(asked.load(Ordering::SeqCst), 1, "{what}: asked once");
            // Legacy: the function awaited the answer; 2026-07-28: it ran again on the retry.
            assert_eq!(runs.load(Ordering::SeqCst), if era == EraPolicy::Legacy { 1 } else { 2 }, "{what}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_calls_at_once_reach_their_own_engines() {
    let (url, _stop) = start(router(Runtime::Tokio, Arc::default()), Runtime::Tokio).await;
    // Two legacy sessions and the stateless engine, 20 slow calls each, all at once.
    let mut clients = Vec::new();
    for era in [EraPolicy::Legacy, EraPolicy::Legacy, EraPolicy::Modern] {
        clients.push(Arc::new(client(&url, era, Arc::default()).await));
    }
    let mut calls = Vec::new();
    for client in &clients {
        for i in 0..20u64 {
            let client = client.clone();
            calls.push(tokio::spawn(async move {
                let answer = client.call_tool("wait", &format!(r#"{{"ms":{}}}"#, 20 + i)).await.unwrap();
                (i, parse(&answer)["content"][0]["text"].as_str().unwrap().to_owned())
            }));
        }
    }
    for call in calls {
        let (i, text) = call.await.unwrap();
        assert_eq!(text, format!("waited {} ms", 20 + i));
    }
}

/// One 2026-07-28 POST of `message` (its headers made from it: `Mcp-Name` is the tool's name or
/// the task's id), on a connection of its own; the JSON answer.
async fn post(addr: std::net::SocketAddr, message: &Json) -> Json {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let method = message["method"].as_str().unwrap();
    let name = message["params"]["name"].as_str().or(message["params"]["taskId"].as_str()).unwrap_or_default();
    let body = message.to_string();
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: {method}\r\n\
         Mcp-Name: {name}\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    tokio::time::timeout(Duration::from_secs(5), stream.read_to_end(&mut raw)).await.unwrap().unwrap();
    let raw = String::from_utf8(raw).unwrap();
    let (head, mut body) = raw.split_once("\r\n\r\n").unwrap();
    let status = head.split(' ').nth(1).unwrap().to_owned();
    let mut whole = String::new();
    if head.to_ascii_lowercase().contains("transfer-encoding: chunked") {
        while let Some((size, rest)) = body.split_once("\r\n") {
            let size = usize::from_str_radix(size.trim(), 16).unwrap();
            whole.push_str(&rest[..size]);
            body = rest[size..].trim_start_matches("\r\n");
            if size == 0 {
                break;
            }
        }
    } else {
        whole.push_str(body);
    }
    // A JSON body, or one SSE event.
    let data = whole.lines().find_map(|l| l.strip_prefix("data: ")).unwrap_or(&whole);
    let answer: Json = serde_json::from_str(data).unwrap();
    // An error may have a status of its own (-32021: 400).
    assert!(status == "200" || answer.get("error").is_some(), "{head}\n{whole}");
    answer
}

/// `method` with `params`, a 2026-07-28 request whose client declares the tasks extension (or
/// not: `tasks`) and form elicitation.
fn task_request(id: u64, method: &str, mut params: Json, tasks: bool) -> Json {
    let mut capabilities = serde_json::json!({"elicitation": {"form": {}}});
    if tasks {
        capabilities["extensions"] = serde_json::json!({"io.modelcontextprotocol/tasks": {}});
    }
    params["_meta"] = serde_json::json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    });
    serde_json::json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// `tasks/get` of `task` until it is not `working`.
async fn settled(addr: std::net::SocketAddr, task: &Json) -> Json {
    for id in 100..600 {
        let got = post(addr, &task_request(id, "tasks/get", serde_json::json!({"taskId": task}), true)).await;
        if got["result"]["status"] != "working" {
            return got["result"].clone();
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("task {task} still working");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn long_running_tools_are_tasks_of_the_stateless_engine() {
    let runs = Arc::new(AtomicUsize::new(0));
    let counted = runs.clone();
    let router = Router::new()
        .task_tool("wait", "Awaits a timer", TaskSupport::Optional, |Wait { ms }, _: Context| async move {
            tokio::time::sleep(Duration::from_millis(ms)).await;
            format!("waited {ms} ms")
        })
        .task_tool("delete", "Deletes after confirmation", TaskSupport::Required, move |_: NoArguments, ctx| {
            counted.fetch_add(1, Ordering::SeqCst);
            async move {
                match ctx.elicit::<Confirm>("Delete?").await? {
                    Elicitation::Accept(Confirm { confirm: true }) => Ok::<_, InputError>("deleted"),
                    _ => Ok("kept"),
                }
            }
        });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    // No `tasks` in the config: the router asks for them, as a tool may run as a task.
    let endpoint = router.into_http(HttpConfig::new(Config::new("router-http", "1.0.0"), addr), |future| {
        tokio::spawn(future);
    });
    let (_stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(mcp_sansio_http::serve(listener, endpoint, async move {
        let _ = stopped.await;
    }));

    let call = |id, name: &str, arguments: Json, tasks| {
        task_request(id, "tools/call", serde_json::json!({"name": name, "arguments": arguments}), tasks)
    };
    let created = post(addr, &call(1, "wait", serde_json::json!({"ms": 50}), true)).await;
    let task = &created["result"];
    assert_eq!((task["resultType"].as_str(), task["status"].as_str()), (Some("task"), Some("working")), "{created}");
    let got = settled(addr, &task["taskId"]).await;
    assert_eq!(got["status"], "completed", "{got}");
    assert_eq!(got["result"]["content"][0]["text"], "waited 50 ms");

    let created = post(addr, &call(2, "delete", serde_json::json!({}), true)).await;
    let task = created["result"]["taskId"].clone();
    let got = settled(addr, &task).await;
    assert_eq!(got["status"], "input_required", "{got}");
    assert_eq!(got["inputRequests"]["1"]["params"]["message"], "Delete?");
    let answer = serde_json::json!({"1": {"action": "accept", "content": {"confirm": true}}});
    let params = serde_json::json!({"taskId": task, "inputResponses": answer});
    let ack = post(addr, &task_request(3, "tasks/update", params, true)).await;
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    let got = settled(addr, &task).await;
    assert_eq!(
        (got["status"].as_str(), got["result"]["content"][0]["text"].as_str()),
        (Some("completed"), Some("deleted"))
    );
    assert_eq!(runs.load(Ordering::SeqCst), 2);

    // Without the extension: a plain call, or -32021 for a tool that runs only as a task.
    let plain = post(addr, &call(4, "wait", serde_json::json!({"ms": 1}), false)).await;
    assert_eq!(plain["result"]["content"][0]["text"], "waited 1 ms", "{plain}");
    let refused = post(addr, &call(5, "delete", serde_json::json!({}), false)).await;
    assert_eq!(refused["error"]["code"], -32021, "{refused}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_listen_stream_is_told_when_a_task_of_the_stateless_engine_completes() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let router = Router::new().task_tool(
        "wait",
        "Awaits a timer",
        TaskSupport::Optional,
        |Wait { ms }, _: Context| async move {
            tokio::time::sleep(Duration::from_millis(ms)).await;
            format!("waited {ms} ms")
        },
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let endpoint = router.into_http(HttpConfig::new(Config::new("router-http", "1.0.0"), addr), |future| {
        tokio::spawn(future);
    });
    let (_stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(mcp_sansio_http::serve(listener, endpoint, async move {
        let _ = stopped.await;
    }));
    let call = task_request(1, "tools/call", serde_json::json!({"name": "wait", "arguments": {"ms": 300}}), true);
    let task = post(addr, &call).await["result"]["taskId"].clone();

    // The listen stream: a POST whose SSE response stays open.
    let listen =
        task_request(2, "subscriptions/listen", serde_json::json!({"notifications": {"taskIds": [task]}}), true);
    let body = listen.to_string();
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: subscriptions/listen\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut seen = String::new();
    let told = tokio::time::timeout(Duration::from_secs(5), async {
        let mut buf = [0u8; 4096];
        loop {
            let n = stream.read(&mut buf).await.unwrap();
            assert!(n > 0, "the listen stream ended: {seen}");
            seen.push_str(&String::from_utf8_lossy(&buf[..n]));
            if let Some(line) = seen.lines().find(|l| l.contains("\"notifications/tasks\"")) {
                let data = line.split_once("data: ").map_or(line, |(_, data)| data);
                return serde_json::from_str::<Json>(data).unwrap();
            }
        }
    })
    .await
    .unwrap_or_else(|_| panic!("not told within 5 s: {seen}"));
    assert!(seen.contains("notifications/subscriptions/acknowledged"), "{seen}");
    assert_eq!((told["params"]["taskId"].clone(), told["params"]["status"].as_str()), (task, Some("completed")));
    assert_eq!(told["params"]["result"]["content"][0]["text"], "waited 300 ms", "{told}");
}

/// The tasks of 2025-11-25 sessions live in the session's engine (`TaskLimits::session_tasks`):
/// this project's client asks for a task of a tool that runs only as one, follows it with
/// `tasks/get` and `tasks/result` (on whose SSE stream the question comes), and a cancelled
/// follower cancels its task with `tasks/cancel`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_legacy_sessions_tasks_live_in_its_engine() {
    use mcp_sansio::mcp::TaskStatus;

    let dropped = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flag = dropped.clone();
    let router = Router::new()
        .task_tool("delete", "Deletes after confirmation", TaskSupport::Required, |_: NoArguments, ctx| async move {
            match ctx.elicit::<Confirm>("Delete?").await? {
                Elicitation::Accept(Confirm { confirm: true }) => Ok::<_, InputError>("deleted"),
                _ => Ok("kept"),
            }
        })
        .task_tool("forever", "Never ends", TaskSupport::Optional, move |_: NoArguments, _: Context| {
            struct Flag(Arc<std::sync::atomic::AtomicBool>);
            impl Drop for Flag {
                fn drop(&mut self) {
                    self.0.store(true, Ordering::SeqCst);
                }
            }
            let flag = Flag(flag.clone());
            async move {
                let _flag = flag;
                tokio::time::sleep(Duration::from_secs(3600)).await;
                "finished"
            }
        });
    let (url, _stop) = start(router, Runtime::Tokio).await;
    let asked = Arc::new(AtomicUsize::new(0));
    let client = client(&url, EraPolicy::Legacy, asked.clone()).await;
    client.list_tools().await.unwrap();
    let statuses = Arc::new(Mutex::new(Vec::new()));
    let seen = statuses.clone();
    let followed = client.with_task_status(Arc::new(move |task: &mcp_sansio_driver::host::TaskInfo| {
        seen.lock().unwrap().push(task.status);
    }));
    let result = parse(&followed.call_tool("delete", "{}").await.unwrap());
    assert_eq!(result["content"][0]["text"], "deleted", "{result}");
    assert!(result["_meta"]["io.modelcontextprotocol/related-task"]["taskId"].is_string(), "{result}");
    assert_eq!(asked.load(Ordering::SeqCst), 1);
    let statuses = statuses.lock().unwrap().clone();
    assert_eq!(statuses.first(), Some(&TaskStatus::Working), "{statuses:?}");
    assert_eq!(statuses.last(), Some(&TaskStatus::Completed), "{statuses:?}");

    let task = common::follow_then_cancel(&client, "forever", Duration::from_millis(100)).await;
    // The follower awaited tasks/cancel: the task reads cancelled, its future dropped.
    assert_eq!(client.get_task(&task.id).await.unwrap().status, TaskStatus::Cancelled);
    let deadline = Instant::now() + Duration::from_secs(10);
    while !dropped.load(Ordering::SeqCst) {
        assert!(Instant::now() < deadline, "the task's future was not dropped");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    client.close().await.unwrap();
}
