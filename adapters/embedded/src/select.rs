//! The one select the driver needs, without pulling in a futures crate.

use core::future::{Future, poll_fn};
use core::pin::pin;
use core::task::Poll;

/// Which of the raced futures completed first.
pub(crate) enum Woken<T> {
    /// The timer.
    Timer,
    /// The completion source.
    Completion,
    /// The read, with its output.
    Read(T),
}

/// Polls `timer`, then `completion`, then `read`, until one completes, and drops the others. A
/// `None` future never completes. Input comes last so that a peer flooding the line cannot starve
/// deadlines and deferred answers (both are bounded by the application). Also returns whether the
/// race had to wait (returned `Pending` at least once) rather than finding a winner at once.
pub(crate) async fn race<R, T, C>(read: Option<R>, timer: Option<T>, completion: C) -> (Woken<R::Output>, bool)
where
    R: Future,
    T: Future<Output = ()>,
    C: Future<Output = ()>,
{
    let mut read = pin!(read);
    let mut timer = pin!(timer);
    let mut completion = pin!(completion);
    let mut waited = false;
    poll_fn(|cx| {
        if let Some(timer) = timer.as_mut().as_pin_mut()
            && timer.poll(cx).is_ready()
        {
            return Poll::Ready((Woken::Timer, waited));
        }
        if completion.as_mut().poll(cx).is_ready() {
            return Poll::Ready((Woken::Completion, waited));
        }
        if let Some(read) = read.as_mut().as_pin_mut()
            && let Poll::Ready(output) = read.poll(cx)
        {
            return Poll::Ready((Woken::Read(output), waited));
        }
        waited = true;
        Poll::Pending
    })
    .await
}

/// Returns `Pending` once (after waking itself), so the executor can run other tasks.
pub(crate) async fn yield_now() {
    let mut yielded = false;
    poll_fn(|cx| {
        if yielded {
            return Poll::Ready(());
        }
        yielded = true;
        cx.waker().wake_by_ref();
        Poll::Pending
    })
    .await
}
