//! How a task is written: 2026-07-28's task (as created, or detailed with what its status holds)
//! and 2025-11-25's `Task`.

use super::outcome::same_text;
use super::table::MAX_DEPTH;
use super::{TaskSlot, TaskTable};
use crate::json::{self, JsonWriter, Kind, Value};
use crate::mcp::TaskStatus;

/// How a task is written ([`TaskTable::write_task`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TaskWire {
    /// 2026-07-28, what a `CreateTaskResult` holds.
    Created,
    /// 2026-07-28, with what its status holds (`tasks/get`, `notifications/tasks`).
    Detailed,
    /// 2025-11-25's `Task`.
    Legacy,
}

/// Writes `object` (a result, or a question's params; none: `{}`) with the task `task` named in
/// its `_meta` (`io.modelcontextprotocol/related-task`), before the `_meta` members of its own.
pub(crate) fn write_naming_task(w: &mut JsonWriter<'_>, object: Option<Value<'_>>, task: &[u8]) {
    w.raw(b"{\"_meta\":{\"io.modelcontextprotocol/related-task\":{\"taskId\":\"");
    w.raw(task);
    w.raw(b"\"}");
    let meta = object.and_then(|o| o.get("_meta")).filter(|m| m.kind() == Kind::Object);
    let own = |(key, _): &(json::JsonStr<'_>, Value<'_>)| !key.eq_str("io.modelcontextprotocol/related-task");
    for (key, value) in meta.iter().flat_map(|m| m.members()).filter(own) {
        w.byte(b',');
        w.json_str(key);
        w.byte(b':');
        w.value(value);
    }
    w.byte(b'}');
    for (key, value) in object.iter().flat_map(|o| o.members()).filter(|(k, _)| k.raw() != b"_meta") {
        w.byte(b',');
        w.json_str(key);
        w.byte(b':');
        w.value(value);
    }
    w.byte(b'}');
}

impl TaskTable<'_> {
    /// Writes the task's members into an open object, comma-separated, without a comma before or
    /// after, as `wire` says: `taskId`, `status`, times, `ttlMs` and `pollIntervalMs` (2026-07-28),
    /// with [`TaskWire::Detailed`] also what its status holds (`statusMessage` and `error`,
    /// `result`, or the `inputRequests` not answered yet); [`TaskWire::Legacy`]: 2025-11-25's
    /// `Task` (`ttl`, `pollInterval`, a failed task's `statusMessage`).
    pub(crate) fn write_task(&mut self, i: usize, w: &mut JsonWriter<'_>, wire: TaskWire) {
        let Some(slot) = self.slot(i).copied() else { return };
        let legacy = wire == TaskWire::Legacy;
        let mut stamp = [0u8; 24];
        w.raw(b"\"taskId\":\"");
        w.raw(&slot.id);
        w.raw(b"\",\"status\":\"");
        w.raw(slot.status.as_str().as_bytes());
        w.byte(b'"');
        if legacy && slot.status == TaskStatus::Failed {
            self.write_legacy_status_message(i, &slot, w);
        }
        w.raw(b",\"createdAt\":\"");
        crate::mcp::task::write_timestamp(slot.created_unix, &mut stamp);
        w.raw(&stamp);
        w.raw(b"\",\"lastUpdatedAt\":\"");
        crate::mcp::task::write_timestamp(slot.updated_unix, &mut stamp);
        w.raw(&stamp);
        w.raw(if legacy { b"\",\"ttl\":" } else { b"\",\"ttlMs\":" });
        w.u64(slot.ttl_ms);
        w.member(if legacy { "pollInterval" } else { "pollIntervalMs" });
        w.u64(self.poll_interval.as_millis().max(1));
        if wire == TaskWire::Detailed {
            self.write_outcome_members(i, slot.status, w);
        }
    }

    /// A failed 2025-11-25 task's `statusMessage`: its error's message, or why it failed.
    fn write_legacy_status_message(&mut self, i: usize, slot: &TaskSlot, w: &mut JsonWriter<'_>) {
        let [_, _, payload, _] = self.texts(i);
        let outcome = json::parse(payload, MAX_DEPTH).ok();
        let message = match slot.error {
            true => outcome.and_then(|e| e.get("message")).filter(|m| m.kind() == Kind::String),
            false => None,
        };
        w.member("statusMessage");
        match message {
            Some(message) => w.raw(message.as_bytes()),
            None => w.string(if slot.error { "task failed" } else { "the tool reported an error" }),
        }
    }

    /// What a 2026-07-28 task's `status` holds: `result`, `statusMessage` and `error`, or the
    /// `inputRequests` not answered yet.
    fn write_outcome_members(&mut self, i: usize, status: TaskStatus, w: &mut JsonWriter<'_>) {
        let [_, _, payload, answers] = self.texts(i);
        match status {
            TaskStatus::Completed => {
                w.member("result");
                w.raw(payload);
            }
            TaskStatus::Failed => {
                let error = json::parse(payload, MAX_DEPTH).ok();
                if let Some(message) = error.and_then(|e| e.get("message")).filter(|m| m.kind() == Kind::String) {
                    w.member("statusMessage");
                    w.raw(message.as_bytes());
                }
                w.member("error");
                w.raw(if payload.is_empty() { b"{\"code\":-32603,\"message\":\"task failed\"}" } else { payload });
            }
            TaskStatus::InputRequired => {
                let answered = json::parse(answers, MAX_DEPTH).ok();
                w.raw(b",\"inputRequests\":{");
                let mut first = true;
                for (key, request) in json::parse(payload, MAX_DEPTH).ok().iter().flat_map(|p| p.members()) {
                    if answered.is_some_and(|a| a.members().any(|(k, _)| same_text(k, key))) {
                        continue;
                    }
                    w.comma(&mut first);
                    w.json_str(key);
                    w.byte(b':');
                    w.raw(request.as_bytes());
                }
                w.byte(b'}');
            }
            TaskStatus::Working | TaskStatus::Cancelled => {}
        }
    }
}
