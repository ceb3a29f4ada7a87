//! Tasks on the client, against a scripted server. 2026-07-28 extension: the task answer,
//! `tasks/get` results read, `tasks/get`, `tasks/update` and `tasks/cancel` written. 2025-11-25:
//! a task-augmented `tools/call`, its `CreateTaskResult` and `tasks/get` results read,
//! `tasks/get`, `tasks/result`, `tasks/list` and `tasks/cancel` written.

use super::*;
use crate::client::{DetailedTask, Task, TaskInputError, TaskState};
use crate::endpoint::SendError;
use crate::mcp::TaskStatus;

/// A client connected to a scripted 2026-07-28 server, declaring the tasks extension (and
/// sampling, which its handler refuses).
fn modern() -> Scripted {
    let config = host_config(EraPolicy::Modern);
    let config = config.with_capabilities(config.capabilities.with_tasks().with_sampling(false));
    let mut client = client::Engine::new(config, buffers(2048, 4096));
    let now = Instant::from_millis(0);
    client.connect(now).unwrap();
    let mut s = Scripted { client, host: Host::default(), now };
    let _ = s.take();
    s.feed(r#"{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}}}"#);
    assert_eq!(s.client.era(), Some(ProtocolVersion::V2026_07_28));
    assert!(s.client.server_capabilities().unwrap().tasks);
    s
}

fn parse(text: &str) -> json::Value<'_> {
    json::parse(text.as_bytes(), 16).unwrap()
}

const CREATED: &str = r#"{"resultType":"task","taskId":"t-1","status":"working","statusMessage":"queued","createdAt":"2026-08-01T10:00:00Z","lastUpdatedAt":"2026-08-01T10:00:00Z","ttlMs":60000,"pollIntervalMs":250}"#;

