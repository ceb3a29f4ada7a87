//! Tasks (2026-07-28 extension): calls that become tasks, polled, answered, cancelled.

use std::string::{String, ToString};
use std::vec::Vec;

use serde_json::{Value as Json, json};

use super::tasks::{TaskSlot, TaskTable};
use super::*;
use crate::connection::Connection;
use crate::mcp::TaskSupport;
use crate::time::{Duration, Instant};

static TOOLS: [Tool<'static>; 6] = [
    Tool::new("big", "A task whose result is larger than its share of the table", "{}")
        .with_task_support(TaskSupport::Optional),
    Tool::new("quick", "A task answered at once", "{}").with_task_support(TaskSupport::Optional),
    Tool::new("slow", "A task answered later", "{}").with_task_support(TaskSupport::Optional),
    Tool::new("ask", "A task that asks two questions", "{}").with_task_support(TaskSupport::Required),
    Tool::new("broken", "A task that fails", "{}").with_task_support(TaskSupport::Required),
    Tool::new("plain", "Never a task", "{}"),
];

const FORM: &str = r#"{"type":"object","properties":{"ok":{"type":"boolean"}}}"#;
static SEALER: HmacSealer = HmacSealer::new([9; 32], Duration::from_secs(600));

#[derive(Default)]
struct Tasks {
    deferred: Vec<Deferred>,
    cancelled: Vec<DeferredKey>,
    runs: usize,
}

impl Handler for Tasks {
    const TOOLS: &'static [Tool<'static>] = &TOOLS;

    fn call_tool(&mut self, call: ToolCall<'_>, mut reply: ToolReply<'_>) {
        self.runs += 1;
        match (call.name, reply.run_as_task()) {
            ("plain", Ok(())) => unreachable!("plain is never a task here"),
            (_, Ok(())) => {}
            ("plain" | "quick" | "slow" | "big", Err(_)) => return reply.text("at once").finish(),
            (_, Err(why)) => return reply.refuse_task(why),
        }
        match call.name {
            "quick" => reply.text("quick done").finish(),
            "big" => reply.text(&"x".repeat(3000)).finish(),
            "slow" => {
                if let Ok(deferred) = reply.defer() {
                    self.deferred.push(deferred);
                }
            }
            "ask" => {
                let (a, b) = (call.context.input("a"), call.context.input("b"));
                let state = call.context.request_state.map(|s| String::from_utf8_lossy(s).into_owned());
                match (a, b) {
                    (Some(a), Some(b)) => reply
                        .text(&std::format!(
                            "a={} b={} state={state:?}",
                            String::from_utf8_lossy(a.as_bytes()),
                            String::from_utf8_lossy(b.as_bytes())
                        ))
                        .finish(),
                    _ => {
                        let ask = InputRequest::ElicitForm { message: "Sure?", requested_schema: FORM };
                        reply.input_required().request("a", ask).request("b", ask).state(b"round1").finish()
                    }
                }
            }
            _ => reply.fail(-32000, "it broke"),
        }
    }

    fn on_event(&mut self, _now: Instant, event: Event) {
        if let Event::Cancelled { request } = event {
            self.cancelled.push(request);
        }
    }
}

fn random(id: &mut [u8; 16]) {
    static NEXT: core::sync::atomic::AtomicU8 = core::sync::atomic::AtomicU8::new(1);
    *id = [NEXT.fetch_add(1, core::sync::atomic::Ordering::Relaxed); 16];
}

struct Harness {
    server: Server<'static, Tasks, 4, 2>,
    now: Instant,
}

const EXT: &str = r#"{"extensions":{"io.modelcontextprotocol/tasks":{}},"elicitation":{}}"#;

impl Harness {
    fn new(tasks: usize) -> Self {
        let mut config = Config::new("tasks", "1");
        config.state_sealer = Some(&SEALER);
        let buffers = Buffers { rx: std::vec![0u8; 8192].leak(), tx: std::vec![0u8; 8192].leak() };
        let mut server = Server::new(Tasks::default(), config, buffers);
        let slots = std::vec![TaskSlot::EMPTY; tasks].leak();
        let data = std::vec![0u8; 2048 * (tasks + 1)].leak();
        let now = Instant::from_millis(5_000);
        let table = TaskTable::new(slots, data, random).with_wall_clock(now, 1_796_301_296_000);
        server.parts_mut().0.set_task_table(table);
        Harness { server, now }
    }

