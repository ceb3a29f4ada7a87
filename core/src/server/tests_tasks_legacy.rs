//! 2025-11-25's experimental tasks in a legacy session: created on request, followed, read with
//! `tasks/result`, listed, cancelled; a task that asks for input through `tasks/result`; a waiting
//! result whose task expires; the time to live a request asks for.

use serde_json::{Value as Json, json};

use super::*;

/// A 2025-11-25 session of `h`, its `initialize` result.
fn legacy_session(h: &mut Harness) -> Json {
    let init = h
        .send(&json!({"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25",
        "capabilities":{"elicitation":{}},"clientInfo":{"name":"c","version":"1"}}}));
    h.send(&json!({"jsonrpc":"2.0","method":"notifications/initialized"}));
    init[0]["result"].clone()
}

/// Sends a legacy request; everything that came back.
fn legacy(h: &mut Harness, id: u64, method: &str, params: Json) -> Vec<Json> {
    h.send(&json!({"jsonrpc":"2.0","id":id,"method":method,"params":params}))
}

fn answer(out: &[Json], id: u64) -> Json {
    out.iter().find(|m| m["id"] == id).cloned().unwrap_or_else(|| panic!("no answer {id}: {out:?}"))
}

#[test]
fn legacy_tasks_are_created_on_request_followed_and_read_with_tasks_result() {
    let mut h = Harness::new(4);
    let init = legacy_session(&mut h);
    let tasks = &init["capabilities"]["tasks"];
    assert!(tasks["list"].is_object() && tasks["cancel"].is_object(), "{init}");
    assert!(tasks["requests"]["tools"]["call"].is_object(), "{init}");
    let tools = answer(&legacy(&mut h, 1, "tools/list", json!({})), 1)["result"]["tools"].clone();
    let support = |name: &str| {
        tools.as_array().unwrap().iter().find(|t| t["name"] == name).unwrap()["execution"]["taskSupport"].clone()
    };
    assert_eq!((support("slow"), support("ask"), support("plain")), (json!("optional"), json!("required"), Json::Null));

    // Without `task`: a plain call, or -32601 for a tool that runs only as a task.
    assert_eq!(
        text(&answer(&legacy(&mut h, 2, "tools/call", json!({"name": "quick", "arguments": {}})), 2)["result"]),
        "at once"
    );
    let refused = answer(&legacy(&mut h, 3, "tools/call", json!({"name": "broken", "arguments": {}})), 3);
    assert_eq!(refused["error"]["code"], -32601, "{refused}");

    // With `task`: the task at once, in 2025-11-25's shape.
    let call = json!({"name": "slow", "arguments": {}, "task": {"ttl": 60000}});
    let created = answer(&legacy(&mut h, 4, "tools/call", call), 4)["result"].clone();
    let task = created["task"]["taskId"].clone();
    assert_eq!(created["task"]["status"], "working", "{created}");
    assert!(created["task"]["ttl"].is_u64() && created.get("resultType").is_none() && created.get("taskId").is_none());
    assert_eq!(answer(&legacy(&mut h, 5, "tasks/get", json!({"taskId": task})), 5)["result"]["status"], "working");

    // tasks/result waits for the task to end.
    assert!(legacy(&mut h, 6, "tasks/result", json!({"taskId": task})).is_empty(), "answered before the task ended");
    let deferred = h.server.parts_mut().1.deferred.pop().unwrap();
    h.server.reply_tool(&deferred).unwrap().text("slow done").finish();
    h.server.handle_timeout(h.now);
    let out = h.drain();
    let result = answer(&out, 6)["result"].clone();
    assert_eq!(text(&result), "slow done", "{out:?}");
    assert_eq!(result["_meta"]["io.modelcontextprotocol/related-task"]["taskId"], task, "{result}");
    let status = out.iter().find(|m| m["method"] == "notifications/tasks/status").expect("the status told");
    assert_eq!(
        (status["params"]["taskId"].clone(), status["params"]["status"].as_str()),
        (task.clone(), Some("completed"))
    );
    // Read again once it has ended: at once.
    assert_eq!(text(&answer(&legacy(&mut h, 7, "tasks/result", json!({"taskId": task})), 7)["result"]), "slow done");

    // A failed task's tasks/result is its request's error; tasks/get says why.
    let call = json!({"name": "broken", "arguments": {}, "task": {}});
    let broken = answer(&legacy(&mut h, 8, "tools/call", call), 8)["result"]["task"]["taskId"].clone();
    let out = legacy(&mut h, 9, "tasks/result", json!({"taskId": broken}));
    assert_eq!(answer(&out, 9)["error"]["code"], -32000, "{out:?}");
    let got = answer(&legacy(&mut h, 10, "tasks/get", json!({"taskId": broken})), 10)["result"].clone();
    assert_eq!((got["status"].as_str(), got["statusMessage"].as_str()), (Some("failed"), Some("it broke")), "{got}");

    // tasks/list: both, in 2025-11-25's shape.
    let listed = answer(&legacy(&mut h, 11, "tasks/list", json!({})), 11)["result"]["tasks"].clone();
    let ids: Vec<_> = listed.as_array().unwrap().iter().map(|t| t["taskId"].clone()).collect();
    assert!(ids.contains(&task) && ids.contains(&broken) && ids.len() == 2, "{listed}");
    let bad_cursor = answer(&legacy(&mut h, 12, "tasks/list", json!({"cursor": "x"})), 12);
    assert_eq!(bad_cursor["error"]["code"], -32602);

    // tasks/cancel: the task, cancelled; a task that has ended cannot be; a waiting tasks/result
    // gets the cancellation.
    let call = json!({"name": "slow", "arguments": {}, "task": {}});
    let running = answer(&legacy(&mut h, 13, "tools/call", call), 13)["result"]["task"]["taskId"].clone();
    assert!(legacy(&mut h, 14, "tasks/result", json!({"taskId": running})).is_empty());
    let out = legacy(&mut h, 15, "tasks/cancel", json!({"taskId": running}));
    assert_eq!(answer(&out, 15)["result"]["status"], "cancelled", "{out:?}");
    assert_eq!(answer(&out, 14)["error"]["code"], -32603, "{out:?}");
    assert_eq!(h.server.parts_mut().1.cancelled.len(), 1, "the handler was told");
    assert_eq!(answer(&legacy(&mut h, 16, "tasks/cancel", json!({"taskId": task})), 16)["error"]["code"], -32602);
    let unknown = answer(&legacy(&mut h, 17, "tasks/result", json!({"taskId": "nope"})), 17);
    assert_eq!(unknown["error"]["code"], -32602);
}

