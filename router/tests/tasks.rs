//! Long-running tools (`Router::task_tool`, `#[tool(task)]`) as tasks, the 2026-07-28 extension
//! `io.modelcontextprotocol/tasks`, over a byte stream read on the raw wire: a call is answered
//! with the task at once and `tasks/get` follows it from `working` to `completed` (its result
//! inlined); a question makes it `input_required` and `tasks/update` runs the function again with
//! the answer; `tasks/cancel` drops its future. Without the extension (or in a legacy session) an
//! optional task tool runs as a plain call and a required one is refused with `-32021`.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use mcp_sansio::client::EraPolicy;
use mcp_sansio::mcp::LoggingLevel;
use mcp_sansio_router::{Context, InputError, NoArguments, Router, TaskSupport, tools};
use serde_json::{Value as Json, json};

mod common;

use common::{Wire, confirmed};

/// The client capabilities of a request that declares the tasks extension (and form elicitation).
const TASKS: &str = r#"{"extensions":{"io.modelcontextprotocol/tasks":{}},"elicitation":{"form":{}}}"#;
/// The client capabilities of a request that does not.
const PLAIN: &str = r#"{"elicitation":{"form":{}}}"#;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Wait {
    ms: u64,
}

/// Sets its flag when dropped: the future that holds it was dropped.
struct DropFlag(Arc<AtomicBool>);

impl Drop for DropFlag {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// What the test functions let the tests see.
#[derive(Default)]
struct Seen {
    /// Runs of `delete` (each round of a 2026-07-28 question runs it again).
    runs: AtomicUsize,
    /// `forever` started, its future was dropped, it finished (it must not).
    started: AtomicBool,
    dropped: Arc<AtomicBool>,
    finished: AtomicBool,
}

fn router(seen: Arc<Seen>) -> Router {
    let (asking, forever) = (seen.clone(), seen);
    Router::new()
        .task_tool("wait", "Awaits a timer", TaskSupport::Optional, |Wait { ms }, ctx: Context| async move {
            ctx.log(LoggingLevel::Info, "waiting");
            tokio::time::sleep(Duration::from_millis(ms)).await;
            ctx.progress(1, Some(1), Some("waited"));
            format!("waited {ms} ms")
        })
        .task_tool("delete", "Deletes after two confirmations", TaskSupport::Required, move |_: NoArguments, ctx| {
            asking.runs.fetch_add(1, Ordering::SeqCst);
            async move {
                let first = confirmed(&ctx, "Delete?").await?;
                // Some work between the questions.
                tokio::time::sleep(Duration::from_millis(5)).await;
                let second = confirmed(&ctx, "Really delete?").await?;
                Ok::<_, InputError>(format!("deleted: {first}, {second}"))
            }
        })
        .task_tool("forever", "Never ends", TaskSupport::Optional, move |_: NoArguments, _: Context| {
            let seen = forever.clone();
            let flag = DropFlag(seen.dropped.clone());
            async move {
                let _flag = flag;
                seen.started.store(true, Ordering::SeqCst);
                tokio::time::sleep(Duration::from_secs(3600)).await;
                seen.finished.store(true, Ordering::SeqCst);
                "finished"
            }
        })
        .tool("plain", "Never a task", |_: NoArguments| async { "plain" })
}

/// The raw wire to a server of `router` and the next request id.
struct Client {
    wire: Wire,
    next: u64,
}

impl Client {
    async fn start(router: Router, era: EraPolicy) -> Client {
        Client { wire: Wire::start(router, era).await, next: 1 }
    }

    /// Sends `method` with `params` (a 2026-07-28 request declaring `capabilities`); its answer.
    async fn modern(&mut self, method: &str, mut params: Json, capabilities: &str) -> Json {
        let meta = &mut params["_meta"];
        meta["io.modelcontextprotocol/protocolVersion"] = json!("2026-07-28");
        meta["io.modelcontextprotocol/clientCapabilities"] = serde_json::from_str(capabilities).unwrap();
        self.send(method, params).await
    }

    /// Sends `method` with `params` as they are; its answer.
    async fn send(&mut self, method: &str, params: Json) -> Json {
        let mut messages = self.send_all(method, params).await;
        // Nothing else on the wire: a task's outcome stays in the server.
        assert_eq!(messages.len(), 1, "{messages:?}");
        messages.pop().unwrap()
    }