    fn send(&mut self, message: &Json) -> Vec<Json> {
        super::tests_wire::send_json(&mut self.server, self.now, message)
    }

    fn drain(&mut self) -> Vec<Json> {
        super::tests_wire::drain_json(&mut self.server, self.now)
    }

    fn request(&mut self, method: &str, caps: &str, params: Json) -> Json {
        let mut params = params;
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": serde_json::from_str::<Json>(caps).unwrap(),
        });
        let mut out = self.send(&json!({"jsonrpc":"2.0","id":7,"method":method,"params":params}));
        assert_eq!(out.len(), 1, "{out:?}");
        out.pop().unwrap()
    }

    fn call(&mut self, tool: &str, caps: &str) -> Json {
        self.request("tools/call", caps, json!({"name": tool, "arguments": {}}))
    }

    fn get(&mut self, task: &Json) -> Json {
        self.request("tasks/get", EXT, json!({"taskId": task}))["result"].clone()
    }
}

fn text(result: &Json) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_default()
}

#[test]
fn a_call_becomes_a_task_whose_result_tasks_get_inlines() {
    let mut h = Harness::new(4);
    let created = h.call("quick", EXT)["result"].clone();
    assert_eq!(created["resultType"], "task", "{created}");
    // Answered at once: the task has ended already.
    assert_eq!(created["status"], "completed");
    let task = created["taskId"].clone();
    assert_eq!(task.as_str().unwrap().len(), 32);
    assert!(created["createdAt"].as_str().unwrap().starts_with("2026-12-03T12:34:56"), "{created}");
    assert_eq!(created["ttlMs"], 3_600_000);
    assert!(created.get("content").is_none() && created.get("task").is_none());
    let got = h.get(&task);
    assert_eq!((got["status"].as_str(), got["resultType"].as_str()), (Some("completed"), Some("complete")), "{got}");
    assert_eq!(text(&got["result"]), "quick done");
    assert_eq!(got["taskId"], task);
}

#[test]
fn without_the_extension_a_call_runs_plain_or_is_refused_when_it_must_be_a_task() {
    let mut h = Harness::new(4);
    let plain = h.call("quick", "{}")["result"].clone();
    assert_eq!((plain["resultType"].as_str(), text(&plain)), (Some("complete"), "at once"));
    let runs = h.server.parts_mut().1.runs;
    let refused = h.call("ask", "{}");
    assert_eq!(refused["error"]["code"], -32021, "{refused}");
    assert!(
        refused["error"]["data"]["requiredCapabilities"]["extensions"]["io.modelcontextprotocol/tasks"].is_object()
    );
    assert_eq!(h.server.parts_mut().1.runs, runs, "refused before the handler ran");
    assert_eq!(h.call("plain", EXT)["result"]["resultType"], "complete");
    for method in ["tasks/get", "tasks/update", "tasks/cancel"] {
        let out = h.request(method, "{}", json!({"taskId": "gate-test", "inputResponses": {}}));
        assert_eq!(out["error"]["code"], -32021, "{method}: {out}");
    }
    for method in ["tasks/result", "tasks/list"] {
        assert_eq!(h.request(method, EXT, json!({"taskId": "x"}))["error"]["code"], -32601, "{method}");
    }
    let unknown = h.request("tasks/get", EXT, json!({"taskId": "tasks-conformance-nonexistent"}));
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
    let discover = h.request("server/discover", "{}", json!({}));
    assert!(discover["result"]["capabilities"]["extensions"]["io.modelcontextprotocol/tasks"].is_object());
    assert!(discover["result"]["capabilities"].get("tasks").is_none());
}