#[test]
fn a_legacy_task_asks_the_client_for_input_and_runs_again_with_the_answers() {
    let mut h = Harness::new(4);
    legacy_session(&mut h);
    let call = json!({"name": "ask", "arguments": {}, "task": {}});
    let created = legacy(&mut h, 1, "tools/call", call);
    let task = answer(&created, 1)["result"]["task"]["taskId"].clone();
    assert!(created.iter().all(|m| m["method"] != "elicitation/create"), "not asked with the task: {created:?}");
    // Once a tasks/get has read the status, the questions go out after its answer, each naming the
    // task (no tasks/result waits: on the session's own stream); tasks/result then waits.
    let read = legacy(&mut h, 2, "tasks/get", json!({"taskId": task}));
    let got = read[0]["result"].clone();
    assert_eq!((read[0]["id"].clone(), got["status"].clone()), (json!(2), json!("input_required")), "{read:?}");
    assert!(got.get("inputRequests").is_none() && got.get("requestState").is_none(), "2025-11-25's Task: {got}");
    let asks: Vec<&Json> = read.iter().filter(|m| m["method"] == "elicitation/create").collect();
    assert_eq!(asks.len(), 2, "{read:?}");
    let out = legacy(&mut h, 3, "tasks/result", json!({"taskId": task}));
    assert!(out.is_empty(), "asked once: {out:?}");
    assert!(legacy(&mut h, 22, "tasks/get", json!({"taskId": task})).len() == 1, "asked once");
    for ask in &asks {
        assert_eq!(ask["params"]["_meta"]["io.modelcontextprotocol/related-task"]["taskId"], task, "{ask}");
        assert_eq!((ask["params"]["message"].as_str(), ask["params"]["mode"].as_str()), (Some("Sure?"), Some("form")));
        assert!(ask["params"]["requestedSchema"].is_object(), "{ask}");
    }
    assert!(out.iter().all(|m| m["id"] != 3), "tasks/result waits for the task: {out:?}");
    let runs = h.server.parts_mut().1.runs;

    // The first answer: still waiting for the second.
    let reply = |id: &Json, ok: bool| json!({"jsonrpc":"2.0","id":id,"result":{"action":"accept","content":{"ok":ok}}});
    assert!(h.send(&reply(&asks[0]["id"], true)).is_empty());
    assert_eq!(h.server.parts_mut().1.runs, runs, "not run again before every answer is in");
    // The second: the task runs again with both and its state, and tasks/result gets the outcome.
    let out = h.send(&reply(&asks[1]["id"], false));
    assert_eq!(h.server.parts_mut().1.runs, runs + 1);
    let result = answer(&out, 3)["result"].clone();
    let text = text(&result);
    assert!(text.starts_with("a={") && text.contains("\"ok\":true") && text.contains("\"ok\":false"), "{text}");
    assert!(text.ends_with("state=Some(\"round1\")"), "{text}");
    assert_eq!(result["_meta"]["io.modelcontextprotocol/related-task"]["taskId"], task, "{result}");
    let statuses: Vec<_> = out
        .iter()
        .filter(|m| m["method"] == "notifications/tasks/status")
        .map(|m| String::from(m["params"]["status"].as_str().unwrap_or_default()))
        .collect();
    assert_eq!(statuses.last().map(String::as_str), Some("completed"), "{out:?}");

    // A refused question fails its task; tasks/result answers the failure.
    let call = json!({"name": "ask", "arguments": {}, "task": {}});
    let created = legacy(&mut h, 4, "tools/call", call);
    let refused = answer(&created, 4)["result"]["task"]["taskId"].clone();
    assert!(created.iter().all(|m| m["method"] != "elicitation/create"), "{created:?}");
    // tasks/result: the questions go out on its stream.
    let out = legacy(&mut h, 5, "tasks/result", json!({"taskId": refused}));
    let ask = out.iter().find(|m| m["method"] == "elicitation/create").expect("asked").clone();
    assert_eq!(ask["params"]["_meta"]["io.modelcontextprotocol/related-task"]["taskId"], refused, "{ask}");
    let out = h.send(&json!({"jsonrpc":"2.0","id":ask["id"],"error":{"code":-1,"message":"no"}}));
    let failed = answer(&out, 5);
    assert_eq!(failed["error"]["code"], -32603, "{out:?}");
    assert!(failed["error"]["message"].as_str().unwrap().contains("refused"), "{failed}");
    let cancelled =
        out.iter().find(|m| m["method"] == "notifications/cancelled").expect("the other question withdrawn");
    assert_ne!(cancelled["params"]["requestId"], ask["id"], "{out:?}");

    // A cancelled task withdraws its questions.
    let call = json!({"name": "ask", "arguments": {}, "task": {}});
    let dropped = answer(&legacy(&mut h, 6, "tools/call", call), 6)["result"]["task"]["taskId"].clone();
    assert_eq!(legacy(&mut h, 7, "tasks/result", json!({"taskId": dropped})).len(), 2, "asked");
    let out = legacy(&mut h, 8, "tasks/cancel", json!({"taskId": dropped}));
    assert_eq!(answer(&out, 8)["result"]["status"], "cancelled", "{out:?}");
    assert_eq!(out.iter().filter(|m| m["method"] == "notifications/cancelled").count(), 2, "{out:?}");
    assert_eq!(answer(&out, 7)["error"]["code"], -32603, "{out:?}");
}

