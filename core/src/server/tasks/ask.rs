//! A 2025-11-25 task that asks the client for input: its questions go out through `tasks/result`.
//!
//! A legacy task's handler answers "input required" as in any era
//! ([`ToolReply::input_required`](crate::server::ToolReply::input_required)): the task becomes
//! `input_required` (told with `notifications/tasks/status`), its questions kept in the table. Once
//! the client has seen that status, the engine sends each question as a request to the client
//! (`elicitation/create`, `sampling/createMessage`, `roots/list`) naming the task in
//! `params._meta` (`io.modelcontextprotocol/related-task`): on the stream of a `tasks/result`
//! waiting for the task (the spec has the client call it on seeing the status), or right after a
//! `tasks/get` that read the status, on the session's own stream (stdio, a Streamable HTTP
//! session's GET stream), for clients that only poll (unless the table asks
//! [only through `tasks/result`](TaskTable::asking_through_tasks_result_only)). Not with the
//! task's creation: a client could not yet tell whose question it is. Once every answer is in,
//! the task runs again with them, as a 2026-07-28 `tasks/update` runs it, and a waiting
//! `tasks/result` is answered when the task ends. A refused or unanswered
//! question (the engine's request timeout) fails the task; so does a round that cannot be sent
//! whole (the transmit window, the outbound-request table). One task's questions are out at a
//! time: another task that needs input is asked when its `tasks/result` comes after them.

use crate::endpoint::{Framing, OutboundKey, Outbox, Route};
use crate::json::{self, JsonWriter, Kind, Value};
use crate::jsonrpc::Id;
use crate::mcp::TaskStatus;
use crate::server::Handler;
use crate::server::dispatch::{Parts, plain_or_unescaped};
use crate::server::input::{MAX_INPUT_KEY_LEN, MAX_INPUT_REQUESTS};
use crate::time::Instant;

use super::table::MAX_DEPTH;
use super::{TASK_ID_LEN, TaskTable};

/// The questions of one task that are out with the client.
pub(crate) struct Asking {
    slot: usize,
    task: [u8; TASK_ID_LEN],
    /// Each question's key (its JSON text), the request that asks it, and whether it was answered.
    keys: heapless::Vec<(heapless::Vec<u8, MAX_INPUT_KEY_LEN>, OutboundKey, bool), MAX_INPUT_REQUESTS>,
}

/// Sends the questions of task `slot`, if it is a legacy task waiting for input and no task's
/// questions are out, on `route` (a waiting `tasks/result`'s stream; the session's own stream when
/// that is a bare HTTP body), each awaited until `deadline`. A round that cannot be sent whole
/// fails the task (the questions sent are cancelled).
pub(crate) fn ask<const OUTBOUND: usize>(
    out: &mut Outbox<'_, OUTBOUND>,
    table: &mut TaskTable<'_>,
    slot: usize,
    route: Route,
    deadline: Option<Instant>,
) {
    if table.asking.is_some() {
        return;
    }
    let Some(task) = table.slot(slot).copied() else { return };
    if !task.is_legacy() || task.status() != TaskStatus::InputRequired {
        return;
    }
    let route = if route.framing == Framing::Body { out.notify_route } else { route };
    let mut asking = Asking { slot, task: [0; TASK_ID_LEN], keys: heapless::Vec::new() };
    asking.task.copy_from_slice(task.id().as_bytes().get(..TASK_ID_LEN).unwrap_or(&[0; TASK_ID_LEN]));
    let failure = {
        let [_, _, payload, _] = table.texts(slot);
        match json::parse(payload, MAX_DEPTH) {
            Ok(requests) if requests.members().count() > out.outbound.free() => {
                Some("too many requests to the client await answers")
            }
            Ok(requests) => {
                let id = asking.task;
                send_all(out, &mut asking, requests, &id, route, deadline)
            }
            Err(_) => Some("the task's input requests are not readable"),
        }
    };
    match failure {
        Some(reason) => {
            for (_, key, _) in &asking.keys {
                out.cancel(*key);
            }
            let now = table.last_now;
            table.fail(slot, now, reason);
        }
        None => table.asking = Some(asking),
    }
}

/// Sends each of `requests` (`{"key": {"method": …, "params": {…}}, …}`); the reason if one could
/// not be.
fn send_all<const OUTBOUND: usize>(
    out: &mut Outbox<'_, OUTBOUND>,
    asking: &mut Asking,
    requests: Value<'_>,
    task: &[u8],
    route: Route,
    deadline: Option<Instant>,
) -> Option<&'static str> {
    for (key, request) in requests.members() {
        let Ok(raw) = heapless::Vec::from_slice(key.raw()) else { return Some("an input request key is too long") };
        let mut name = [0u8; 32];
        let method = request.get("method").and_then(|m| m.as_str());
        let Some(method) = method.and_then(|m| plain_or_unescaped(m, &mut name)) else {
            return Some("the task's input requests are not readable");
        };
        let params = request.get("params").filter(|p| p.kind() == Kind::Object);
        let write = |w: &mut JsonWriter<'_>| super::wire::write_naming_task(w, params, task);
        let Ok(sent) = out.request(route, method, Some(&write), deadline) else {
            return Some("the task's input requests do not fit the transmit window");
        };
        if asking.keys.push((raw, sent, false)).is_err() {
            out.cancel(sent);
            return Some("too many input requests in one answer");
        }
    }
    None
}

