//! [`Listen`]: the notifications of one `subscriptions/listen` stream, for one reader.

use std::collections::VecDeque;
use std::future::poll_fn;
use std::pin::Pin;
use std::string::String;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Waker};

use mcp_sansio::endpoint::OutboundKey;

use crate::JobSender;
use crate::host::{HostConnection, MAX_LISTEN_BACKLOG};

/// A notification of a listen stream, copied out of the message.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ListenNotification {
    /// Its method (`notifications/tools/list_changed`, …).
    pub method: String,
    /// Its params as JSON text (with the `_meta` naming the stream).
    pub params: Option<String>,
}

struct State {
    items: VecDeque<ListenNotification>,
    waker: Option<Waker>,
    ended: bool,
    dropped: u64,
}

fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    state.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The engine's side: where the handler puts the stream's notifications.
pub(crate) struct Queue(Arc<Mutex<State>>);

impl Queue {
    pub(crate) fn push(&self, notification: ListenNotification) {
        let waker = {
            let mut state = lock(&self.0);
            if state.items.len() == MAX_LISTEN_BACKLOG {
                state.items.pop_front();
                state.dropped += 1;
            }
            state.items.push_back(notification);
            state.waker.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }

    /// The stream ended (the server's result, a timeout, the end of the connection).
    pub(crate) fn end(self) {
        drop(self);
    }
}

impl Drop for Queue {
    /// Ended, or dropped with the engine (the connection is gone): the stream has ended.
    fn drop(&mut self) {
        let waker = {
            let mut state = lock(&self.0);
            state.ended = true;
            state.waker.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

pub(crate) fn channel(key: OutboundKey) -> (Queue, Listen) {
    let state = Arc::new(Mutex::new(State { items: VecDeque::new(), waker: None, ended: false, dropped: 0 }));
    (Queue(state.clone()), Listen { state, key, jobs: None })
}

/// A `subscriptions/listen` stream ([`ClientHandle::listen`](crate::host::ClientHandle::listen)):
/// read it with [`Listen::next`], or as a [`futures_core::Stream`] (with `StreamExt` from
/// `futures` or `tokio-stream`). Dropping it cancels the stream on the wire.
pub struct Listen {
    state: Arc<Mutex<State>>,
    key: OutboundKey,
    jobs: Option<JobSender<HostConnection>>,
}

impl Listen {
    pub(crate) fn with_jobs(mut self, jobs: JobSender<HostConnection>) -> Self {
        self.jobs = Some(jobs);
        self
    }

    /// The next notification, or `None` once the stream ended and every notification was read.
    pub async fn next(&mut self) -> Option<ListenNotification> {
        poll_fn(|cx| self.poll_item(cx)).await
    }

    fn poll_item(&self, cx: &mut Context<'_>) -> Poll<Option<ListenNotification>> {
        let mut state = lock(&self.state);
        if let Some(item) = state.items.pop_front() {
            return Poll::Ready(Some(item));
        }
        if state.ended {
            return Poll::Ready(None);
        }
        state.waker = Some(cx.waker().clone());
        Poll::Pending
    }

    /// How many notifications were dropped because [`MAX_LISTEN_BACKLOG`] were unread.
    pub fn dropped(&self) -> u64 {
        lock(&self.state).dropped
    }

    /// The listen request's key.
    pub fn key(&self) -> OutboundKey {
        self.key
    }
}

impl futures_core::Stream for Listen {
    type Item = ListenNotification;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<ListenNotification>> {
        self.poll_item(cx)
    }
}

impl futures_core::FusedStream for Listen {
    fn is_terminated(&self) -> bool {
        let state = lock(&self.state);
        state.ended && state.items.is_empty()
    }
}

impl std::fmt::Debug for Listen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Listen").field("key", &self.key).finish_non_exhaustive()
    }
}

impl Drop for Listen {
    fn drop(&mut self) {
        if lock(&self.state).ended {
            return;
        }
        let key = self.key;
        if let Some(jobs) = &self.jobs {
            let _ = jobs.complete(move |conn: &mut HostConnection, _| {
                conn.handler_mut().listens.remove(&key);
                conn.cancel(key);
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use core::future::Future;

    fn notification(i: usize) -> ListenNotification {
        ListenNotification { method: std::format!("notifications/{i}"), params: None }
    }

    #[test]
    fn a_flood_keeps_the_newest_and_counts_the_dropped() {
        let (queue, mut listen) = channel(OutboundKey::from_id(7));
        for i in 0..MAX_LISTEN_BACKLOG + 10 {
            queue.push(notification(i));
        }
        assert_eq!(listen.dropped(), 10);
        queue.end();
        let mut read = std::vec::Vec::new();
        let waker = std::task::Waker::noop();
        let mut cx = std::task::Context::from_waker(waker);
        // Read through `next` and through `Stream`, in turns.
        loop {
            let polled = if read.len() % 2 == 0 {
                core::pin::pin!(listen.next()).poll(&mut cx)
            } else {
                futures_core::Stream::poll_next(Pin::new(&mut listen), &mut cx)
            };
            match polled {
                Poll::Ready(Some(item)) => read.push(item),
                Poll::Ready(None) => break,
                Poll::Pending => panic!("an ended stream never waits"),
            }
        }
        assert!(futures_core::FusedStream::is_terminated(&listen));
        assert_eq!(read.len(), MAX_LISTEN_BACKLOG);
        assert_eq!(read[0], notification(10), "the oldest were dropped");
    }
}