#[test]
fn a_table_asking_through_tasks_result_only_asks_nothing_after_tasks_get() {
    let mut h = Harness::new(4);
    let slots = std::vec![TaskSlot::EMPTY; 4].leak();
    let data = std::vec![0u8; 2048 * 5].leak();
    let table = TaskTable::new(slots, data, random).with_wall_clock(h.now, 1_796_301_296_000);
    h.server.parts_mut().0.set_task_table(table.asking_through_tasks_result_only());
    legacy_session(&mut h);
    let call = json!({"name": "ask", "arguments": {}, "task": {}});
    let task = answer(&legacy(&mut h, 1, "tools/call", call), 1)["result"]["task"]["taskId"].clone();
    let read = legacy(&mut h, 2, "tasks/get", json!({"taskId": task}));
    assert_eq!(read.len(), 1, "the status alone: {read:?}");
    assert_eq!(read[0]["result"]["status"], "input_required", "{read:?}");
    // The questions go out on the stream of the tasks/result that follows.
    let out = legacy(&mut h, 3, "tasks/result", json!({"taskId": task}));
    let asks = out.iter().filter(|m| m["method"] == "elicitation/create").count();
    assert_eq!(asks, 2, "{out:?}");
}

#[test]
fn a_deferred_legacy_task_that_asks_later_asks_on_the_waiting_tasks_result() {
    let mut h = Harness::new(4);
    legacy_session(&mut h);
    let call = json!({"name": "slow", "arguments": {}, "task": {}});
    let task = answer(&legacy(&mut h, 1, "tools/call", call), 1)["result"]["task"]["taskId"].clone();
    assert!(legacy(&mut h, 2, "tasks/result", json!({"taskId": task})).is_empty());
    // The deferred call asks now: the question goes out on the waiting tasks/result's stream.
    let deferred = h.server.parts_mut().1.deferred.pop().unwrap();
    let ask = InputRequest::ElicitForm { message: "Go on?", requested_schema: FORM };
    let now = h.now;
    h.server.reply_input(now, &deferred, "slow").unwrap().request("go", ask).finish();
    h.server.handle_timeout(h.now);
    let out = h.drain();
    let status = out.iter().find(|m| m["method"] == "notifications/tasks/status").expect("the status told");
    assert_eq!(status["params"]["status"], "input_required", "{out:?}");
    let asked = out.iter().find(|m| m["method"] == "elicitation/create").expect("asked").clone();
    assert_eq!(asked["params"]["_meta"]["io.modelcontextprotocol/related-task"]["taskId"], task);
    // Answered: the call runs again (deferred again), and its answer completes the task.
    let reply = json!({"jsonrpc":"2.0","id":asked["id"],"result":{"action":"accept","content":{"ok":true}}});
    assert!(h.send(&reply).iter().all(|m| m["id"] != 2), "the task runs on");
    let deferred = h.server.parts_mut().1.deferred.pop().expect("run again");
    h.server.reply_tool(&deferred).unwrap().text("went on").finish();
    h.server.handle_timeout(h.now);
    let out = h.drain();
    assert_eq!(text(&answer(&out, 2)["result"]), "went on", "{out:?}");

    // More questions than requests to the client may wait (the engine's OUTBOUND, 2): none is
    // sent, the task fails saying why, and the waiting tasks/result gets the failure.
    let call = json!({"name": "slow", "arguments": {}, "task": {}});
    let task = answer(&legacy(&mut h, 3, "tools/call", call), 3)["result"]["task"]["taskId"].clone();
    assert!(legacy(&mut h, 4, "tasks/result", json!({"taskId": task})).is_empty());
    let deferred = h.server.parts_mut().1.deferred.pop().unwrap();
    let now = h.now;
    let reply = h.server.reply_input(now, &deferred, "slow").unwrap();
    reply.request("a", ask).request("b", ask).request("c", ask).finish();
    h.server.handle_timeout(h.now);
    let out = h.drain();
    assert!(out.iter().all(|m| m["method"] != "elicitation/create"), "{out:?}");
    let failed = answer(&out, 4);
    assert!(failed["error"]["message"].as_str().unwrap().contains("too many requests"), "{failed}");
    let got = answer(&legacy(&mut h, 5, "tasks/get", json!({"taskId": task})), 5)["result"].clone();
    assert_eq!(got["status"], "failed", "{got}");
}

