//! The engine's side of tasks: `tasks/get`, `tasks/update`, `tasks/cancel`, the `-32021` gate, a
//! reply's link to the table, and running a task again once its input is in.

use crate::json::{self, JsonWriter, Kind, Spans};
use crate::jsonrpc::{ErrorMessage, Id, WriteId, code, write_error_head};
use crate::mcp::TaskSupport;
use crate::server::dispatch::Parts;
use crate::server::handler::RequestContext;
use crate::server::params::Params;
use crate::server::reply::{DeferSlots, InFlight, Outgoing, ReplyId, ReplyKind};
use crate::server::tasks::{TASK_ROUTE, TaskScope, TaskTable, TaskWire};
use crate::server::{Engine, Event, Handler};
use crate::time::Instant;
use crate::version::Era;

impl<'a, const IN_FLIGHT: usize, const OUTBOUND: usize> Engine<'a, IN_FLIGHT, OUTBOUND> {
    /// Gives the engine a task table: it declares the tasks extension and serves `tasks/*` (see
    /// [`tasks`](crate::server::tasks)).
    pub fn set_task_table(&mut self, table: TaskTable<'a>) {
        self.tasks = Some(table);
    }

    /// The task table, if set.
    pub fn task_table(&mut self) -> Option<&mut TaskTable<'a>> {
        self.tasks.as_mut()
    }
}

impl<'s, 'a, H: Handler, const OUTBOUND: usize> Parts<'s, 'a, H, OUTBOUND> {
    /// The time a `requestState` is opened as of: when the task being run again kept it (the state
    /// never left the server, so a task answered late is not refused as expired); now otherwise.
    pub(crate) fn task_state_time(&mut self) -> Instant {
        let now = self.now;
        let Some(table) = self.tasks.as_mut().filter(|_| self.route == TASK_ROUTE) else { return now };
        table.running.and_then(|slot| table.slot(slot)).map_or(now, |slot| slot.state_at())
    }

    /// Whether a `tools/call` may run as a task: to an engine with a task table, a 2026-07-28 request
    /// that declared the extension or a 2025-11-25 one that asked for a task (`params.task`); or a
    /// task run again.
    pub(crate) fn may_be_task(&self, context: &RequestContext<'_>, params: &Params<'_>) -> bool {
        self.route == TASK_ROUTE
            || (self.tasks.is_some() && context.version.served_era() == Era::Modern && context.client.tasks)
            || (self.tasks.is_some() && asks_for_task(context, params))
    }

