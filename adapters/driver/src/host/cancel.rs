//! [`CancelHandle`]: cancelling requests from elsewhere than their futures.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};
use std::vec::Vec;

use mcp_sansio::endpoint::OutboundKey;

use crate::JobSender;
use crate::host::timer::TimerId;
use crate::host::{HostConnection, RequestError};

/// What one request's future and its cancellers share.
#[derive(Debug, Default)]
pub(crate) struct Slot {
    /// The request on the engine, once sent.
    pub(crate) key: Option<OutboundKey>,
    /// Or the timer a future waits for (between two polls of a task).
    pub(crate) timer: Option<TimerId>,
    /// Cancelled: not to be sent, or to be given up.
    pub(crate) cancelled: bool,
}

pub(crate) type SlotRef = Arc<Mutex<Slot>>;

pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Gives the request of `slot` up: if it waits for its answer, its future ends with
/// [`RequestError::Cancelled`] and `notifications/cancelled` goes on the wire (in 2026-07-28 over
/// HTTP its response stream is closed); if it was not sent yet, it never is. A future waiting for
/// a timer of `slot` ends with [`RequestError::Cancelled`] too.
pub(crate) fn cancel(slot: &SlotRef, jobs: &JobSender<HostConnection>) {
    lock(slot).cancelled = true;
    let slot = slot.clone();
    let _ = jobs.complete(move |conn: &mut HostConnection, _| {
        let timer = lock(&slot).timer;
        if let Some(waiter) = timer.and_then(|timer| conn.handler_mut().timers.remove(timer)) {
            waiter.send(Err(RequestError::Cancelled));
        }
        let key = lock(&slot).key;
        if let Some(key) = key
            && let Some(waiter) = conn.handler_mut().waiters.remove(&key)
        {
            conn.handler_mut().progress.remove(&key.id());
            conn.cancel(key);
            waiter.send(Err(RequestError::Cancelled));
        }
    });
}

#[derive(Debug, Default)]
struct Token {
    cancelled: bool,
    requests: Vec<(Weak<Mutex<Slot>>, JobSender<HostConnection>)>,
}

/// Cancels requests from anywhere, not only by dropping their futures: every request sent through
/// a [`ClientHandle::with_cancel`](crate::host::ClientHandle::with_cancel) handle bound to it
/// (a tool call, a listing with all its pages, …) ends with [`RequestError::Cancelled`] once
/// [`CancelHandle::cancel`] is called, and is cancelled on the wire. Requests started after that
/// end at once without being sent. Cloneable, `Send + Sync`: one handle can stop, say, every
/// request of one turn of a conversation, across several clients.
#[derive(Clone, Debug, Default)]
pub struct CancelHandle(Arc<Mutex<Token>>);

impl CancelHandle {
    /// A handle nothing was cancelled through yet.
    pub fn new() -> Self {
        CancelHandle::default()
    }

    /// Cancels every request made through this handle that still waits, and every later one.
    pub fn cancel(&self) {
        let requests = {
            let mut token = lock(&self.0);
            token.cancelled = true;
            std::mem::take(&mut token.requests)
        };
        for (slot, jobs) in requests {
            if let Some(slot) = slot.upgrade() {
                cancel(&slot, &jobs);
            }
        }
    }

    /// Whether [`CancelHandle::cancel`] was called.
    pub fn is_cancelled(&self) -> bool {
        lock(&self.0).cancelled
    }

    /// Registers a request about to be sent; `false`: already cancelled (`slot` is marked so).
    pub(crate) fn register(&self, slot: &SlotRef, jobs: &JobSender<HostConnection>) -> bool {
        let mut token = lock(&self.0);
        if token.cancelled {
            lock(slot).cancelled = true;
            return false;
        }
        // Requests that ended are forgotten as new ones come, so the list stays as long as the
        // requests in flight.
        token.requests.retain(|(slot, _)| slot.strong_count() > 0);
        token.requests.push((Arc::downgrade(slot), jobs.clone()));
        true
    }
}