#[test]
fn a_legacy_tasks_unanswered_question_fails_it_when_the_request_timeout_passes() {
    let mut h = Harness::new(4);
    legacy_session(&mut h);
    let call = json!({"name": "ask", "arguments": {}, "task": {}});
    let task = answer(&legacy(&mut h, 1, "tools/call", call), 1)["result"]["task"]["taskId"].clone();
    assert_eq!(legacy(&mut h, 2, "tasks/result", json!({"taskId": task})).len(), 2, "asked");
    h.now = h.now + Duration::from_secs(3600);
    h.server.handle_timeout(h.now);
    let out = h.drain();
    let failed = answer(&out, 2);
    assert_eq!(failed["error"]["code"], -32603, "{out:?}");
    assert!(failed["error"]["message"].as_str().unwrap().contains("in time"), "{failed}");
}

#[test]
fn a_waiting_legacy_tasks_result_is_told_when_its_task_expires() {
    let mut h = Harness::new(4);
    legacy_session(&mut h);
    let call = json!({"name": "slow", "arguments": {}, "task": {}});
    let task = answer(&legacy(&mut h, 1, "tools/call", call), 1)["result"]["task"]["taskId"].clone();
    assert!(legacy(&mut h, 2, "tasks/result", json!({"taskId": task})).is_empty());
    h.now = h.now + Duration::from_secs(3601);
    // Any request that reads the table finds the task expired; the waiting request is told.
    let out = legacy(&mut h, 3, "tasks/list", json!({}));
    assert_eq!(answer(&out, 3)["result"]["tasks"], json!([]), "{out:?}");
    let out = [out, {
        h.server.handle_timeout(h.now);
        h.drain()
    }]
    .concat();
    let told = answer(&out, 2);
    assert_eq!(told["error"]["code"], -32602, "{out:?}");
    assert!(told["error"]["message"].as_str().unwrap().contains("expired"), "{told}");
}