#[test]
fn a_task_answer_is_the_calls_outcome_and_reads_as_a_task() {
    let mut s = modern();
    let key = s.client.call_tool(s.now, "slow", Some(parse("{}"))).unwrap();
    let sent = s.take();
    let declared = &sent[0]["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"];
    assert_eq!(declared["extensions"], json!({"io.modelcontextprotocol/tasks": {}}));
    s.feed(&std::format!(r#"{{"jsonrpc":"2.0","id":{},"result":{CREATED}}}"#, key.id()));
    // The engine hands the task on as the call's result, and sends nothing of its own.
    assert_eq!(s.host.result(key)["taskId"], "t-1");
    assert!(s.take().is_empty());

    let task = Task::created(parse(CREATED)).unwrap();
    assert!(task.id.eq_str("t-1") && task.status == TaskStatus::Working);
    assert!(task.status_message.is_some_and(|m| m.eq_str("queued")));
    assert!(task.created_at.is_some_and(|t| t.eq_str("2026-08-01T10:00:00Z")));
    assert_eq!((task.ttl, task.poll_interval), (Some(Duration::from_secs(60)), Some(Duration::from_millis(250))));
    assert_eq!(task.poll_delay(), Duration::from_millis(250));
    // Any other result is no task, nor is a task without an id or a known status.
    for other in [
        r#"{"resultType":"complete","content":[]}"#,
        r#"{"taskId":"t","status":"working"}"#,
        r#"{"resultType":"task","status":"working"}"#,
        r#"{"resultType":"task","taskId":"t","status":"sleeping"}"#,
    ] {
        assert_eq!(Task::created(parse(other)), None, "{other}");
    }
}

#[test]
fn the_poll_delay_is_the_servers_interval_within_bounds() {
    let delay = |task: &str| Task::read(parse(task)).unwrap().poll_delay();
    assert_eq!(delay(r#"{"taskId":"t","status":"working"}"#), client::DEFAULT_POLL_INTERVAL);
    assert_eq!(delay(r#"{"taskId":"t","status":"working","pollIntervalMs":0}"#), client::MIN_POLL_INTERVAL);
    assert_eq!(delay(r#"{"taskId":"t","status":"working","pollIntervalMs":5000}"#), Duration::from_secs(5));
    assert_eq!(delay(r#"{"taskId":"t","status":"working","pollIntervalMs":86400000}"#), client::MAX_POLL_INTERVAL);
    // `ttlMs: null` is unlimited; a fractional or negative interval is none.
    let task = Task::read(parse(r#"{"taskId":"t","status":"working","ttlMs":null,"pollIntervalMs":1.5}"#)).unwrap();
    assert_eq!((task.ttl, task.poll_interval), (None, None));
}

#[test]
fn tasks_get_results_carry_what_their_status_says() {
    fn read(text: &str) -> Option<TaskState<'_>> {
        DetailedTask::read(parse(text)).map(|d| d.state)
    }
    let head = r#""resultType":"complete","taskId":"t","createdAt":"x","lastUpdatedAt":"x","ttlMs":1000"#;
    let get = |rest: &str| std::format!("{{{head},{rest}}}");
    assert_eq!(read(&get(r#""status":"working""#)), Some(TaskState::Working));
    assert_eq!(read(&get(r#""status":"cancelled""#)), Some(TaskState::Cancelled));
    let completed = get(r#""status":"completed","result":{"content":[],"isError":true}"#);
    let Some(TaskState::Completed { result }) = read(&completed) else { panic!("{completed}") };
    assert_eq!(result.as_bytes(), br#"{"content":[],"isError":true}"#);
    let failed = get(r#""status":"failed","statusMessage":"boom","error":{"code":-32603,"message":"it broke"}"#);
    let Some(TaskState::Failed { code, message, data }) = read(&failed) else { panic!("{failed}") };
    assert_eq!((code, message.is_some_and(|m| m.eq_str("it broke")), data), (-32603, true, None));
    let asking = get(r#""status":"input_required","inputRequests":{"confirm":{"method":"roots/list"}}"#);
    let Some(TaskState::InputRequired { requests }) = read(&asking) else { panic!("{asking}") };
    assert_eq!(requests.members().count(), 1);
    // What a status carries must be there.
    for bad in [r#""status":"completed""#, r#""status":"failed""#, r#""status":"input_required""#] {
        assert_eq!(read(&get(bad)), None, "{bad}");
    }
}

#[test]
fn tasks_get_and_cancel_name_the_task() {
    let mut s = modern();
    let get = s.client.get_task(s.now, "t-\"1\"").unwrap();
    let cancel = s.client.cancel_task(s.now, "t-\"1\"").unwrap();
    let sent = s.take();
    assert_eq!((sent[0]["method"].as_str(), sent[1]["method"].as_str()), (Some("tasks/get"), Some("tasks/cancel")));
    for (message, key) in sent.iter().zip([get, cancel]) {
        assert_eq!(message["id"], key.id());
        assert_eq!(message["params"]["taskId"], "t-\"1\"");
        assert_eq!(message["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"], "2026-07-28");
    }
    // Their answers are outcomes as any.
    s.feed(&std::format!(r#"{{"jsonrpc":"2.0","id":{},"result":{{"resultType":"complete"}}}}"#, cancel.id()));
    assert_eq!(s.host.result(cancel), json!({"resultType": "complete"}));
    // The extension has no tasks/list (2025-11-25's).
    assert_eq!(s.client.list_tasks(s.now, None), Err(SendError::NotAvailable));
}

#[test]
fn a_tasks_questions_are_answered_through_the_handler_with_tasks_update() {
    let mut s = modern();
    let requests = parse(
        r#"{"confirm":{"method":"elicitation/create","params":{"message":"Delete?","requestedSchema":{"type":"object"}}},
            "roots":{"method":"roots/list"},"done":{"method":"roots/list"}}"#,
    );
    let skip = |key: json::JsonStr<'_>| key.eq_str("done");
    let key = s.client.answer_task(s.now, "t-1", requests, &skip, &mut s.host).unwrap().expect("sent");
    assert_eq!(s.host.inputs, ["elicitation/create", "roots/list"]);
    let sent = s.take();
    assert_eq!(sent.len(), 1);
    assert_eq!((&sent[0]["method"], &sent[0]["id"]), (&json!("tasks/update"), &json!(key.id())));
    assert_eq!(sent[0]["params"]["taskId"], "t-1");
    assert_eq!(
        sent[0]["params"]["inputResponses"],
        json!({"confirm": {"action": "accept", "content": {"ok": true}}, "roots": {"roots": [{"uri": "file:///tmp"}]}})
    );
    // Every key answered already: nothing to send.
    let all = |_: json::JsonStr<'_>| true;
    assert_eq!(s.client.answer_task(s.now, "t-1", requests, &all, &mut s.host), Ok(None));
    assert!(s.take().is_empty());
}

#[test]
fn questions_the_client_cannot_answer_send_nothing() {
    let mut s = modern();
    let none = |_: json::JsonStr<'_>| false;
    let mut answer = |requests: &str| {
        let requests = parse(requests);
        let answered = s.client.answer_task(s.now, "t", requests, &none, &mut s.host);
        (answered, s.take().len())
    };
    // Sampling is declared, but the handler refuses it.
    let sample = r#"{"a":{"method":"roots/list"},"b":{"method":"sampling/createMessage","params":{"messages":[],"maxTokens":1}}}"#;
    assert_eq!(answer(sample), (Err(TaskInputError::Refused("sampling/createMessage")), 0));
    // URL elicitation is not declared; the handler is not asked.
    let url = r#"{"a":{"method":"elicitation/create","params":{"mode":"url","message":"m","url":"https://x"}}}"#;
    assert_eq!(answer(url), (Err(TaskInputError::Undeclared("elicitation/create")), 0));
    assert_eq!(answer(r#"{"a":{"method":"tools/list"}}"#), (Err(TaskInputError::Unreadable), 0));
    assert_eq!(answer("[]"), (Err(TaskInputError::Unreadable), 0));
    assert_eq!(s.host.inputs, ["roots/list", "sampling/createMessage"]);
}

#[test]
fn sessions_before_2025_11_25_neither_declare_the_extension_nor_send_tasks_requests() {
    let config = host_config(EraPolicy::Legacy);
    let config = config.with_capabilities(config.capabilities.with_tasks());
    let mut client = client::Engine::new(config, buffers(1024, 2048));
    client.connect(Instant::ZERO).unwrap();
    let mut s = Scripted { client, host: Host::default(), now: Instant::ZERO };
    let sent = s.take();
    assert_eq!(sent[0]["method"], "initialize");
    assert_eq!(sent[0]["params"]["capabilities"].get("extensions"), None, "{}", sent[0]);
    s.initialize_result(1);
    assert_eq!(s.client.get_task(s.now, "t"), Err(SendError::NotAvailable));
    assert_eq!(s.client.cancel_task(s.now, "t"), Err(SendError::NotAvailable));
    assert_eq!(s.client.task_result(s.now, "t"), Err(SendError::NotAvailable));
    assert_eq!(s.client.list_tasks(s.now, None), Err(SendError::NotAvailable));
    assert_eq!(s.client.call_tool_as_task(s.now, "slow", None, None), Err(SendError::NotAvailable));
    assert!(!s.client.has_tasks());
    let none = |_: json::JsonStr<'_>| false;
    let requests = parse(r#"{"a":{"method":"roots/list"}}"#);
    let answered = s.client.answer_task(s.now, "t", requests, &none, &mut s.host);
    assert_eq!(answered, Err(TaskInputError::Send(SendError::NotAvailable)));
    assert!(s.host.inputs.is_empty(), "the handler is not asked");
}

/// A client in a 2025-11-25 session with a server whose `capabilities` are `capabilities`.
fn legacy_2025_11_25(capabilities: Json) -> Scripted {
    let mut s = Scripted::new(EraPolicy::Legacy);
    let _ = s.take();
    let result =
        json!({"protocolVersion":"2025-11-25","capabilities":capabilities,"serverInfo":{"name":"s","version":"1"}});
    s.feed(&json!({"jsonrpc":"2.0","id":1,"result":result}).to_string());
    assert_eq!(s.client.era(), Some(ProtocolVersion::V2025_11_25));
    let _ = s.take();
    s
}

#[test]
fn a_2025_11_25_call_asks_for_a_task_which_is_followed_with_tasks_get_and_tasks_result() {
    let mut s = legacy_2025_11_25(json!({"tools":{},"tasks":{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}}));
    assert!(s.client.has_tasks() && s.client.server_capabilities().unwrap().tasks);
    let call = s.client.call_tool_as_task(s.now, "slow", Some(parse(r#"{"n":1}"#)), None).unwrap();
    let with_ttl = s.client.call_tool_as_task(s.now, "slow", None, Some(Duration::from_secs(60))).unwrap();
    let sent = s.take();
    assert_eq!(sent[0]["params"], json!({"name":"slow","arguments":{"n":1},"task":{}}));
    assert_eq!(sent[1]["params"], json!({"name":"slow","task":{"ttl":60000}}));
    assert_eq!((sent[0]["id"].as_i64(), sent[1]["id"].as_i64()), (Some(call.id()), Some(with_ttl.id())));

    // The CreateTaskResult (no resultType, the task under `task`, 2025-11-25's member names).
    let created = r#"{"task":{"taskId":"t-1","status":"working","createdAt":"2025-11-25T10:00:00Z","lastUpdatedAt":"2025-11-25T10:00:00Z","ttl":60000,"pollInterval":250}}"#;
    for key in [call, with_ttl] {
        s.feed(&std::format!(r#"{{"jsonrpc":"2.0","id":{},"result":{created}}}"#, key.id()));
        assert_eq!(s.host.result(key)["task"]["taskId"], "t-1");
    }
    let task = Task::created(parse(created)).unwrap();
    assert!(task.id.eq_str("t-1") && task.status == TaskStatus::Working);
    assert_eq!((task.ttl, task.poll_interval), (Some(Duration::from_secs(60)), Some(Duration::from_millis(250))));
    // A plain result is none, nor a `task` member that is no task.
    assert_eq!(Task::created(parse(r#"{"content":[]}"#)), None);
    assert_eq!(Task::created(parse(r#"{"content":[],"task":{"status":"working"}}"#)), None);
    // A tasks/get result is the task itself.
    let got =
        Task::read(parse(r#"{"taskId":"t-1","status":"input_required","ttl":null,"pollInterval":5000}"#)).unwrap();
    assert_eq!((got.status, got.ttl, got.poll_delay()), (TaskStatus::InputRequired, None, Duration::from_secs(5)));

    let get = s.client.get_task(s.now, "t-1").unwrap();
    let result = s.client.task_result(s.now, "t-1").unwrap();
    let cancel = s.client.cancel_task(s.now, "t-1").unwrap();
    let sent = s.take();
    let methods: Vec<&str> = sent.iter().map(|m| m["method"].as_str().unwrap()).collect();
    assert_eq!(methods, ["tasks/get", "tasks/result", "tasks/cancel"]);
    for (message, key) in sent.iter().zip([get, result, cancel]) {
        assert_eq!((message["id"].as_i64(), &message["params"]), (Some(key.id()), &json!({"taskId":"t-1"})));
    }
    for key in [get, result, cancel] {
        s.feed(&std::format!(r#"{{"jsonrpc":"2.0","id":{},"result":{{}}}}"#, key.id()));
    }
    // tasks/list pages like the other lists; its items read as tasks.
    let first = s.client.list_tasks(s.now, None).unwrap();
    let next = s.client.list_tasks(s.now, Some(parse(r#""page-2""#))).unwrap();
    let sent = s.take();
    assert_eq!((sent[0]["method"].as_str(), sent[0].get("params")), (Some("tasks/list"), None), "{}", sent[0]);
    assert_eq!((sent[1]["method"].as_str(), &sent[1]["params"]), (Some("tasks/list"), &json!({"cursor":"page-2"})));
    assert_eq!((sent[0]["id"].as_i64(), sent[1]["id"].as_i64()), (Some(first.id()), Some(next.id())));
    let listed = r#"{"tasks":[{"taskId":"t-1","status":"completed","ttl":60000}],"nextCursor":"page-2"}"#;
    let page = crate::mcp::view::ListPage::read(parse(listed), "tasks").unwrap();
    let tasks: std::vec::Vec<Task<'_>> = page.items().filter_map(Task::read).collect();
    assert_eq!((tasks.len(), tasks[0].status), (1, TaskStatus::Completed));
    assert!(page.next_cursor.is_some_and(|c| c.eq_str("page-2")));
    // tasks/update is 2026-07-28's: a 2025-11-25 task asks with requests of its own.
    let none = |_: json::JsonStr<'_>| false;
    let requests = parse(r#"{"a":{"method":"roots/list"}}"#);
    assert_eq!(s.client.update_task(s.now, "t-1", &|_: &mut json::JsonWriter<'_>| {}), Err(SendError::NotAvailable));
    let answered = s.client.answer_task(s.now, "t-1", requests, &none, &mut s.host);
    assert_eq!(answered, Err(TaskInputError::Send(SendError::NotAvailable)));
    assert!(s.take().is_empty());
}

#[test]
fn a_2025_11_25_server_without_task_augmented_calls_is_not_asked_for_tasks() {
    let mut s = legacy_2025_11_25(json!({"tools":{},"tasks":{"list":{},"cancel":{}}}));
    assert!(!s.client.server_capabilities().unwrap().tasks);
    assert_eq!(s.client.call_tool_as_task(s.now, "slow", None, None), Err(SendError::NotAvailable));
    // Its tasks can still be read and cancelled.
    assert!(s.client.get_task(s.now, "t").is_ok() && s.client.cancel_task(s.now, "t").is_ok());
}
