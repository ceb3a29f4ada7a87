//! What a task's share of the table's byte area holds once its handler has answered (see
//! [`TaskTable`]'s layout): the outcome kept ([`TaskTable::capture`], [`TaskTable::fail`]), read
//! back ([`TaskTable::texts`]), and the answers to its questions taken in ([`TaskTable::answer`]).

use super::table::MAX_DEPTH;
use super::{TaskSlot, TaskTable};
use crate::json::{self, JsonStr, JsonWriter, Kind, Value};
use crate::mcp::TaskStatus;
use crate::time::Instant;

impl TaskTable<'_> {
    /// Keeps what the task's handler answered: `message` is the whole JSON-RPC response it wrote
    /// (a `result` or an `error`). A task that has ended keeps its outcome.
    pub(crate) fn capture(&mut self, i: usize, now: Instant, message: &[u8]) {
        if self.slot(i).is_none_or(|s| s.status.is_terminal()) {
            return;
        }
        let Ok(response) = json::parse(message, MAX_DEPTH) else {
            return self.fail(i, now, "the task's answer is not JSON");
        };
        let (status, payload, state) = match (response.get("result"), response.get("error")) {
            (Some(result), _) => {
                let input =
                    result.get("resultType").and_then(|t| t.as_str()).is_some_and(|t| t.eq_str("input_required"));
                // 2025-11-25: a tool result with `isError: true` fails its task (2026-07-28
                // completes it: the result is the outcome either way).
                let legacy = self.slot(i).is_some_and(|s| s.legacy);
                let is_error = legacy && result.get("isError").and_then(|e| e.as_bool()) == Some(true);
                match (input, result.get("inputRequests")) {
                    (true, Some(requests)) => (TaskStatus::InputRequired, requests, result.get("requestState")),
                    _ if is_error => (TaskStatus::Failed, result, None),
                    _ => (TaskStatus::Completed, result, None),
                }
            }
            (None, Some(error)) => (TaskStatus::Failed, error, None),
            (None, None) => return self.fail(i, now, "the task's answer is not a response"),
        };
        let Some(request) = self.slot(i).map(|s| s.request) else { return };
        let area = self.area(i);
        let (_, rest) = area.split_at_mut(request.min(area.len()));
        let mut w = JsonWriter::new(rest);
        if let Some(state) = state {
            w.key("requestState");
            w.value(state);
            w.byte(b',');
        }
        let state_len = w.len();
        w.value(payload);
        let payload_len = w.len() - state_len;
        w.raw(b"{}");
        if w.is_overflowed() {
            return self.fail(i, now, "the task's answer does not fit its slot of the task table");
        }
        let error = response.get("result").is_none();
        if let Some(slot) = self.slots.get().get_mut(i) {
            slot.state_at = now;
            slot.state = state_len;
            slot.payload = payload_len;
            slot.answers = 2;
            slot.error = error;
        }
        self.set_status(i, now, status);
    }

    /// Ends task `i` as failed with an internal error saying `message`.
    pub(crate) fn fail(&mut self, i: usize, now: Instant, message: &str) {
        let Some(request) = self.slot(i).map(|s| s.request) else { return };
        let area = self.area(i);
        let (_, rest) = area.split_at_mut(request.min(area.len()));
        let mut w = JsonWriter::new(rest);
        w.raw(b"{\"code\":-32603,\"message\":");
        w.string(message);
        w.byte(b'}');
        let len = if w.is_overflowed() { 0 } else { w.len() };
        if let Some(slot) = self.slots.get().get_mut(i) {
            slot.state = 0;
            slot.payload = len;
            slot.answers = 0;
            slot.error = true;
        }
        self.set_status(i, now, TaskStatus::Failed);
    }

    /// The request, state, payload and answers texts of task `i`.
    pub(crate) fn texts(&mut self, i: usize) -> [&[u8]; 4] {
        let Some(&TaskSlot { request, state, payload, answers, .. }) = self.slot(i) else { return [&[]; 4] };
        let area: &[u8] = self.area(i);
        let mut at = 0;
        [request, state, payload, answers].map(|len| {
            let text = area.get(at..at + len).unwrap_or_default();
            at += len;
            text
        })
    }

    /// Takes the answers in `responses` that the input-required task `i` still waits for (keys of its
    /// `inputRequests` not answered yet, object values); others are ignored. Returns whether every
    /// request is answered now (the task is then working again and due to run again).
    pub(crate) fn answer(&mut self, i: usize, now: Instant, responses: Value<'_>) -> bool {
        if self.slot(i).is_none_or(|s| s.status != TaskStatus::InputRequired) {
            return false;
        }
        let Some(&TaskSlot { request, state, payload, answers, .. }) = self.slot(i) else { return false };
        let start = request + state + payload;
        let area = self.area(i);
        let (head, tail) = area.split_at_mut(start.min(area.len()));
        let requests = head.get(request + state..).and_then(|p| json::parse(p, MAX_DEPTH).ok());
        let Some(requests) = requests else { return false };
        // The answers so far, as an object text `{…}` at the start of `tail`; appended to in place,
        // each under its request's key as the request wrote it.
        let mut len = answers;
        for (key, value) in responses.members() {
            let answered = json::parse(tail.get(..len).unwrap_or_default(), MAX_DEPTH)
                .ok()
                .is_some_and(|a| a.members().any(|(k, _)| same_text(k, key)));
            let asked = requests.members().map(|(k, _)| k).find(|&k| same_text(k, key));
            let Some(asked) = asked.filter(|_| !answered && value.kind() == Kind::Object) else { continue };
            let Some(rest) = tail.get_mut(len - 1..) else { break };
            let mut w = JsonWriter::new(rest);
            if len > 2 {
                w.byte(b',');
            }
            w.json_str(asked);
            w.byte(b':');
            w.value(value);
            w.byte(b'}');
            if w.is_overflowed() {
                // Does not fit: the answer is dropped, the `}` it overwrote put back.
                if let Some(end) = tail.get_mut(len - 1) {
                    *end = b'}';
                }
                break;
            }
            len = len - 1 + w.len();
        }
        let all = json::parse(tail.get(..len).unwrap_or_default(), MAX_DEPTH)
            .ok()
            .is_some_and(|a| requests.members().all(|(k, _)| a.members().any(|(ak, _)| same_text(ak, k))));
        if let Some(slot) = self.slots.get().get_mut(i) {
            slot.answers = len;
        }
        if all {
            self.set_status(i, now, TaskStatus::Working);
        }
        all
    }
}

/// Whether two JSON strings hold the same text (an escape compares as what it stands for: a key
/// or an id may be written either way).
pub(super) fn same_text(a: JsonStr<'_>, b: JsonStr<'_>) -> bool {
    a.raw() == b.raw() || ((a.has_escape() || b.has_escape()) && a.chars().eq(b.chars()))
}