/// Nothing else need come: the task's expiry is a deadline of the engine, and the input's end
/// waits for it, no longer (fuzzing found an engine that never finished: nothing read the table).
#[test]
fn a_waiting_legacy_tasks_result_is_answered_at_its_tasks_expiry_with_nothing_else_coming() {
    let mut h = Harness::new(4);
    legacy_session(&mut h);
    let created = h.now;
    let call = json!({"name": "slow", "arguments": {}, "task": {"ttl": 5000}});
    let task = answer(&legacy(&mut h, 1, "tools/call", call), 1)["result"]["task"]["taskId"].clone();
    assert!(legacy(&mut h, 2, "tasks/result", json!({"taskId": task})).is_empty());
    h.server.handle_eof(h.now);
    assert!(h.drain().is_empty() && !h.server.is_finished(), "the request waits");
    let expiry = created + Duration::from_millis(5000);
    assert_eq!(h.server.poll_timeout(), Some(expiry));
    h.server.handle_timeout(Instant::from_millis(expiry.as_millis() - 1));
    assert!(h.drain().is_empty(), "not before the task expires");
    h.now = expiry;
    h.server.handle_timeout(expiry);
    let out = h.drain();
    let told = answer(&out, 2);
    assert_eq!(told["error"]["code"], -32602, "{out:?}");
    assert!(told["error"]["message"].as_str().unwrap().contains("expired"), "{told}");
    assert_eq!(h.server.poll_timeout(), None);
    // The tool's own answer, which the expired task no longer takes, is all that was left.
    assert!(!h.server.is_finished());
    let deferred = h.server.parts_mut().1.deferred.pop().unwrap();
    assert!(matches!(h.server.reply_tool(&deferred), Err(ReplyError::Cancelled)));
    assert!(h.drain().is_empty() && h.server.is_finished(), "nothing is left once the input ended");
}

