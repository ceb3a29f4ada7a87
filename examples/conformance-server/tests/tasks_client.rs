//! The host API follows tasks (2026-07-28 extension `io.modelcontextprotocol/tasks`) of this
//! server, started on a free port, over Streamable HTTP: polled to their end, questions answered
//! through the input callback, failures mapped, cancellations sent as `tasks/cancel`.

use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mcp_sansio::client::{self, EraPolicy, InputAnswer};
use mcp_sansio::mcp::input::ReceivedInput;
use mcp_sansio::mcp::{ClientCapabilities, TaskStatus};
use mcp_sansio_driver::host::{CancelHandle, Host, RequestError, Started, TaskInfo};
use mcp_sansio_http::client::{HttpClient, connect};
use serde_json::Value as Json;

/// The conformance server as a child process, killed when dropped.
struct Server {
    child: Child,
    url: String,
}

impl Server {
    fn start() -> Server {
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let child = Command::new(env!("CARGO_BIN_EXE_conformance-server"))
            .env("PORT", port.to_string())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(10);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "the conformance server does not listen");
            std::thread::sleep(Duration::from_millis(20));
        }
        Server { child, url: format!("http://127.0.0.1:{port}/mcp") }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// What the host was asked and saw.
#[derive(Default)]
struct Seen {
    /// The messages of the forms it answered.
    asked: Vec<String>,
    /// Each status a followed task reported.
    statuses: Vec<(String, TaskStatus)>,
}

/// A modern client whose host accepts every form with `{"confirm":true,"name":"sansio"}`.
async fn client(server: &Server, seen: &Arc<Mutex<Seen>>, tasks: bool) -> HttpClient {
    client_answering(server, seen, tasks, true).await
}

/// [`client`], its host refusing every form unless `answer`.
async fn client_answering(server: &Server, seen: &Arc<Mutex<Seen>>, tasks: bool, answer: bool) -> HttpClient {
    let capabilities = ClientCapabilities::NONE.with_elicitation_form();
    let config = client::Config::new("tasks-client-test", "1.0.0")
        .with_era(EraPolicy::Modern)
        .with_capabilities(capabilities)
        .with_request_timeout(Some(mcp_sansio::time::Duration::from_secs(10)));
    let asked = seen.clone();
    let host = Host::new().with_tasks(tasks).with_input(Box::new(move |input, result| match input {
        ReceivedInput::ElicitForm { message, .. } => {
            asked.lock().unwrap().asked.push(message.chars().collect());
            if !answer {
                return InputAnswer::Refused;
            }
            result.raw(br#"{"action":"accept","content":{"confirm":true,"name":"sansio"}}"#);
            InputAnswer::Written
        }
        _ => InputAnswer::Refused,
    }));
    let client = connect(&server.url, config, host).unwrap();
    client.connect().await.unwrap();
    client
}

fn followed(client: &HttpClient, seen: &Arc<Mutex<Seen>>) -> mcp_sansio_driver::host::ClientHandle {
    let seen = seen.clone();
    client.with_task_status(Arc::new(move |task: &TaskInfo| {
        seen.lock().unwrap().statuses.push((task.id.clone(), task.status));
    }))
}

fn parse(bytes: &[u8]) -> Json {
    serde_json::from_slice(bytes).unwrap()
}

fn text(result: &Json) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_default()
}

