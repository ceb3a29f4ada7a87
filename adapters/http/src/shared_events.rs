//! The SSE events of shared sessions, kept in the shared store too ([`SharedSessions::append_events`]):
//! an [`EventStore`] that keeps each event in the replica's own store and queues it for a task that
//! writes the queue to the shared store in batches, in order.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use mcp_sansio::frame::EventId;
use mcp_sansio::http::SessionId;
use tokio::sync::mpsc;

use crate::shared::{SharedEvent, SharedSessions, within};
use crate::store::{EventStore, StreamState};

/// Events waiting to be written to the shared store; past it events are kept here only (logged).
pub(crate) const SHARED_EVENT_QUEUE: usize = 4096;
/// Most events written to the shared store at once.
const BATCH: usize = 256;

/// The replica's own store, and the queue to the shared one.
pub(crate) struct Teed {
    pub(crate) local: Box<dyn EventStore>,
    queue: mpsc::Sender<SharedEvent>,
}

impl Teed {
    pub(crate) fn new(local: Box<dyn EventStore>, queue: mpsc::Sender<SharedEvent>) -> Self {
        Teed { local, queue }
    }

    fn queue(&self, event: SharedEvent) {
        if self.queue.try_send(event).is_err() {
            tracing::warn!("shared event store behind or gone: an event kept on this replica only");
        }
    }
}

impl EventStore for Teed {
    fn append(&mut self, session: SessionId, id: EventId, event: Bytes) {
        self.queue(SharedEvent { session, stream: id.stream(), sequence: id.sequence(), event: event.clone() });
        self.local.append(session, id, event);
    }

    fn end_stream(&mut self, session: SessionId, stream: u32, delivered: bool) {
        self.queue(SharedEvent { session, stream, sequence: SharedEvent::END, event: Bytes::new() });
        self.local.end_stream(session, stream, delivered);
    }

    fn replay(&self, session: SessionId, after: EventId, replay: &mut dyn FnMut(&Bytes)) -> StreamState {
        self.local.replay(session, after, replay)
    }

    fn remove_session(&mut self, session: SessionId) {
        // The shared store's copy ends with its lifetime: other replicas may still resume it.
        self.local.remove_session(session);
    }
}

/// Starts the task that writes queued events to `shared` (each stream kept for `ttl`), each batch
/// within `timeout`; returns the queue. Within a tokio runtime.
pub(crate) fn start_writer(
    shared: Arc<dyn SharedSessions>,
    ttl: Duration,
    timeout: Duration,
) -> mpsc::Sender<SharedEvent> {
    let (queue, mut queued) = mpsc::channel(SHARED_EVENT_QUEUE);
    tokio::spawn(async move {
        let mut batch = Vec::with_capacity(BATCH);
        while queued.recv_many(&mut batch, BATCH).await > 0 {
            let events = std::mem::replace(&mut batch, Vec::with_capacity(BATCH));
            let count = events.len();
            if let Err(error) = within(timeout, shared.append_events(events, ttl)).await {
                tracing::warn!(%error, count, "events not written to the shared store: kept on this replica only");
            }
        }
    });
    queue
}