    /// Sends `method` with `params` as they are; what came up to its answer, the answer last (but
    /// a legacy session's list_changed, sent once the session is initialized).
    async fn send_all(&mut self, method: &str, params: Json) -> Vec<Json> {
        let id = self.next;
        self.next += 1;
        self.wire.send(json!({"jsonrpc":"2.0","id":id,"method":method,"params":params})).await;
        let mut messages = self.wire.until_answer(id).await;
        messages.retain(|m| !m["method"].as_str().is_some_and(|m| m.ends_with("/list_changed")));
        messages
    }

    /// Calls `tool` declaring the tasks extension, asking for progress and logs (a task sends
    /// neither: `send` checks that nothing but the answers comes): the task it became.
    async fn task(&mut self, tool: &str, arguments: Json) -> Json {
        let meta = json!({"progressToken": "p", "io.modelcontextprotocol/logLevel": "debug"});
        let params = json!({"name": tool, "arguments": arguments, "_meta": meta});
        let created = self.modern("tools/call", params, TASKS).await;
        let task = created["result"].clone();
        assert_eq!(task["resultType"], "task", "{tool}: {created}");
        assert!(task["taskId"].is_string() && task.get("content").is_none(), "{task}");
        task
    }

    /// `tasks/get` of `task`.
    async fn get(&mut self, task: &Json) -> Json {
        let got = self.modern("tasks/get", json!({"taskId": task["taskId"]}), TASKS).await;
        assert_eq!(got["result"]["taskId"], task["taskId"], "{got}");
        got["result"].clone()
    }