#[test]
fn a_session_whose_engine_holds_a_live_task_is_not_suspended() {
    let mut h = Harness::new(4);
    legacy_session(&mut h);
    assert!(h.server.parts_mut().0.suspend().is_some(), "a quiet session suspends");
    let call = json!({"name": "quick", "arguments": {}, "task": {}});
    let task = answer(&legacy(&mut h, 1, "tools/call", call), 1)["result"]["task"]["taskId"].clone();
    assert_eq!(answer(&legacy(&mut h, 2, "tasks/get", json!({"taskId": task})), 2)["result"]["status"], "completed");
    // Ended, it is still kept (for tasks/result and tasks/get) until its time to live ends.
    assert!(h.server.parts_mut().0.suspend().is_none(), "the task lives in this engine");
    h.now = h.now + Duration::from_secs(3601);
    h.server.handle_timeout(h.now);
    h.drain();
    assert!(h.server.parts_mut().0.suspend().is_some(), "its task expired");
}

#[test]
fn a_legacy_task_is_kept_as_long_as_its_request_asked_never_longer_than_the_table_allows() {
    let mut h = Harness::new(4);
    legacy_session(&mut h);
    let ask = |h: &mut Harness, id: u64, task: Json| {
        let call = json!({"name": "quick", "arguments": {}, "task": task});
        answer(&legacy(h, id, "tools/call", call), id)["result"]["task"].clone()
    };
    let short = ask(&mut h, 1, json!({"ttl": 60000}));
    assert_eq!(short["ttl"], 60000, "{short}");
    // More than the table keeps (one hour): the table's; none asked: the table's.
    assert_eq!(ask(&mut h, 2, json!({"ttl": 86_400_000}))["ttl"], 3_600_000);
    let long = ask(&mut h, 3, json!({}));
    assert_eq!(long["ttl"], 3_600_000, "{long}");
    let got = answer(&legacy(&mut h, 4, "tasks/get", json!({"taskId": short["taskId"]})), 4)["result"].clone();
    assert_eq!(got["ttl"], 60000, "tasks/get tells the same: {got}");
    // A minute on, the short one is gone, the others are not.
    h.now = h.now + Duration::from_secs(61);
    let out = legacy(&mut h, 5, "tasks/get", json!({"taskId": short["taskId"]}));
    assert_eq!(answer(&out, 5)["error"]["code"], -32602, "{out:?}");
    assert_eq!(
        answer(&legacy(&mut h, 6, "tasks/get", json!({"taskId": long["taskId"]})), 6)["result"]["status"],
        "completed"
    );
}

#[test]
fn a_legacy_tasks_result_with_meta_of_its_own_names_the_task_there_too() {
    let mut h = Harness::new(4);
    legacy_session(&mut h);
    let call = json!({"name": "slow", "arguments": {}, "task": {}});
    let task = answer(&legacy(&mut h, 1, "tools/call", call), 1)["result"]["task"]["taskId"].clone();
    let deferred = h.server.parts_mut().1.deferred.pop().unwrap();
    h.server.reply_tool(&deferred).unwrap().text("with meta").meta(r#"{"example.com/trace":"t1"}"#).finish();
    h.server.handle_timeout(h.now);
    h.drain();
    let result = answer(&legacy(&mut h, 2, "tasks/result", json!({"taskId": task})), 2)["result"].clone();
    assert_eq!(result["_meta"]["io.modelcontextprotocol/related-task"]["taskId"], task, "{result}");
    assert_eq!((result["_meta"]["example.com/trace"].as_str(), text(&result)), (Some("t1"), "with meta"), "{result}");
}