#[test]
fn a_deferred_task_is_working_until_the_handler_answers_and_its_answer_is_not_sent() {
    let mut h = Harness::new(4);
    let task = h.call("slow", EXT)["result"]["taskId"].clone();
    assert_eq!(h.get(&task)["status"], "working");
    let deferred = h.server.parts_mut().1.deferred.pop().unwrap();
    h.server.reply_tool(&deferred).unwrap().text("slow done").finish();
    assert!(h.drain().is_empty(), "a task's answer stays in the table");
    let got = h.get(&task);
    assert_eq!((got["status"].as_str(), text(&got["result"])), (Some("completed"), "slow done"), "{got}");
}

#[test]
fn a_task_asks_for_input_and_runs_again_once_every_answer_is_in() {
    let mut h = Harness::new(4);
    let task = h.call("ask", EXT)["result"]["taskId"].clone();
    let got = h.get(&task);
    assert_eq!(got["status"], "input_required", "{got}");
    assert_eq!(got["inputRequests"]["a"]["method"], "elicitation/create");
    assert!(got["inputRequests"]["b"].is_object() && got.get("requestState").is_none(), "{got}");
    let accept = json!({"action": "accept", "content": {"ok": true}});
    let ack = h.request("tasks/update", EXT, json!({"taskId": task, "inputResponses": {"a": accept, "zzz": {"x": 1}}}));
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    assert!(ack["result"].get("status").is_none());
    let got = h.get(&task);
    assert_eq!(got["status"], "input_required");
    assert!(got["inputRequests"].get("a").is_none() && got["inputRequests"]["b"].is_object(), "{got}");
    h.request("tasks/update", EXT, json!({"taskId": task, "inputResponses": {"b": accept}}));
    let got = h.get(&task);
    assert_eq!(got["status"], "completed", "{got}");
    let text = text(&got["result"]);
    assert!(text.contains(r#"a={"action":"accept""#) && text.contains("state=Some(\"round1\")"), "{text}");
    assert_eq!(h.server.parts_mut().1.runs, 2);
}

#[test]
fn an_error_fails_the_task_and_a_cancel_ends_a_running_one() {
    let mut h = Harness::new(4);
    let task = h.call("broken", EXT)["result"]["taskId"].clone();
    let got = h.get(&task);
    assert_eq!((got["status"].as_str(), got["error"]["code"].as_i64()), (Some("failed"), Some(-32000)), "{got}");
    assert!(got.get("result").is_none() && got["statusMessage"].is_string());
    let slow = h.call("slow", EXT)["result"]["taskId"].clone();
    let ack = h.request("tasks/cancel", EXT, json!({"taskId": slow}));
    assert_eq!(ack["result"]["resultType"], "complete");
    assert_eq!(h.get(&slow)["status"], "cancelled");
    let deferred = h.server.parts_mut().1.deferred.pop().unwrap();
    assert_eq!(h.server.parts_mut().1.cancelled, [deferred.key()]);
    assert!(matches!(h.server.reply_tool(&deferred), Err(ReplyError::Cancelled)));
    // An ended task: acknowledged, unchanged.
    assert_eq!(h.request("tasks/cancel", EXT, json!({"taskId": task}))["result"]["resultType"], "complete");
    assert_eq!(h.get(&task)["status"], "failed");
}

#[test]
fn a_full_table_runs_the_call_plainly_and_an_expired_task_is_gone() {
    let mut h = Harness::new(1);
    let first = h.call("slow", EXT)["result"]["taskId"].clone();
    assert_eq!(h.call("quick", EXT)["result"]["content"][0]["text"], "at once");
    h.now = Instant::from_millis(5_000 + 3_600_000);
    assert_eq!(h.request("tasks/get", EXT, json!({"taskId": first}))["error"]["code"], -32602);
    assert_eq!(h.call("quick", EXT)["result"]["resultType"], "task");
}

#[test]
fn what_does_not_fit_a_task_s_share_fails_it_or_makes_no_task() {
    let mut h = Harness::new(2);
    // 2,048 bytes per task: a 3,000-byte result fails the task, with the reason inlined.
    let task = h.call("big", EXT)["result"]["taskId"].clone();
    let got = h.get(&task);
    assert_eq!((got["status"].as_str(), got["error"]["code"].as_i64()), (Some("failed"), Some(-32603)), "{got}");
    assert!(got["error"]["message"].as_str().unwrap().contains("does not fit"), "{got}");
    // A request larger than the share makes no task: the call runs plainly.
    let out = h.request("tools/call", EXT, json!({"name": "quick", "arguments": {"pad": "y".repeat(2100)}}));
    assert_eq!(text(&out["result"]), "at once", "{out}");
    // An answer larger than the share is dropped: the question stays open.
    let ask = h.call("ask", EXT)["result"]["taskId"].clone();
    let huge = json!({"action": "accept", "content": {"note": "z".repeat(2100)}});
    h.request("tasks/update", EXT, json!({"taskId": ask, "inputResponses": {"a": huge}}));
    assert!(h.get(&ask)["inputRequests"]["a"].is_object());
}

#[test]
fn the_legacy_task_param_is_ignored_in_2026_07_28_and_a_legacy_session_reads_tasks_in_its_shape() {
    let mut h = Harness::new(2);
    let hint = h.request("tools/call", EXT, json!({"name": "plain", "arguments": {}, "task": {"ttl": 60000}}));
    assert_eq!(text(&hint["result"]), "at once", "{hint}");
    let task = h.call("ask", EXT)["result"]["taskId"].clone();
    let no_answers = h.request("tasks/update", EXT, json!({"taskId": task}));
    assert_eq!(no_answers["error"]["code"], -32602, "{no_answers}");
    h.send(&json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",
        "capabilities":{},"clientInfo":{"name":"c","version":"1"}}}));
    h.send(&json!({"jsonrpc":"2.0","method":"notifications/initialized"}));
    let out = h.send(&json!({"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId": task}}));
    let got = &out[0]["result"];
    assert_eq!((got["taskId"].clone(), got["status"].as_str()), (task, Some("input_required")), "{out:?}");
    assert!(got["ttl"].is_u64() && got["pollInterval"].is_u64() && got.get("ttlMs").is_none(), "{got}");
    assert!(got.get("inputRequests").is_none() && got.get("resultType").is_none(), "{got}");
}