    /// `tasks/get` of `task` until its status is not `working`.
    async fn settled(&mut self, task: &Json) -> Json {
        for _ in 0..500 {
            let got = self.get(task).await;
            if got["status"] != "working" {
                return got;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("the task is still working: {task}");
    }

    /// `tasks/update` of `task` with `responses`: acknowledged.
    async fn update(&mut self, task: &Json, responses: Json) {
        let params = json!({"taskId": task["taskId"], "inputResponses": responses});
        let ack = self.modern("tasks/update", params, TASKS).await;
        assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    }
}

fn text(result: &Json) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_default()
}

#[tokio::test]
async fn a_long_running_tool_is_answered_with_a_task_that_completes_with_its_output() {
    let mut client = Client::start(router(Arc::default()), EraPolicy::Modern).await;
    let discover = client.modern("server/discover", json!({}), PLAIN).await;
    assert!(
        discover["result"]["capabilities"]["extensions"]["io.modelcontextprotocol/tasks"].is_object(),
        "{discover}"
    );

    let started = std::time::Instant::now();
    let task = client.task("wait", json!({"ms": 200})).await;
    // Answered before the timer ran out.
    assert_eq!(task["status"], "working");
    let got = client.get(&task).await;
    assert_eq!(got["status"], "working", "{got}");
    assert!(got.get("result").is_none());

    let got = client.settled(&task).await;
    assert_eq!(got["status"], "completed", "{got}");
    assert!(started.elapsed() >= Duration::from_millis(200));
    assert_eq!(text(&got["result"]), "waited 200 ms", "{got}");
    assert!(got["result"].get("isError").is_none());
    // Read again: the same result, kept until the task expires.
    assert_eq!(client.get(&task).await["result"], got["result"]);

    // Tasks run concurrently, each with its own result.
    let tasks = [client.task("wait", json!({"ms": 60})).await, client.task("wait", json!({"ms": 30})).await];
    for (task, ms) in tasks.iter().zip([60, 30]) {
        assert_eq!(text(&client.settled(task).await["result"]), format!("waited {ms} ms"));
    }

    // Arguments that do not match are answered at once, without a task.
    let wrong = client.modern("tools/call", json!({"name": "wait", "arguments": {"ms": "soon"}}), TASKS).await;
    assert_eq!(
        (wrong["result"]["resultType"].as_str(), wrong["result"]["isError"].as_bool()),
        (Some("complete"), Some(true))
    );
    // A plain tool stays plain.
    let plain = client.modern("tools/call", json!({"name": "plain", "arguments": {}}), TASKS).await;
    assert_eq!((plain["result"]["resultType"].as_str(), text(&plain["result"])), (Some("complete"), "plain"));
}

#[tokio::test]
async fn a_question_makes_the_task_input_required_and_tasks_update_runs_the_function_again() {
    let seen = Arc::new(Seen::default());
    let mut client = Client::start(router(seen.clone()), EraPolicy::Modern).await;
    let task = client.task("delete", json!({})).await;

    let got = client.settled(&task).await;
    assert_eq!(got["status"], "input_required", "{got}");
    let asked = &got["inputRequests"]["1"];
    assert_eq!(asked["method"], "elicitation/create", "{got}");
    assert_eq!(asked["params"]["message"], "Delete?");
    assert!(got.get("requestState").is_none(), "the state stays in the server");
    assert_eq!(seen.runs.load(Ordering::SeqCst), 1);

    // The first answer: the function runs again, gets past the first question, asks the second.
    client.update(&task, json!({"1": {"action": "accept", "content": {"confirm": true}}})).await;
    let got = client.settled(&task).await;
    assert_eq!(got["status"], "input_required", "{got}");
    let asked = got["inputRequests"].as_object().unwrap();
    assert_eq!(asked.keys().collect::<Vec<_>>(), ["2"], "{got}");
    assert_eq!(asked["2"]["params"]["message"], "Really delete?");
    assert_eq!(seen.runs.load(Ordering::SeqCst), 2);

    // The second: it runs once more with both answers (the first from the state the task kept).
    client.update(&task, json!({"2": {"action": "accept", "content": {"confirm": false}}})).await;
    let got = client.settled(&task).await;
    assert_eq!(got["status"], "completed", "{got}");
    assert_eq!(text(&got["result"]), "deleted: true, false");
    assert_eq!(seen.runs.load(Ordering::SeqCst), 3);

    // An answer to a task that asks nothing more changes nothing.
    client.update(&task, json!({"2": {"action": "decline"}})).await;
    assert_eq!(client.get(&task).await["result"], got["result"]);
}

#[tokio::test]
async fn tasks_cancel_drops_the_future_and_the_task_reads_cancelled() {
    let seen = Arc::new(Seen::default());
    let mut client = Client::start(router(seen.clone()), EraPolicy::Modern).await;
    let task = client.task("forever", json!({})).await;
    for _ in 0..500 {
        if seen.started.load(Ordering::SeqCst) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    assert!(seen.started.load(Ordering::SeqCst), "the function runs");
    assert_eq!(client.get(&task).await["status"], "working");

    let ack = client.modern("tasks/cancel", json!({"taskId": task["taskId"]}), TASKS).await;
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    assert_eq!(client.get(&task).await["status"], "cancelled");
    for _ in 0..500 {
        if seen.dropped.load(Ordering::SeqCst) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    assert!(seen.dropped.load(Ordering::SeqCst), "the future was dropped");
    assert!(!seen.finished.load(Ordering::SeqCst));
    // Cancelled again: acknowledged, unchanged.
    let ack = client.modern("tasks/cancel", json!({"taskId": task["taskId"]}), TASKS).await;
    assert_eq!(ack["result"]["resultType"], "complete");
    let got = client.get(&task).await;
    assert_eq!(got["status"], "cancelled", "{got}");
    assert!(got.get("result").is_none() && got.get("error").is_none());
}

#[tokio::test]
async fn without_the_extension_an_optional_task_tool_runs_plainly_and_a_required_one_is_refused() {
    let seen = Arc::new(Seen::default());
    let mut client = Client::start(router(seen.clone()), EraPolicy::Modern).await;
    let plain = client.modern("tools/call", json!({"name": "wait", "arguments": {"ms": 20}}), PLAIN).await;
    assert_eq!((plain["result"]["resultType"].as_str(), text(&plain["result"])), (Some("complete"), "waited 20 ms"));

    let refused = client.modern("tools/call", json!({"name": "delete", "arguments": {}}), PLAIN).await;
    assert_eq!(refused["error"]["code"], -32021, "{refused}");
    let required = &refused["error"]["data"]["requiredCapabilities"]["extensions"];
    assert!(required["io.modelcontextprotocol/tasks"].is_object(), "{refused}");
    assert_eq!(seen.runs.load(Ordering::SeqCst), 0, "refused before the function ran");

    let tasks = client.modern("tasks/get", json!({"taskId": "0123"}), PLAIN).await;
    assert_eq!(tasks["error"]["code"], -32021, "tasks/* needs the extension too: {tasks}");
}

#[tokio::test]
async fn in_a_legacy_session_a_task_tool_runs_plainly_or_as_a_task_when_asked() {
    let seen = Arc::new(Seen::default());
    let mut client = Client::start(router(seen.clone()), EraPolicy::Legacy).await;
    let mut messages = client.send_all("tools/call", json!({"name": "wait", "arguments": {"ms": 20}})).await;
    let waited = messages.pop().unwrap();
    assert_eq!(text(&waited["result"]), "waited 20 ms", "{waited}");
    // A plain call's log message goes ahead of its answer, as ever.
    assert_eq!(messages.len(), 1, "{messages:?}");
    assert_eq!(
        (messages[0]["method"].as_str(), messages[0]["params"]["data"].as_str()),
        (Some("notifications/message"), Some("waiting"))
    );
    assert!(waited["result"].get("resultType").is_none() && waited["result"].get("task").is_none());
    // A tool that runs only as a task, called without asking for one: -32601 (2025-11-25).
    let refused = client.send("tools/call", json!({"name": "delete", "arguments": {}})).await;
    assert_eq!(refused["error"]["code"], -32601, "{refused}");
    assert_eq!(seen.runs.load(Ordering::SeqCst), 0);
    // Asked for (`params.task`), a task, in 2025-11-25's shape, its outcome read with tasks/result.
    let created = client.send("tools/call", json!({"name": "wait", "arguments": {"ms": 30}, "task": {}})).await;
    let task = created["result"]["task"]["taskId"].clone();
    assert_eq!(created["result"]["task"]["status"], "working", "{created}");
    let mut messages = client.send_all("tasks/result", json!({"taskId": task})).await;
    let result = messages.pop().unwrap();
    assert_eq!(text(&result["result"]), "waited 30 ms", "{result}");
    assert_eq!(result["result"]["_meta"]["io.modelcontextprotocol/related-task"]["taskId"], task);
    // Its status was told on the way (and nothing else: a task sends no log messages).
    assert!(messages.iter().all(|m| m["method"] == "notifications/tasks/status"), "{messages:?}");
    assert_eq!(messages.last().map(|m| m["params"]["status"].clone()), Some(json!("completed")), "{messages:?}");
}

#[tokio::test]
async fn a_router_without_task_tools_declares_no_tasks() {
    let router = Router::new().tool("plain", "Never a task", |_: NoArguments| async { "plain" });
    let mut client = Client::start(router, EraPolicy::Modern).await;
    let discover = client.modern("server/discover", json!({}), TASKS).await;
    assert!(discover["result"]["capabilities"].get("extensions").is_none(), "{discover}");
    let plain = client.modern("tools/call", json!({"name": "plain", "arguments": {}}), TASKS).await;
    assert_eq!(plain["result"]["resultType"], "complete");
}

struct Jobs {
    runs: AtomicUsize,
}

#[tools]
impl Jobs {
    /// Waits, as a task when the client can follow one.
    #[tool(task)]
    async fn slow(&self, Wait { ms }: Wait) -> String {
        self.runs.fetch_add(1, Ordering::SeqCst);
        tokio::time::sleep(Duration::from_millis(ms)).await;
        format!("slow {ms}")
    }

    /// Asks, only as a task.
    #[tool(task = "required", name = "ask")]
    async fn ask_first(&self, context: Context) -> Result<&'static str, InputError> {
        self.runs.fetch_add(1, Ordering::SeqCst);
        Ok(if confirmed(&context, "Go?").await? { "went" } else { "stayed" })
    }

    /// A task when the client can follow one, answered at once.
    #[tool(task = "optional")]
    async fn optional(&self) -> &'static str {
        "optional"
    }
}

#[tokio::test]
async fn tools_methods_marked_task_run_as_tasks() {
    let jobs = Arc::new(Jobs { runs: AtomicUsize::new(0) });
    let mut client = Client::start(jobs.clone().router(), EraPolicy::Modern).await;
    let task = client.task("slow", json!({"ms": 20})).await;
    assert_eq!(text(&client.settled(&task).await["result"]), "slow 20");
    let task = client.task("optional", json!({})).await;
    assert_eq!(text(&client.settled(&task).await["result"]), "optional");

    let task = client.task("ask", json!({})).await;
    assert_eq!(client.settled(&task).await["status"], "input_required");
    client.update(&task, json!({"1": {"action": "accept", "content": {"confirm": true}}})).await;
    assert_eq!(text(&client.settled(&task).await["result"]), "went");

    let plain = client.modern("tools/call", json!({"name": "slow", "arguments": {"ms": 1}}), PLAIN).await;
    assert_eq!(text(&plain["result"]), "slow 1");
    let refused = client.modern("tools/call", json!({"name": "ask", "arguments": {}}), PLAIN).await;
    assert_eq!(refused["error"]["code"], -32021);
    assert_eq!(jobs.runs.load(Ordering::SeqCst), 4, "slow twice, ask twice");
}

#[tokio::test]
async fn a_listen_stream_that_follows_a_task_is_told_when_it_completes() {
    let mut client = Client::start(router(Arc::default()), EraPolicy::Modern).await;
    let task = client.task("wait", json!({"ms": 100})).await;
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": serde_json::from_str::<Json>(TASKS).unwrap(),
    });
    let params = json!({"notifications": {"taskIds": [task["taskId"]]}, "_meta": meta});
    client.wire.send(json!({"jsonrpc":"2.0","id":"listen","method":"subscriptions/listen","params":params})).await;
    let ack = client.wire.next().await;
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged", "{ack}");
    assert_eq!(ack["params"]["notifications"]["taskIds"], json!([task["taskId"]]), "{ack}");
    // Told without asking: the completed task, its result inlined, on the listen stream.
    let told = tokio::time::timeout(Duration::from_secs(5), client.wire.next()).await.expect("told in time");
    assert_eq!(told["method"], "notifications/tasks", "{told}");
    assert_eq!(told["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], "listen");
    assert_eq!(
        (told["params"]["taskId"].clone(), told["params"]["status"].as_str()),
        (task["taskId"].clone(), Some("completed"))
    );
    assert_eq!(text(&told["params"]["result"]), "waited 100 ms", "{told}");
}

/// Our host in a 2025-11-25 session: the tools `list_tools` names as requiring a task are called
/// as tasks, polled with `tasks/get` and read with `tasks/result`, their questions answered
/// through the input callback; a task asked for by hand; the session's tasks listed; a follower
/// cancelled cancels its task. Then the same host in 2026-07-28.
mod host {
    use std::sync::Mutex;

    use mcp_sansio::endpoint::SendError;
    use mcp_sansio::mcp::TaskStatus;
    use mcp_sansio_tokio::host::{ClientHandle, RequestError, Started, TaskInfo};

    use super::*;

    /// A handle recording each status a task it follows reports.
    fn followed(client: &ClientHandle, statuses: &Arc<Mutex<Vec<(String, TaskStatus)>>>) -> ClientHandle {
        let statuses = statuses.clone();
        client.with_task_status(Arc::new(move |task: &TaskInfo| {
            statuses.lock().unwrap().push((task.id.clone(), task.status));
        }))
    }

    fn parse(bytes: &[u8]) -> Json {
        serde_json::from_slice(bytes).unwrap()
    }

    #[tokio::test]
    async fn a_tool_requiring_a_task_is_called_as_one_and_its_questions_answered() {
        let (seen, asked) = (Arc::new(Seen::default()), Arc::new(AtomicUsize::new(0)));
        let client = common::client(router(seen.clone()), EraPolicy::Legacy, asked.clone()).await;
        let statuses = Arc::default();
        // Before the tools are listed the host does not know `delete` needs a task: -32601.
        let refused = client.call_tool("delete", "{}").await;
        assert!(matches!(refused, Err(RequestError::Server { code: -32601, .. })), "{refused:?}");
        let tools: Vec<Json> = client.list_tools().await.unwrap().iter().map(|t| parse(t)).collect();
        let delete = tools.iter().find(|t| t["name"] == "delete").unwrap();
        assert_eq!(delete["execution"]["taskSupport"], "required");
        let result = followed(&client, &statuses).call_tool("delete", "{}").await.unwrap();
        assert_eq!(text(&parse(&result)), "deleted: true, true");
        assert_eq!(asked.load(Ordering::SeqCst), 2, "two questions, each answered once");
        let statuses: Vec<TaskStatus> = statuses.lock().unwrap().iter().map(|(_, status)| *status).collect();
        assert_eq!(statuses.first(), Some(&TaskStatus::Working), "{statuses:?}");
        assert!(statuses.contains(&TaskStatus::InputRequired), "{statuses:?}");
        // An optional task tool runs plainly unless a task is asked for.
        let Started::Result(plain) = client.start_tool_call("wait", r#"{"ms":5}"#).await.unwrap() else {
            panic!("an optional tool ran as a task unasked");
        };
        assert_eq!(text(&parse(&plain)), "waited 5 ms");
        let Started::Task(task) = client.start_tool_call_as_task("wait", r#"{"ms":5}"#).await.unwrap() else {
            panic!("no task");
        };
        assert_eq!((task.status, task.ttl.is_some()), (TaskStatus::Working, true), "{task:?}");
        let waited = client.follow_task(task.clone()).await.unwrap();
        assert_eq!(text(&parse(&waited)), "waited 5 ms");
        assert_eq!(client.get_task(&task.id).await.unwrap().status, TaskStatus::Completed);
        // With progress asked for, a task is still followed (its statuses, not progress, report).
        let reports = Arc::new(AtomicUsize::new(0));
        let counted = reports.clone();
        let progress = Box::new(move |_: f64, _: Option<f64>, _: Option<&str>| {
            counted.fetch_add(1, Ordering::SeqCst);
        });
        let result = client.call_tool_with_progress("delete", "{}", progress).await.unwrap();
        assert_eq!(text(&parse(&result)), "deleted: true, true");
        assert_eq!(asked.load(Ordering::SeqCst), 4);
        // tasks/list: the session's tasks (two deletes, one wait), each as it ended.
        let listed = client.list_tasks().await.unwrap();
        assert_eq!(listed.len(), 3, "{listed:?}");
        assert!(listed.iter().all(|t| t.status == TaskStatus::Completed), "{listed:?}");
        assert!(listed.iter().any(|t| t.id == task.id), "{listed:?}");
    }

    #[tokio::test]
    async fn a_cancelled_follower_cancels_its_task() {
        let (seen, asked) = (Arc::new(Seen::default()), Arc::new(AtomicUsize::new(0)));
        let client = common::client(router(seen.clone()), EraPolicy::Legacy, asked).await;
        let task = common::follow_then_cancel(&client, "forever", Duration::from_millis(50)).await;
        // The follower sent tasks/cancel: the task ends cancelled and its future is dropped.
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while client.get_task(&task.id).await.unwrap().status != TaskStatus::Cancelled {
            assert!(std::time::Instant::now() < deadline, "the task was not cancelled");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        while !seen.dropped.load(Ordering::SeqCst) {
            assert!(std::time::Instant::now() < deadline, "the task's future was not dropped");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert!(seen.started.load(Ordering::SeqCst) && !seen.finished.load(Ordering::SeqCst));
        // Following a cancelled task ends at once.
        let followed = client.follow_task(client.get_task(&task.id).await.unwrap()).await;
        assert!(matches!(followed, Err(RequestError::TaskCancelled { .. })), "{followed:?}");
    }

    /// The same host in 2026-07-28, over the same stdio framing: it declares the tasks
    /// extension, so a task tool answers with a task, which `call_tool` follows with `tasks/get`,
    /// answering its questions with `tasks/update`; a cancelled follower cancels its task.
    #[tokio::test]
    async fn in_2026_07_28_a_task_is_followed_its_questions_answered_and_a_cancelled_follower_cancels_it() {
        let (seen, asked) = (Arc::new(Seen::default()), Arc::new(AtomicUsize::new(0)));
        let client = common::client(router(seen.clone()), EraPolicy::Modern, asked.clone()).await;
        let statuses = Arc::default();
        let result = followed(&client, &statuses).call_tool("delete", "{}").await.unwrap();
        assert_eq!(text(&parse(&result)), "deleted: true, true");
        assert_eq!(asked.load(Ordering::SeqCst), 2, "two questions, each answered once");
        let statuses: Vec<TaskStatus> = statuses.lock().unwrap().iter().map(|(_, status)| *status).collect();
        assert!(statuses.contains(&TaskStatus::InputRequired), "{statuses:?}");
        assert_eq!(statuses.last(), Some(&TaskStatus::Completed), "{statuses:?}");
        let task = common::follow_then_cancel(&client, "forever", Duration::from_millis(50)).await;
        assert_eq!(client.get_task(&task.id).await.unwrap().status, TaskStatus::Cancelled);
        // The extension has no tasks/list.
        let listed = client.list_tasks().await;
        assert!(matches!(listed, Err(RequestError::Send(SendError::NotAvailable))), "{listed:?}");
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while !seen.dropped.load(Ordering::SeqCst) {
            assert!(std::time::Instant::now() < deadline, "the task's future was not dropped");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
}
