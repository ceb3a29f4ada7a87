//! Answering deferred requests: the handle's slot, a deferred request's reply opened again in the
//! transmit queue (its id and progress token borrowed from its in-flight entry, kept for that, see
//! [`InFlight::replied`]), and cancellation by stream.

use crate::endpoint::StreamId;
use crate::server::reply::{InFlight, Outgoing, ReplyId, ReplyKind};
use crate::server::{Deferred, Engine, Event, Handler, PromptReply, ReplyError, ResourceReply, ToolReply};
use crate::time::Instant;

impl<const IN_FLIGHT: usize, const OUTBOUND: usize> Engine<'_, IN_FLIGHT, OUTBOUND> {
    /// Whether the client cancelled this deferred request (its answer would be suppressed).
    pub fn is_cancelled(&self, deferred: &Deferred) -> bool {
        self.slot(deferred).is_some_and(|entry| entry.cancelled)
    }

    /// Starts the answer to a deferred `tools/call`. Errors: the client cancelled it (the handle is
    /// spent), the transmit buffer is too full (transmit, then call again: [`ReplyError::Busy`]), or
    /// the handle is unknown.
    pub fn reply_tool(&mut self, deferred: &Deferred) -> Result<ToolReply<'_>, ReplyError> {
        self.reopen(deferred, ReplyKind::Tool).map(ToolReply::new)
    }

    /// Starts the answer to a deferred `resources/read`; see [`Engine::reply_tool`].
    pub fn reply_resource(&mut self, deferred: &Deferred) -> Result<ResourceReply<'_>, ReplyError> {
        let cache = self.config.resource_cache;
        self.reopen(deferred, ReplyKind::Resource).map(|out| ResourceReply::new(out, cache))
    }

    /// Starts the answer to a deferred `prompts/get`; see [`Engine::reply_tool`].
    pub fn reply_prompt(&mut self, deferred: &Deferred) -> Result<PromptReply<'_>, ReplyError> {
        self.reopen(deferred, ReplyKind::Prompt).map(PromptReply::new)
    }

    pub(crate) fn slot(&self, deferred: &Deferred) -> Option<&InFlight> {
        self.in_flight
            .get(usize::from(deferred.slot))
            .and_then(InFlight::live)
            .filter(|entry| entry.generation == deferred.generation && entry.kind == deferred.kind)
    }

    pub(crate) fn reopen(&mut self, deferred: &Deferred, kind: ReplyKind) -> Result<Outgoing<'_>, ReplyError> {
        let entry = self.slot(deferred).filter(|entry| entry.kind == kind).ok_or(ReplyError::Unknown)?;
        if entry.cancelled {
            self.in_flight[usize::from(deferred.slot)] = None;
            return Err(ReplyError::Cancelled);
        }
        let window = self.ep.out.window_len();
        if self.ep.out.tx.free() < window || !self.ep.out.tx.has_record_room(entry.route.stream) {
            return Err(ReplyError::Busy);
        }
        let index = usize::from(deferred.slot);
        #[rustfmt::skip]
        let Engine { in_flight, ep, server_info, config, #[cfg(feature = "tasks")] tasks, .. } = self;
        let entry = in_flight.get_mut(index).and_then(InFlight::live_mut).ok_or(ReplyError::Unknown)?;
        // The slot is free from here; the entry stays for the reply to borrow its ids.
        entry.replied = true;
        let entry = &*entry;
        let slot = ep.out.tx.open(entry.route, window);
        #[cfg(feature = "tasks")]
        let task = match (&entry.id, tasks.as_mut()) {
            (crate::jsonrpc::OwnedId::String(id), Some(table)) if entry.route == crate::server::tasks::TASK_ROUTE => {
                let now = table.last_now;
                table
                    .find_any(now, id.as_bytes())
                    .map(|slot| crate::server::tasks::TaskScope::existing(table, now, slot))
            }
            _ => None,
        };
        #[cfg(feature = "tasks")]
        if entry.route == crate::server::tasks::TASK_ROUTE && task.is_none() {
            // The task expired meanwhile (or the engine lost its table): nothing to answer.
            return Err(ReplyError::Cancelled);
        }
        let notes = crate::server::reply::Notes {
            progress_token: entry.notes.progress_token.as_ref().map(ReplyId::Owned),
            last_progress: entry.notes.last_progress,
            log_level: entry.notes.log_level,
        };
        let out =
            Outgoing::open(slot, ReplyId::Owned(&entry.id), entry.version, server_info.with(&config.server_info), None);
        #[cfg(feature = "tasks")]
        let out = out.with_task(task);
        Ok(out.with_notes(notes))
    }

    /// Cancels the deferred requests whose answers go to `stream`, as `notifications/cancelled`
    /// naming each would: in 2026-07-28 over HTTP, a client that closes a request's response stream
    /// cancels the request. Each is reported to the handler ([`Event::Cancelled`]) and its answer
    /// is suppressed. Returns how many were cancelled. (Legacy sessions must not call this:
    /// there, a disconnection is not a cancellation.)
    pub fn cancel_stream<H: Handler>(&mut self, now: Instant, stream: StreamId, handler: &mut H) -> usize {
        let mut cancelled = 0;
        for (slot, entry) in self.in_flight.iter_mut().enumerate() {
            let Some(entry) = InFlight::live_mut(entry).filter(|e| !e.cancelled && e.route.stream == stream) else {
                continue;
            };
            cancelled += 1;
            handler.on_event(now, Event::Cancelled { request: entry.cancel(slot) });
        }
        cancelled
    }
}