    /// [`Parts::reply_parts`] for `tools/call`, with what its reply may do with tasks: write a
    /// task's answer (a task run again), or become a task ([`Parts::may_be_task`]) unless the tool
    /// `support`s none.
    pub(crate) fn tool_reply_parts<'x>(
        &'x mut self,
        id: Id<'x>,
        params: &Params<'x>,
        context: &RequestContext<'_>,
        support: TaskSupport,
    ) -> (&'x mut H, Outgoing<'x>, Option<TaskScope<'x>>) {
        let may_be_task = support != TaskSupport::Forbidden && self.may_be_task(context, params);
        let legacy = asks_for_task(context, params);
        let now = self.now;
        let Parts { handler, server_info, out, slots, next_generation, route, input, tasks, .. } = self;
        let window = out.window_len();
        let slot = out.tx.open(*route, window);
        let input_signal = &mut input.signal;
        let defer_slots = Some(DeferSlots { slots, next_generation, input_signal });
        let reply = Outgoing::open(slot, ReplyId::Borrowed(id), context.version, *server_info, defer_slots);
        let task = match tasks.as_mut().filter(|_| may_be_task) {
            Some(table) if *route == TASK_ROUTE => match id {
                Id::String(task) => table.find_any(now, task.raw()).map(|slot| TaskScope::existing(table, now, slot)),
                Id::Number(_) => None,
            },
            Some(table) => Some(TaskScope { table, now, slot: None, fresh: true, params: params.value(), legacy }),
            None => None,
        };
        (handler, reply, task)
    }

    /// `tasks/get`, `tasks/update` and `tasks/cancel` (2026-07-28, with a task table), and
    /// 2025-11-25's `tasks/get`, `tasks/result`, `tasks/list` and `tasks/cancel`.
    pub(crate) fn tasks_request(&mut self, id: Id<'_>, method: &str, params: &Params<'_>, context: RequestContext<'_>) {
        let legacy = context.version.served_era() == Era::Legacy;
        if !legacy && !context.client.tasks {
            return self.reject_without_tasks(id, context.version);
        }
        if legacy && method == "tasks/list" {
            return self.list_legacy_tasks(id, params, context.version);
        }
        let task = params.get("taskId").and_then(|t| t.as_str());
        let Some(task) = task else {
            return self.reject(Some(&id), code::INVALID_PARAMS, format_args!("\"taskId\" must be a string"));
        };
        let now = self.now;
        // The id as text: written with escapes it names the same task; longer than an id, none.
        let mut text = [0u8; super::TASK_ID_LEN];
        let task = task.unescape_into(&mut text).map(str::as_bytes);
        let found = task.and_then(|task| self.tasks.as_mut().and_then(|table| table.find(now, task)));
        let (Some(slot), Some(task)) = (found, task) else {
            return self.reject_with_data(
                Some(&id),
                code::INVALID_PARAMS,
                ErrorMessage::Whole(format_args!("Failed to retrieve task: Task not found")),
                None,
            );
        };
        match (legacy, method) {
            (_, "tasks/get") => {
                let wire = if legacy { TaskWire::Legacy } else { TaskWire::Detailed };
                {
                    let (mut out, tasks) = self.open_beside_tasks(id, context.version);
                    if let Some(table) = tasks {
                        table.write_task(slot, out.writer(), wire);
                        out.members_written();
                    }
                    out.finish(None);
                }
                if legacy && self.tasks.as_ref().is_some_and(|tasks| tasks.asks_after_get) {
                    // A 2025-11-25 task waiting for input asks now, on the session's own stream.
                    self.ask_task_input(slot, self.out.notify_route);
                }
            }
            (false, "tasks/update") => {
                let responses = params.get("inputResponses").filter(|r| r.kind() == Kind::Object);
                let Some(responses) = responses else {
                    return self.reject(
                        Some(&id),
                        code::INVALID_PARAMS,
                        format_args!("\"inputResponses\" must be an object"),
                    );
                };
                if self.tasks.as_mut().is_some_and(|table| table.answer(slot, now, responses)) {
                    // Run before the acknowledgement is written: the room checked for this request's
                    // answer is still free (the task's answer is kept, not sent).
                    self.rerun_task(slot);
                }
                self.empty_result(id, context.version);
            }
            (true, "tasks/result") => self.legacy_task_result(id, slot, context),
            (_, "tasks/cancel") => {
                let cancelled = self.tasks.as_mut().is_some_and(|table| table.cancel(slot, now));
                if let Some(table) = self.tasks.as_mut() {
                    super::forget_task_input(self.out, table, slot);
                }
                if cancelled {
                    self.cancel_task_request(task);
                } else if legacy {
                    // 2025-11-25: a task that has ended cannot be cancelled.
                    return self.reject(
                        Some(&id),
                        code::INVALID_PARAMS,
                        format_args!("Cannot cancel task: already in terminal status"),
                    );
                }
                // 2025-11-25 answers with the task; 2026-07-28 acknowledges.
                let (mut out, tasks) = self.open_beside_tasks(id, context.version);
                if let Some(table) = tasks.filter(|_| legacy) {
                    table.write_task(slot, out.writer(), TaskWire::Legacy);
                    out.members_written();
                }
                out.finish(None);
            }
            _ => self.reject(Some(&id), code::METHOD_NOT_FOUND, format_args!("{method}")),
        }
    }

    /// Marks the deferred request that runs task `task` cancelled and tells the handler.
    fn cancel_task_request(&mut self, task: &[u8]) {
        let Ok(task) = core::str::from_utf8(task) else { return };
        for (slot, entry) in self.slots.iter_mut().enumerate() {
            let Some(entry) = InFlight::live_mut(entry) else { continue };
            let ours = entry.route == TASK_ROUTE && !entry.cancelled && entry.kind == ReplyKind::Tool;
            if !ours || !matches!(&entry.id, crate::jsonrpc::OwnedId::String(id) if id.as_str() == task) {
                continue;
            }
            let request = entry.cancel(slot);
            self.handler.on_event(self.now, Event::Cancelled { request });
            return;
        }
    }

    /// An error written while a task runs again: the task's outcome, not a message on the wire.
    #[inline(never)] // Off the request path's frame.
    pub(crate) fn capture_rejection(
        &mut self,
        id: Option<&dyn WriteId>,
        code: i32,
        message: ErrorMessage<'_>,
        data: Option<&dyn Fn(&mut JsonWriter<'_>)>,
    ) {
        let now = self.now;
        let Some(table) = self.tasks.as_mut() else { return };
        let Some(slot) = table.running else { return };
        let mut buf = [0u8; 512];
        let mut w = JsonWriter::new(&mut buf);
        write_error_head(&mut w, id, code, message);
        if let Some(data) = data {
            w.member("data");
            data(&mut w);
        }
        w.raw(b"}}");
        if w.is_overflowed() {
            table.fail(slot, now, "the task's request was refused");
        } else {
            table.capture(slot, now, w.written());
        }
    }

    /// Runs task `slot` again, its input all in ([`TaskTable::answer`]): its request with the
    /// answers as `inputResponses`, answered into the table.
    #[inline(never)] // Off the request path's frame.
    pub(super) fn rerun_task(&mut self, slot: usize) {
        let mut own_spans = Spans::default();
        let spans = &mut own_spans;
        let Some(table) = self.tasks.as_mut() else { return };
        // The request's id is the task's: its answer is found by it.
        let Some(task) = super::TaskSink::owned_id(table, slot) else { return };
        let Some(mut scratch) = table.take_scratch() else { return };
        let [request, state, _, answers] = table.texts(slot);
        let mut w = JsonWriter::new(&mut scratch);
        crate::jsonrpc::write_request_head(&mut w, &task);
        w.raw(b"\"tools/call\",\"params\":{");
        w.raw(request);
        w.raw(state);
        w.key("inputResponses");
        w.raw(if answers.is_empty() { b"{}" } else { answers });
        w.raw(b"}}");
        let len = if w.is_overflowed() { None } else { Some(w.len()) };
        let now = self.now;
        let message = len.and_then(|len| scratch.get(..len));
        match message.and_then(|m| json::parse_spanned(m, self.config.limits.max_depth, spans).ok()) {
            Some(value) => {
                table.running = Some(slot);
                let route = core::mem::replace(&mut self.route, TASK_ROUTE);
                self.handle_message(value, false, spans);
                self.route = route;
                if let Some(table) = self.tasks.as_mut() {
                    table.running = None;
                }
            }
            None => table.fail(slot, now, "the task's request does not fit the task table"),
        }
        if let Some(table) = self.tasks.as_mut() {
            table.put_scratch(scratch);
        }
    }
}

/// Whether `params` of a 2025-11-25 request ask for a task (`task`, an object: task augmentation).
pub(crate) fn asks_for_task(context: &RequestContext<'_>, params: &Params<'_>) -> bool {
    context.version == crate::version::ProtocolVersion::V2025_11_25
        && context.version.served_era() == Era::Legacy
        && params.get("task").is_some_and(|t| t.kind() == Kind::Object)
}