#[test]
fn the_answer_to_an_expired_task_is_dropped_and_nothing_reaches_the_wire() {
    let mut h = Harness::new(2);
    let task = h.call("slow", EXT)["result"]["taskId"].clone();
    h.now = Instant::from_millis(5_000 + 3_600_000);
    assert_eq!(h.request("tasks/get", EXT, json!({"taskId": task}))["error"]["code"], -32602);
    let deferred = h.server.parts_mut().1.deferred.pop().unwrap();
    assert!(matches!(h.server.reply_tool(&deferred), Err(ReplyError::Cancelled)));
    assert!(h.drain().is_empty());
    assert_eq!(h.server.engine().in_flight(), 0);
}

#[test]
fn a_task_answered_after_the_sealer_s_lifetime_still_opens_its_kept_state() {
    let mut h = Harness::new(2);
    let task = h.call("ask", EXT)["result"]["taskId"].clone();
    // The sealer's lifetime is 600 s; the task lives an hour.
    h.now = Instant::from_millis(5_000 + 1_200_000);
    let accept = json!({"action": "accept", "content": {"ok": true}});
    h.request("tasks/update", EXT, json!({"taskId": task, "inputResponses": {"a": accept, "b": accept}}));
    let got = h.get(&task);
    assert_eq!(got["status"], "completed", "{got}");
    assert!(text(&got["result"]).contains("state=Some(\"round1\")"), "{got}");
}

#[test]
fn a_late_answer_is_stamped_with_the_time_the_engine_was_last_given() {
    let mut h = Harness::new(2);
    let task = h.call("slow", EXT)["result"]["taskId"].clone();
    h.now = Instant::from_millis(5_000 + 61_000);
    let now = h.now;
    h.server.handle_timeout(now);
    let deferred = h.server.parts_mut().1.deferred.pop().unwrap();
    h.server.reply_tool(&deferred).unwrap().text("late").finish();
    let got = h.get(&task);
    assert_eq!(got["createdAt"], "2026-12-03T12:34:56.000Z");
    assert_eq!(got["lastUpdatedAt"], "2026-12-03T12:35:57.000Z", "{got}");
}

