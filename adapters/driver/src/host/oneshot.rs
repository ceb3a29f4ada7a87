//! A one-value channel from the driving task to one waiting future (std only, no extra crate).

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Waker};

struct Shot<T> {
    value: Option<T>,
    waker: Option<Waker>,
    /// The sender is gone without a value.
    closed: bool,
}

fn lock<T>(shot: &Mutex<Shot<T>>) -> MutexGuard<'_, Shot<T>> {
    shot.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Creates a linked pair.
pub(crate) fn oneshot<T>() -> (Sender<T>, Receiver<T>) {
    let shot = Arc::new(Mutex::new(Shot { value: None, waker: None, closed: false }));
    (Sender(Some(shot.clone())), Receiver(shot))
}

/// Sends the value (once).
pub(crate) struct Sender<T>(Option<Arc<Mutex<Shot<T>>>>);

impl<T> Sender<T> {
    pub(crate) fn send(mut self, value: T) {
        if let Some(shot) = self.0.take() {
            let waker = {
                let mut shot = lock(&shot);
                shot.value = Some(value);
                shot.waker.take()
            };
            if let Some(waker) = waker {
                waker.wake();
            }
        }
    }
}

impl<T> Drop for Sender<T> {
    fn drop(&mut self) {
        if let Some(shot) = self.0.take() {
            let waker = {
                let mut shot = lock(&shot);
                shot.closed = true;
                shot.waker.take()
            };
            if let Some(waker) = waker {
                waker.wake();
            }
        }
    }
}

/// Completes with the value, or `None` once the sender is gone without one.
pub(crate) struct Receiver<T>(Arc<Mutex<Shot<T>>>);

impl<T> Future for Receiver<T> {
    type Output = Option<T>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<T>> {
        let mut shot = lock(&self.0);
        if let Some(value) = shot.value.take() {
            return Poll::Ready(Some(value));
        }
        if shot.closed {
            return Poll::Ready(None);
        }
        shot.waker = Some(cx.waker().clone());
        Poll::Pending
    }
}
