//! What the server says unasked: requests and notifications to the client, progress and log
//! messages for deferred requests, session log messages, list changes, resource updates, and the
//! end of listen streams.

use core::fmt;

use crate::endpoint::{OutboundKey, Route, SendError};
use crate::json::JsonWriter;
use crate::jsonrpc;
use crate::mcp::LoggingLevel;
use crate::server::reply::{ReplyKind, write_log};
use crate::server::subscriptions::{ListChanged, write_subscription_meta};
use crate::server::{Deferred, Engine, Handler, Session};
use crate::time::Instant;
use crate::version::Era;

impl<'a, const IN_FLIGHT: usize, const OUTBOUND: usize> Engine<'a, IN_FLIGHT, OUTBOUND> {
    /// Sends `ping` to the client of the legacy session. Its answer (or its timeout, after
    /// [`Config::request_timeout`](crate::server::Config::request_timeout)) reaches [`Handler::on_response`] with the returned key.
    pub fn ping(&mut self, now: Instant) -> Result<OutboundKey, SendError> {
        self.send(now, "ping", None)
    }

    /// Sends the request `method` with `params` (written by the closure, a JSON object) to the client
    /// of the legacy session, on the notification route. The answer reaches [`Handler::on_response`]
    /// with the returned key; with no answer by [`Config::request_timeout`](crate::server::Config::request_timeout) the request is cancelled
    /// and reported as timed out.
    pub fn send_request(
        &mut self,
        now: Instant,
        method: &str,
        params: Option<&dyn Fn(&mut JsonWriter<'_>)>,
    ) -> Result<OutboundKey, SendError> {
        self.send(now, method, params)
    }

    /// Gives up on a request sent to the client: `notifications/cancelled` goes out (now, or once the
    /// transmit buffer has room), a late answer is ignored, and [`Handler::on_response`] is not called
    /// for it. `false` if the request is not awaiting an answer (answered, timed out, or unknown).
    pub fn cancel_request(&mut self, key: OutboundKey) -> bool {
        self.ep.out.cancel(key)
    }

    /// Sends the notification `method` with `params` (a JSON object written by the closure) on the
    /// notification route ([`Route::BYTE_STREAM`] unless [set](Engine::set_notification_route)).
    pub fn notify(&mut self, method: &str, params: Option<&dyn Fn(&mut JsonWriter<'_>)>) -> Result<(), SendError> {
        self.notify_on(self.ep.out.notify_route, method, params)
    }

    /// Sends a notification to `route` (for example the stream of the request it is about).
    pub fn notify_on(
        &mut self,
        route: Route,
        method: &str,
        params: Option<&dyn Fn(&mut JsonWriter<'_>)>,
    ) -> Result<(), SendError> {
        self.ep.out.notify(route, method, params)
    }

    /// Where [`Engine::notify`] and [`Engine::send_request`] write: the byte stream by default, the
    /// standalone GET stream of a Streamable HTTP session.
    pub fn set_notification_route(&mut self, route: Route) {
        self.ep.out.notify_route = route;
    }

    fn send(
        &mut self,
        now: Instant,
        method: &str,
        params: Option<&dyn Fn(&mut JsonWriter<'_>)>,
    ) -> Result<OutboundKey, SendError> {
        if self.ep.is_open() && !matches!(self.session, Session::Legacy { .. }) {
            // 2026-07-28 has no server-to-client requests (the server returns `input_required`), and
            // before `initialize` there is no session to send them in.
            return Err(SendError::NotAvailable);
        }
        let deadline = self.config.request_timeout.map(|timeout| now + timeout);
        self.ep.out.request(self.ep.out.notify_route, method, params, deadline)
    }

    /// Sends `notifications/progress` for a deferred request, on its stream, if it carried a
    /// `progressToken` ([`SendError::NotAvailable`] otherwise). `progress` must be larger than the
    /// last one sent for it ([`SendError::NotIncreasing`]); none can be sent once it is answered.
    pub fn progress(
        &mut self,
        deferred: &Deferred,
        progress: u64,
        total: Option<u64>,
        message: Option<&str>,
    ) -> Result<(), SendError> {
        let slot = self.live_slot(deferred)?;
        let Some(entry) = self.in_flight[slot].as_ref() else { return Err(SendError::NotAvailable) };
        // Refused before anything is written: a refused notification must leave no trace.
        if entry.notes.progress_token.is_none() {
            return Err(SendError::NotAvailable);
        }
        if entry.notes.last_progress.is_some_and(|last| progress <= last) {
            return Err(SendError::NotIncreasing);
        }
        let route = entry.route;
        let mut notes = entry.notes.clone();
        self.write(route, |w| {
            // Cannot fail: the token and the order were checked above.
            let _ = notes.write_progress(w, progress, total, message);
        })?;
        if let Some(entry) = self.in_flight[slot].as_mut() {
            entry.notes.sent_progress(progress);
        }
        Ok(())
    }

    /// Sends `notifications/message` about a deferred request, on its stream, if the server declares
    /// `logging` and the request's level lets `level` through (the legacy session's
    /// `logging/setLevel`, or the request's own `io.modelcontextprotocol/logLevel` in 2026-07-28).
    /// `Ok(false)`: filtered out.
    pub fn log_for(
        &mut self,
        deferred: &Deferred,
        level: LoggingLevel,
        logger: Option<&str>,
        data: fmt::Arguments<'_>,
    ) -> Result<bool, SendError> {
        let slot = self.live_slot(deferred)?;
        let Some(entry) = self.in_flight[slot].as_ref() else { return Err(SendError::NotAvailable) };
        if !entry.notes.logs(level) {
            return Ok(false);
        }
        let route = entry.route;
        self.write(route, |w| write_log(w, level, logger, data)).map(|()| true)
    }

    /// Sends `notifications/message` to the legacy session (on the notification route) if the server
    /// declares `logging` and the session's level lets `level` through. `Ok(false)`: filtered out.
    /// 2026-07-28 has no session log: log about a request with [`Engine::log_for`].
    pub fn log<H: Handler>(
        &mut self,
        level: LoggingLevel,
        logger: Option<&str>,
        data: fmt::Arguments<'_>,
        handler: &H,
    ) -> Result<bool, SendError> {
        if !cfg!(feature = "logging") {
            return Err(SendError::NotAvailable);
        }
        let Session::Legacy { log_level, .. } = self.session else { return Err(SendError::NotAvailable) };
        if !crate::server::dispatch::served_capabilities(&self.config, handler).logging {
            return Err(SendError::NotAvailable);
        }
        if level < log_level {
            return Ok(false);
        }
        let route = self.ep.out.notify_route;
        self.write(route, |w| write_log(w, level, logger, data)).map(|()| true)
    }

    /// Tells clients that a list changed: the legacy session gets `notifications/…/list_changed` if
    /// the capabilities declare `listChanged` for it, and every 2026-07-28 listen stream that asked
    /// for it gets the same, tagged with its subscription id. Returns how many were sent; on
    /// [`SendError::Full`] none of those not yet sent was (transmit, then call again).
    pub fn list_changed<H: Handler>(&mut self, list: ListChanged, handler: &H) -> Result<usize, SendError> {
        let capabilities = crate::server::dispatch::served_capabilities(&self.config, handler);
        let declared = match list {
            ListChanged::Tools => capabilities.tools.is_some_and(|t| t.list_changed),
            ListChanged::Prompts => capabilities.prompts.is_some_and(|p| p.list_changed),
            ListChanged::Resources => capabilities.resources.is_some_and(|r| r.list_changed),
        };
        let mut sent = 0;
        if declared && matches!(self.session, Session::Legacy { .. }) {
            self.notify(list.method(), None)?;
            sent += 1;
        }
        sent += self.send_to_listens(
            |listen, _| listen.wants(list),
            |w, id| {
                jsonrpc::write_notification_params_head(w, list.method());
                write_subscription_meta(w, id);
                w.raw(b"}}");
            },
        )?;
        Ok(sent)
    }

    /// Tells clients that the resource `uri` changed: `notifications/resources/updated` to the
    /// legacy session if it subscribed to it, and to every listen stream that did. Returns how many
    /// were sent (see [`Engine::list_changed`]).
    pub fn resource_updated(&mut self, uri: &str) -> Result<usize, SendError> {
        // Only a subscriber is told.
        if !cfg!(feature = "subscriptions") {
            return Ok(0);
        }
        let mut sent = 0;
        if let Session::Legacy { subscriptions, .. } = &self.session
            && subscriptions.contains(uri)
        {
            self.notify(
                "notifications/resources/updated",
                Some(&|w: &mut JsonWriter<'_>| {
                    w.raw(b"{\"uri\":");
                    w.string(uri);
                    w.byte(b'}');
                }),
            )?;
            sent += 1;
        }
        sent += self.send_to_listens(
            |listen, _| listen.uris.contains(uri),
            |w, id| {
                jsonrpc::write_notification_params_head(w, "notifications/resources/updated");
                write_subscription_meta(w, id);
                w.member("uri");
                w.string(uri);
                w.raw(b"}}");
            },
        )?;
        Ok(sent)
    }

    /// Ends every open listen stream gracefully (server shutdown): each gets its
    /// `SubscriptionsListenResult`, after which its stream ends if its route says so. Returns how
    /// many were ended; on [`SendError::Full`] the rest stay open (transmit, then call again).
    pub fn end_listens(&mut self) -> Result<usize, SendError> {
        if !cfg!(all(feature = "modern", feature = "subscriptions")) {
            return Ok(0);
        }
        let mut ended = 0;
        for slot in 0..IN_FLIGHT {
            let Some(entry) = self.in_flight[slot].as_ref().filter(|e| e.kind == ReplyKind::Listen) else { continue };
            let (route, id) = (entry.route, entry.id.clone());
            self.write_ending(route, |w| {
                jsonrpc::write_result_head(w, &id);
                w.raw(b"{\"resultType\":\"complete\",");
                write_subscription_meta(w, &id);
                w.raw(b"}}");
            })?;
            self.in_flight[slot] = None;
            ended += 1;
        }
        Ok(ended)
    }

    /// Announces what the handler reports changed ([`Handler::take_list_changes`]) after it served
    /// a request. A notification that finds the transmit buffer full stays pending and is sent by a
    /// later call, once output has drained.
    pub(crate) fn announce_changes<H: Handler>(&mut self, handler: &mut H) {
        let changes = handler.take_list_changes();
        // A list whose feature is off is not served, so its changes are not told; an update is told
        // to subscribers only.
        self.pending_changes.tools |= changes.tools;
        #[cfg(feature = "prompts")]
        {
            self.pending_changes.prompts |= changes.prompts;
        }
        #[cfg(feature = "resources")]
        {
            self.pending_changes.resources |= changes.resources;
        }
        #[cfg(all(feature = "resources", feature = "subscriptions"))]
        {
            self.pending_changes.updated |= changes.updated;
        }
        self.flush_changes(&*handler);
    }

    /// Sends pending list changes as far as there is room.
    pub(crate) fn flush_changes<H: Handler>(&mut self, handler: &H) {
        let pending = self.pending_changes;
        for (changed, list) in [
            (pending.tools, ListChanged::Tools),
            #[cfg(feature = "prompts")]
            (pending.prompts, ListChanged::Prompts),
            #[cfg(feature = "resources")]
            (pending.resources, ListChanged::Resources),
        ] {
            if !changed || self.list_changed(list, handler) == Err(SendError::Full) {
                continue;
            }
            match list {
                ListChanged::Tools => self.pending_changes.tools = false,
                ListChanged::Prompts => self.pending_changes.prompts = false,
                ListChanged::Resources => self.pending_changes.resources = false,
            }
        }
        #[cfg(all(feature = "resources", feature = "subscriptions"))]
        while self.pending_changes.updated != 0 {
            let index = self.pending_changes.updated.trailing_zeros();
            if let Some(resource) = handler.resource(index as usize)
                && self.resource_updated(resource.uri) == Err(SendError::Full)
            {
                return;
            }
            self.pending_changes.updated &= !(1 << index);
        }
        #[cfg(feature = "tasks")]
        if self.tasks.as_ref().is_some_and(|t| t.changed) {
            self.flush_task_statuses();
        }
    }

    /// Tells whoever waits on a task whose status changed: a legacy session gets
    /// `notifications/tasks/status` for its tasks, the listen streams that follow it get
    /// `notifications/tasks` with the task as `tasks/get` gives it (2026-07-28), and then the
    /// `tasks/result` requests of a task that has ended get its outcome (2025-11-25). Stops when the
    /// transmit window is full: the rest is told when the engine runs next (a transmit done makes
    /// room and runs it); until then [`Engine::poll_timeout`] does not call for it.
    #[cfg(feature = "tasks")]
    pub(crate) fn flush_task_statuses(&mut self) {
        use crate::server::tasks::{TaskWire, legacy};
        let Engine { tasks, in_flight, ep, session, config, .. } = self;
        let Some(table) = tasks.as_mut() else { return };
        while let Some(slot) = table.next_changed() {
            let Some(task) = table.slot(slot).copied() else { break };
            if task.is_legacy() && legacy::tells_status(session) {
                let route = ep.out.notify_route;
                let written = ep.out.write(route, |w| {
                    jsonrpc::write_notification_params_head(w, "notifications/tasks/status");
                    table.write_task(slot, w, TaskWire::Legacy);
                    w.raw(b"}}");
                });
                if written == Err(SendError::Full) {
                    table.notes_blocked = true;
                    return;
                }
            }
            #[cfg(feature = "subscriptions")]
            let follows = |e: &&crate::server::reply::InFlight| {
                e.kind == ReplyKind::Listen && e.listen.is_some_and(|l| l.tasks.contains(task.id()))
            };
            #[cfg(feature = "subscriptions")]
            for entry in in_flight.iter().flatten().filter(follows) {
                let written = ep.out.write(entry.route, |w| {
                    jsonrpc::write_notification_params_head(w, "notifications/tasks");
                    write_subscription_meta(w, &entry.id);
                    w.byte(b',');
                    table.write_task(slot, w, TaskWire::Detailed);
                    w.raw(b"}}");
                });
                if written == Err(SendError::Full) {
                    table.notes_blocked = true;
                    return;
                }
            }
            // A 2025-11-25 task waiting for input asks on the stream of a `tasks/result` waiting
            // for it (see `tasks::ask`).
            if task.is_legacy() && task.status() == crate::mcp::TaskStatus::InputRequired {
                let waits = |e: &&crate::server::reply::InFlight| {
                    e.kind == ReplyKind::TaskResult && e.task.is_some_and(|id| id[..] == *task.id().as_bytes())
                };
                if let Some(route) = in_flight.iter().flatten().find(waits).map(|e| e.route) {
                    let deadline = config.request_timeout.map(|t| table.last_now + t);
                    crate::server::tasks::ask_task_input(&mut ep.out, table, slot, route, deadline);
                    // Questions that could not be sent failed the task: told as that next.
                    if table.slot(slot).is_some_and(|t| t.status() != task.status()) {
                        continue;
                    }
                }
            }
            if task.status().is_terminal() {
                for entry in in_flight.iter_mut() {
                    let waits = |e: &&crate::server::reply::InFlight| {
                        e.kind == ReplyKind::TaskResult && e.task.is_some_and(|id| id[..] == *task.id().as_bytes())
                    };
                    let Some(waiting) = entry.as_ref().filter(waits) else { continue };
                    let written =
                        ep.out.write_ending(waiting.route, |w| legacy::write_outcome(w, &waiting.id, table, slot));
                    if written == Err(SendError::Full) {
                        table.notes_blocked = true;
                        return;
                    }
                    *entry = None;
                }
            }
            table.told(slot);
        }
        // A `tasks/result` whose task expired before it ended: the task is gone.
        let now = table.last_now;
        for entry in in_flight.iter_mut() {
            let Some(waiting) = entry.as_ref().filter(|e| e.kind == ReplyKind::TaskResult) else { continue };
            if waiting.task.is_none_or(|id| table.find_any(now, &id).is_some()) {
                continue;
            }
            let written = ep.out.write_ending(waiting.route, |w| {
                jsonrpc::write_error_head(
                    w,
                    Some(&waiting.id),
                    crate::jsonrpc::code::INVALID_PARAMS,
                    crate::jsonrpc::ErrorMessage::Whole(format_args!("Failed to retrieve task: Task expired")),
                );
                w.raw(b"}}");
            });
            if written == Err(SendError::Full) {
                table.notes_blocked = true;
                return;
            }
            *entry = None;
        }
        table.notes_blocked = false;
    }

    /// How many listen streams are open.
    pub fn listens(&self) -> usize {
        self.in_flight.iter().flatten().filter(|e| e.kind == ReplyKind::Listen).count()
    }

    /// Writes one notification to each listen stream `wants`, on its route.
    fn send_to_listens(
        &mut self,
        wants: impl Fn(&crate::server::subscriptions::Listen, Era) -> bool,
        body: impl Fn(&mut JsonWriter<'_>, &crate::jsonrpc::OwnedId),
    ) -> Result<usize, SendError> {
        // Listen streams are opened by 2026-07-28 `subscriptions/listen` only.
        if !cfg!(all(feature = "modern", feature = "subscriptions")) {
            return Ok(0);
        }
        let mut sent = 0;
        for slot in 0..IN_FLIGHT {
            let Some(entry) = self.in_flight[slot].as_ref() else { continue };
            if !entry.listen.as_ref().is_some_and(|l| wants(l, entry.version.served_era())) {
                continue;
            }
            let (route, id) = (entry.route, entry.id.clone());
            self.write(route, |w| body(w, &id))?;
            sent += 1;
        }
        Ok(sent)
    }

    /// The slot of a deferred request still awaiting its answer.
    pub(crate) fn live_slot(&self, deferred: &Deferred) -> Result<usize, SendError> {
        match self.slot(deferred) {
            Some(entry) if !entry.cancelled => Ok(usize::from(deferred.slot)),
            _ => Err(SendError::NotAvailable),
        }
    }
}