#[test]
fn a_task_of_another_authorization_context_reads_as_unknown() {
    let mut h = Harness::new(2);
    h.server.parts_mut().0.task_table().unwrap().set_owner(7);
    let task = h.call("slow", EXT)["result"]["taskId"].clone();
    assert_eq!(h.get(&task)["status"], "working");
    h.server.parts_mut().0.task_table().unwrap().set_owner(8);
    for method in ["tasks/get", "tasks/cancel"] {
        let out = h.request(method, EXT, json!({"taskId": task}));
        assert_eq!(out["error"]["code"], -32602, "{method}: {out}");
    }
    // Its answer still reaches it, and its owner reads it.
    let deferred = h.server.parts_mut().1.deferred.pop().unwrap();
    h.server.reply_tool(&deferred).unwrap().text("mine").finish();
    h.server.parts_mut().0.task_table().unwrap().set_owner(7);
    assert_eq!(h.get(&task)["status"], "completed");
}

#[test]
fn a_flood_of_task_creations_past_the_table_gets_a_clear_error_and_loses_nothing() {
    let mut h = Harness::new(3);
    let kept: Vec<Json> = (0..3).map(|_| h.call("slow", EXT)["result"]["taskId"].clone()).collect();
    for _ in 0..20 {
        let refused = h.call("ask", EXT);
        assert_eq!(refused["error"]["code"], -32603, "{refused}");
        assert!(refused["error"]["message"].as_str().unwrap().contains("task table is full"), "{refused}");
        // An optional tool runs without a task instead.
        assert_eq!(h.call("quick", EXT)["result"]["content"][0]["text"], "at once");
    }
    for task in &kept {
        assert_eq!(h.get(task)["status"], "working");
    }
    // Every kept task still completes.
    while let Some(deferred) = h.server.parts_mut().1.deferred.pop() {
        h.server.reply_tool(&deferred).unwrap().text("done").finish();
    }
    assert!(kept.iter().all(|task| h.get(task)["status"] == "completed"));
}

/// Sends one line as it is (for JSON that `serde_json` would write otherwise) and returns the answer.
fn send_raw(h: &mut Harness, line: &str) -> Vec<Json> {
    let line = std::format!("{line}\n");
    assert_eq!(h.server.handle_input(h.now, line.as_bytes()), line.len());
    h.drain()
}

const META_EXT: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}},"elicitation":{}}}"#;