/// Forgets the questions out for task `slot`, cancelling those not answered (the task ended).
pub(crate) fn forget<const OUTBOUND: usize>(out: &mut Outbox<'_, OUTBOUND>, table: &mut TaskTable<'_>, slot: usize) {
    if let Some(asking) = table.asking.take_if(|a| a.slot == slot) {
        for (_, key, answered) in &asking.keys {
            if !answered {
                out.cancel(*key);
            }
        }
    }
}

/// A question out with the client timed out: its task fails. `false` if `key` is no task's
/// question.
pub(crate) fn timed_out<const OUTBOUND: usize>(
    out: &mut Outbox<'_, OUTBOUND>,
    table: &mut TaskTable<'_>,
    key: OutboundKey,
    now: Instant,
) -> bool {
    let Some(slot) = table.asking.as_ref().filter(|a| a.keys.iter().any(|(_, k, _)| *k == key)).map(|a| a.slot) else {
        return false;
    };
    let same = is_same_task(table, slot);
    forget(out, table, slot);
    if same {
        table.fail(slot, now, "the client did not answer the task's input request in time");
    }
    true
}

/// The input ended: nobody is left to answer the questions out, so their task fails.
pub(crate) fn input_ended<const OUTBOUND: usize>(
    out: &mut Outbox<'_, OUTBOUND>,
    table: &mut TaskTable<'_>,
    now: Instant,
) {
    let Some(slot) = table.asking.as_ref().map(|a| a.slot) else { return };
    let same = is_same_task(table, slot);
    forget(out, table, slot);
    if same {
        table.fail(slot, now, "the input ended while the task waited for the client's input");
    }
}

/// Whether the task asked about still holds its slot (it may have expired and the slot been reused).
fn is_same_task(table: &mut TaskTable<'_>, slot: usize) -> bool {
    let task = table.asking.as_ref().map(|a| a.task);
    task.is_some_and(|task| table.slot(slot).is_some_and(|t| t.id().as_bytes() == task.as_slice()))
}

impl<'s, 'a, H: Handler, const OUTBOUND: usize> Parts<'s, 'a, H, OUTBOUND> {
    /// Sends the questions of input-required legacy task `slot` on `route` (see the
    /// [module docs](self)).
    pub(crate) fn ask_task_input(&mut self, slot: usize, route: Route) {
        let deadline = self.config.request_timeout.map(|t| self.now + t);
        if let Some(table) = self.tasks.as_mut() {
            ask(self.out, table, slot, route, deadline);
        }
    }

    /// Takes the client's answer to a task's question, if it is one; once every answer is in, the
    /// task runs again with them. A refusal fails the task. `false` if `id` is no task's question.
    pub(crate) fn task_input_answer(&mut self, id: Option<Id<'_>>, result: Result<Value<'_>, ()>) -> bool {
        let Some(Id::Number(number)) = id else { return false };
        let now = self.now;
        let Some(table) = self.tasks.as_mut() else { return false };
        let Some(asking) = table.asking.as_mut() else { return false };
        let Some(index) = asking.keys.iter().position(|(_, key, answered)| key.id() == number && !answered) else {
            return false;
        };
        let _ = self.out.outbound.take(Id::Number(number));
        asking.keys[index].2 = true;
        let slot = asking.slot;
        let key = asking.keys[index].0.clone();
        if !is_same_task(table, slot) {
            forget(self.out, table, slot);
            return true;
        }
        let Ok(answer) = result.map(|a| Some(a).filter(|a| a.kind() == Kind::Object)) else {
            forget(self.out, table, slot);
            table.fail(slot, now, "the client refused the task's input request");
            return true;
        };
        let Some(answer) = answer else {
            forget(self.out, table, slot);
            table.fail(slot, now, "the client's answer to the task's input request is not an object");
            return true;
        };
        // The answer under its key, as `tasks/update` gives answers.
        let Some(mut scratch) = table.take_scratch() else { return true };
        let mut w = JsonWriter::new(&mut scratch);
        w.raw(b"{\"");
        w.raw(&key);
        w.raw(b"\":");
        w.value(answer);
        w.byte(b'}');
        let len = (!w.is_overflowed()).then(|| w.len());
        let all = match len.and_then(|len| json::parse(scratch.get(..len).unwrap_or_default(), MAX_DEPTH).ok()) {
            Some(responses) => table.answer(slot, now, responses),
            None => {
                table.fail(slot, now, "the client's answer does not fit the task table");
                false
            }
        };
        table.put_scratch(scratch);
        let done = table.slot(slot).is_none_or(|t| t.status() != TaskStatus::InputRequired);
        if done {
            forget(self.out, table, slot);
        }
        if all {
            self.rerun_task(slot);
        }
        true
    }
}