#[tokio::test]
async fn a_slow_call_becomes_a_task_followed_to_its_result() {
    let server = Server::start();
    let seen = Arc::new(Mutex::new(Seen::default()));
    let client = client(&server, &seen, true).await;
    let started = Instant::now();
    let result = followed(&client, &seen).call_tool("slow_compute", r#"{"seconds":1,"label":"e2e"}"#).await;
    let result = parse(&result.unwrap());
    assert_eq!(text(&result), "Computation \"e2e\" completed after 1 seconds. Result: 42.");
    assert!(started.elapsed() >= Duration::from_secs(1));
    let statuses: Vec<TaskStatus> = seen.lock().unwrap().statuses.iter().map(|(_, status)| *status).collect();
    assert_eq!(statuses, [TaskStatus::Working, TaskStatus::Completed]);
    // Quick work is answered at once; greet is never a task.
    let greeting = parse(&client.call_tool("greet", r#"{"name":"e2e"}"#).await.unwrap());
    assert_eq!(text(&greeting), "Hello, e2e!");
    client.close().await.unwrap();
}

#[tokio::test]
async fn a_tasks_questions_are_answered_through_the_input_callback() {
    let server = Server::start();
    let seen = Arc::new(Mutex::new(Seen::default()));
    let client = client(&server, &seen, true).await;
    let result = followed(&client, &seen).call_tool("confirm_delete", r#"{"filename":"e2e.txt"}"#).await;
    assert_eq!(text(&parse(&result.unwrap())), "Deleted 'e2e.txt'");
    assert_eq!(seen.lock().unwrap().asked, ["Delete 'e2e.txt'?"]);
    let statuses: Vec<TaskStatus> = seen.lock().unwrap().statuses.iter().map(|(_, status)| *status).collect();
    assert!(statuses.contains(&TaskStatus::InputRequired), "{statuses:?}");
    assert_eq!(statuses.last(), Some(&TaskStatus::Completed));
    // Two questions at once, each answered once.
    seen.lock().unwrap().asked.clear();
    let result = client.call_tool("multi_input", "{}").await.unwrap();
    assert_eq!(text(&parse(&result)), "Name: sansio; confirmed: true");
    assert_eq!(seen.lock().unwrap().asked.len(), 2);
    client.close().await.unwrap();
}

#[tokio::test]
async fn a_tool_error_is_a_result_and_a_failed_task_an_error() {
    let server = Server::start();
    let seen = Arc::new(Mutex::new(Seen::default()));
    let client = client(&server, &seen, true).await;
    let result = parse(&client.call_tool("failing_job", "{}").await.unwrap());
    assert_eq!(result["isError"], true, "{result}");
    assert_eq!(text(&result), "The job failed");
    match client.call_tool("protocol_error_job", "{}").await {
        Err(RequestError::Server { code, message, .. }) => {
            assert_eq!((code, message.as_str()), (-32603, "Internal error: the job crashed"));
        }
        other => panic!("{other:?}"),
    }
    client.close().await.unwrap();
}

/// Polls the task `id` until it ended, for at most 10 s.
async fn ended(client: &HttpClient, id: &str) -> TaskInfo {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let task = client.get_task(id).await.unwrap();
        if task.status.is_terminal() || Instant::now() > deadline {
            return task;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn a_host_cancellation_cancels_the_task() {
    let server = Server::start();
    let seen = Arc::new(Mutex::new(Seen::default()));
    let client = client(&server, &seen, true).await;
    let cancel = CancelHandle::new();
    let handle = followed(&client, &seen).with_cancel(&cancel);
    let call = tokio::spawn(async move { handle.call_tool("slow_compute", r#"{"seconds":60,"label":"e2e"}"#).await });
    // Cancelled once the task exists (while its follower waits to poll).
    let deadline = Instant::now() + Duration::from_secs(10);
    let id = loop {
        if let Some((id, _)) = seen.lock().unwrap().statuses.first() {
            break id.clone();
        }
        assert!(Instant::now() < deadline, "no task");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    cancel.cancel();
    assert_eq!(call.await.unwrap(), Err(RequestError::Cancelled));
    // The follower reported the status the task then had (read with tasks/get after the ack).
    assert_eq!(seen.lock().unwrap().statuses.last(), Some(&(id.clone(), TaskStatus::Cancelled)));
    assert_eq!(ended(&client, &id).await.status, TaskStatus::Cancelled);
    client.close().await.unwrap();
}

#[tokio::test]
async fn a_question_the_host_refuses_abandons_the_task() {
    let server = Server::start();
    let seen = Arc::new(Mutex::new(Seen::default()));
    let client = client_answering(&server, &seen, true, false).await;
    let result = followed(&client, &seen).call_tool("confirm_delete", r#"{"filename":"kept.txt"}"#).await;
    assert_eq!(result, Err(RequestError::TaskInput(client::TaskInputError::Refused("elicitation/create"))));
    let id = seen.lock().unwrap().statuses[0].0.clone();
    assert_eq!(ended(&client, &id).await.status, TaskStatus::Cancelled);
    client.close().await.unwrap();
}

#[tokio::test]
async fn a_started_task_is_the_hosts_to_poll_and_cancel() {
    let server = Server::start();
    let seen = Arc::new(Mutex::new(Seen::default()));
    let client = client(&server, &seen, true).await;
    let Started::Task(task) = client.start_tool_call("slow_compute", r#"{"seconds":60,"label":"e2e"}"#).await.unwrap()
    else {
        panic!("not a task");
    };
    assert_eq!(task.status, TaskStatus::Working);
    assert!(task.poll_delay() >= client::MIN_POLL_INTERVAL);
    assert_eq!(client.get_task(&task.id).await.unwrap().status, TaskStatus::Working);
    client.cancel_task(&task.id).await.unwrap();
    assert_eq!(ended(&client, &task.id).await.status, TaskStatus::Cancelled);
    let Started::Result(result) = client.start_tool_call("greet", r#"{"name":"e2e"}"#).await.unwrap() else {
        panic!("greet is never a task");
    };
    assert_eq!(text(&parse(&result)), "Hello, e2e!");
    // An unknown task is the server's error.
    assert!(matches!(client.get_task("no-such-task").await, Err(RequestError::Server { code: -32602, .. })));
    client.close().await.unwrap();
}

#[tokio::test]
async fn without_the_extension_calls_are_answered_at_once() {
    let server = Server::start();
    let seen = Arc::new(Mutex::new(Seen::default()));
    let client = client(&server, &seen, false).await;
    let Started::Result(result) =
        client.start_tool_call("slow_compute", r#"{"seconds":1,"label":"sync"}"#).await.unwrap()
    else {
        panic!("a task without the extension");
    };
    assert_eq!(text(&parse(&result)), "Computation \"sync\" completed after 1 seconds. Result: 42.");
    match client.call_tool("failing_job", "{}").await {
        Err(RequestError::Server { code, .. }) => assert_eq!(code, -32021),
        other => panic!("{other:?}"),
    }
    client.close().await.unwrap();
}