#[test]
fn a_task_id_written_with_escapes_names_the_task() {
    let mut h = Harness::new(2);
    let task = h.call("slow", EXT)["result"]["taskId"].as_str().unwrap().to_string();
    // The same string, its first character escaped (JSON compares strings unescaped).
    let escaped = std::format!("\\u{:04x}{}", task.as_bytes()[0], &task[1..]);
    let get =
        std::format!(r#"{{"jsonrpc":"2.0","id":8,"method":"tasks/get","params":{{"taskId":"{escaped}",{META_EXT}}}}}"#);
    let out = send_raw(&mut h, &get);
    assert_eq!(out[0]["result"]["status"], "working", "{out:?}");
    let cancel = get.replace("tasks/get", "tasks/cancel");
    let out = send_raw(&mut h, &cancel);
    assert_eq!(out[0]["result"]["resultType"], "complete", "{out:?}");
    assert_eq!(h.get(&Json::from(task.as_str()))["status"], "cancelled");
    // The handler was told, as for an id written plainly.
    assert_eq!(h.server.parts_mut().1.cancelled.len(), 1);
}

#[test]
fn answers_under_escaped_keys_answer_the_requests() {
    let mut h = Harness::new(2);
    let task = h.call("ask", EXT)["result"]["taskId"].as_str().unwrap().to_string();
    let accept = r#"{"action":"accept","content":{"ok":true}}"#;
    let update = std::format!(
        r#"{{"jsonrpc":"2.0","id":8,"method":"tasks/update","params":{{"taskId":"{task}","inputResponses":{{"\u0061":{accept},"b":{accept}}},{META_EXT}}}}}"#
    );
    let out = send_raw(&mut h, &update);
    assert_eq!(out[0]["result"]["resultType"], "complete", "{out:?}");
    let got = h.get(&Json::from(task.as_str()));
    assert_eq!(got["status"], "completed", "{got}");
}

#[test]
fn a_cancellation_notification_naming_a_task_id_cancels_nothing() {
    let mut h = Harness::new(2);
    let task = h.call("slow", EXT)["result"]["taskId"].clone();
    // A task id is not a request id of the client's: a task ends with `tasks/cancel`.
    assert!(
        h.send(&json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId": task}})).is_empty()
    );
    assert!(h.server.parts_mut().1.cancelled.is_empty(), "the handler was told of a cancellation");
    let deferred = h.server.parts_mut().1.deferred.pop().unwrap();
    h.server.reply_tool(&deferred).unwrap().text("slow done").finish();
    assert!(h.drain().is_empty());
    assert_eq!(h.get(&task)["status"], "completed");
}

#[test]
fn a_listen_stream_that_follows_tasks_is_told_of_each_new_status() {
    let mut h = Harness::new(4);
    let slow = h.call("slow", EXT)["result"]["taskId"].clone();
    let ask = h.call("ask", EXT)["result"]["taskId"].clone();
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": serde_json::from_str::<Json>(EXT).unwrap(),
    });
    let listen = |ids: Json| {
        json!({"jsonrpc":"2.0","id":"L","method":"subscriptions/listen",
               "params":{"notifications":{"taskIds": ids, "toolsListChanged": true},"_meta": meta}})
    };
    let out = h.send(&listen(json!([slow, "no-such-task", ask, slow])));
    assert_eq!(out.len(), 1, "{out:?}");
    assert_eq!(out[0]["method"], "notifications/subscriptions/acknowledged");
    // Only the tasks the table knows, each once.
    assert_eq!(out[0]["params"]["notifications"]["taskIds"], json!([slow, ask]), "{out:?}");
    assert!(h.server.poll_timeout().is_none_or(|t| t > h.now), "nothing to tell yet");

    // A deferred task completes outside any request: due at once, then told with its result.
    let deferred = h.server.parts_mut().1.deferred.pop().unwrap();
    h.server.reply_tool(&deferred).unwrap().text("slow done").finish();
    assert!(h.server.poll_timeout().is_some_and(|t| t <= h.now), "the status change is due");
    h.server.handle_timeout(h.now);
    let told = h.drain();
    assert_eq!(told.len(), 1, "{told:?}");
    assert_eq!(told[0]["method"], "notifications/tasks");
    let params = &told[0]["params"];
    assert_eq!(params["_meta"]["io.modelcontextprotocol/subscriptionId"], "L");
    assert_eq!((params["taskId"].clone(), params["status"].as_str()), (slow.clone(), Some("completed")));
    assert_eq!(text(&params["result"]), "slow done");
    assert!(h.server.poll_timeout().is_none_or(|t| t > h.now), "told once");

    // A status changed by a request is told right after it.
    let cancel = h.send(&json!({"jsonrpc":"2.0","id":9,"method":"tasks/cancel",
                                "params":{"taskId": ask, "_meta": meta}}));
    let note = cancel.iter().find(|m| m["method"] == "notifications/tasks").expect("told of the cancel");
    assert_eq!((note["params"]["taskId"].clone(), note["params"]["status"].as_str()), (ask, Some("cancelled")));
    assert!(cancel.iter().any(|m| m["id"] == 9 && m.get("result").is_some()), "{cancel:?}");

    // A listen that follows no task is told nothing.
    let mut h = Harness::new(4);
    let slow = h.call("slow", EXT)["result"]["taskId"].clone();
    let out = h.send(&listen(json!([])));
    assert!(out[0]["params"]["notifications"]["taskIds"] == json!([]), "{out:?}");
    let deferred = h.server.parts_mut().1.deferred.pop().unwrap();
    h.server.reply_tool(&deferred).unwrap().text("slow done").finish();
    h.server.handle_timeout(h.now);
    assert!(h.drain().is_empty());
    assert_eq!(h.get(&slow)["status"], "completed");
}

#[path = "tests_tasks_legacy.rs"]
mod legacy;
