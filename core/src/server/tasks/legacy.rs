//! 2025-11-25's experimental tasks in a legacy session: a `tools/call` with `params.task` becomes
//! a task (`{"task": {…}}`), followed with `tasks/get`, its outcome read with `tasks/result` (which
//! waits for the task to end), listed with `tasks/list`, cancelled with `tasks/cancel`; each new
//! status is told with `notifications/tasks/status`.

use crate::json::{self, JsonWriter};
use crate::jsonrpc::{self, ErrorMessage, Id, OwnedId, WriteId, code};
use crate::mcp::TaskStatus;
use crate::num::Decimal;
use crate::server::dispatch::Parts;
use crate::server::handler::RequestContext;
use crate::server::params::Params;
use crate::server::reply::{InFlight, Notes, ReplyKind};
use crate::server::tasks::{TASK_ID_LEN, TaskTable, TaskWire};
use crate::server::{Handler, Session};
use crate::version::ProtocolVersion;

/// Writes the whole answer to a `tasks/result` for task `slot`, which has ended: what its request
/// would have been answered with (a result, with the task named in `_meta`
/// `io.modelcontextprotocol/related-task`, or the error), or an error for a cancelled task.
pub(crate) fn write_outcome(w: &mut JsonWriter<'_>, id: &dyn WriteId, table: &mut TaskTable<'_>, slot: usize) {
    let Some(task) = table.slot(slot).copied() else { return };
    let [_, _, payload, _] = table.texts(slot);
    if task.status() == TaskStatus::Cancelled {
        jsonrpc::write_error_head(
            w,
            Some(id),
            code::INTERNAL_ERROR,
            ErrorMessage::Whole(format_args!("Task cancelled")),
        );
        w.raw(b"}}");
        return;
    }
    if task.is_error() {
        jsonrpc::write_error_object_head(w, id);
        w.raw(if payload.is_empty() { b"{\"code\":-32603,\"message\":\"task failed\"}" } else { payload });
        w.byte(b'}');
        return;
    }
    jsonrpc::write_result_head(w, id);
    let result = json::parse(payload, json::MAX_DEPTH_LIMIT).ok().filter(|r| r.kind() == json::Kind::Object);
    super::wire::write_naming_task(w, result, task.id().as_bytes());
    w.byte(b'}');
}

impl<'s, 'a, H: Handler, const OUTBOUND: usize> Parts<'s, 'a, H, OUTBOUND> {
    /// `tasks/result` (2025-11-25): the outcome at once if the task has ended; otherwise the request
    /// waits in an in-flight slot until it does (answered when the engine tells of its new status).
    pub(crate) fn legacy_task_result(&mut self, id: Id<'_>, slot: usize, context: RequestContext<'_>) {
        let Some(table) = self.tasks.as_mut() else { return };
        let Some(task) = table.slot(slot).copied() else { return };
        if task.status().is_terminal() {
            let Parts { out, tasks, route, handler, now, .. } = self;
            let Some(table) = tasks.as_mut() else { return };
            if out.write_ending(*route, |w| write_outcome(w, &id, table, slot)).is_err() {
                let event = out.reject(
                    *route,
                    Some(&id),
                    code::INTERNAL_ERROR,
                    ErrorMessage::Named(format_args!("the task's outcome does not fit the transmit window")),
                    None,
                );
                handler.on_event(*now, event.into());
            }
            return;
        }
        let Some(owned) = OwnedId::from_id(id) else {
            return self.reject(
                Some(&id),
                code::INTERNAL_ERROR,
                format_args!("request ids longer than {} bytes cannot be kept", Decimal(jsonrpc::MAX_ID_LEN as u64)),
            );
        };
        let Some(free) = self.slots.iter().position(InFlight::is_free) else {
            return self.reject_with_data(
                Some(&id),
                code::INTERNAL_ERROR,
                ErrorMessage::Whole(format_args!("Server busy: too many requests in flight")),
                None,
            );
        };
        let mut waits = [0u8; TASK_ID_LEN];
        waits.copy_from_slice(task.id().as_bytes().get(..TASK_ID_LEN).unwrap_or(&[0; TASK_ID_LEN]));
        let generation = *self.next_generation;
        *self.next_generation = generation.wrapping_add(1);
        self.slots[free] = Some(InFlight {
            id: owned,
            kind: ReplyKind::TaskResult,
            version: context.version,
            route: self.route,
            generation,
            cancelled: false,
            notes: Notes::none(),
            listen: None,
            client: context.client,
            task: Some(waits),
            replied: false,
        });
        // A task waiting for input asks on this request's stream.
        if task.status() == TaskStatus::InputRequired {
            self.ask_task_input(slot, self.route);
        }
    }

    /// `tasks/list` (2025-11-25): the live tasks of the request's authorization context, a page of
    /// the configured size at most (`nextCursor` the slot to go on from; `-32602` for a cursor this
    /// server did not hand out).
    pub(crate) fn list_legacy_tasks(&mut self, id: Id<'_>, params: &Params<'_>, version: ProtocolVersion) {
        let Some(from) = self.cursor(id, params) else { return };
        let page = self.config.limits.page_size.max(1);
        let now = self.now;
        let (mut out, tasks) = self.open_beside_tasks(id, version);
        let Some(table) = tasks else { return out.finish(None) };
        let w = out.writer();
        w.raw(b"\"tasks\":[");
        let (mut next, mut written) = (table.next_live(now, from), 0);
        while let Some(slot) = next.filter(|_| written < page) {
            if written > 0 {
                w.byte(b',');
            }
            w.byte(b'{');
            table.write_task(slot, w, TaskWire::Legacy);
            w.byte(b'}');
            written += 1;
            next = table.next_live(now, slot + 1);
        }
        w.byte(b']');
        if let Some(slot) = next {
            w.member("nextCursor");
            w.string_fmt(format_args!("{slot}"));
        }
        out.members_written();
        out.finish(None);
    }
}

/// Whether the session is a 2025-11-25 legacy one (where a legacy task's status is told).
pub(crate) fn tells_status(session: &Session) -> bool {
    matches!(session, Session::Legacy { version: ProtocolVersion::V2025_11_25, .. })
}
