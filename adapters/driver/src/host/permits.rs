//! A counting semaphore for the requests in flight (std only, no extra crate): a request waits
//! for a permit instead of failing when the engine's table of requests is full.

use std::collections::VecDeque;
use std::future::poll_fn;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Poll, Waker};

struct State {
    available: usize,
    waiting: VecDeque<Waker>,
}

/// `n` permits, shared by the clones of a handle.
#[derive(Clone)]
pub(crate) struct Permits(Arc<Mutex<State>>);

fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    state.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Permits {
    pub(crate) fn new(n: usize) -> Self {
        Permits(Arc::new(Mutex::new(State { available: n, waiting: VecDeque::new() })))
    }

    /// Waits for a permit, returned when the [`Permit`] is dropped. First come, first served
    /// among waiters woken together.
    pub(crate) async fn acquire(&self) -> Permit {
        poll_fn(|cx| {
            let mut state = lock(&self.0);
            if state.available > 0 {
                state.available -= 1;
                return Poll::Ready(Permit(self.0.clone()));
            }
            if !state.waiting.iter().any(|w| w.will_wake(cx.waker())) {
                state.waiting.push_back(cx.waker().clone());
            }
            Poll::Pending
        })
        .await
    }
}

/// One request's permit.
pub(crate) struct Permit(Arc<Mutex<State>>);

impl Drop for Permit {
    fn drop(&mut self) {
        let waker = {
            let mut state = lock(&self.0);
            state.available += 1;
            state.waiting.pop_front()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}
