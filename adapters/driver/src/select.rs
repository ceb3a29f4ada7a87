//! The one select the driver needs, without pulling in a futures crate.

use core::future::{Future, poll_fn};
use core::pin::Pin;
use core::task::Poll;

/// Which of the raced futures completed first.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Woken<T, E> {
    /// The timer.
    Timer,
    /// The job source.
    Job,
    /// The read or write, with its output.
    Io(T),
    /// The flush failed.
    FlushFailed(E),
}

/// How a [`race`] ended.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Raced<T, E> {
    /// The winner.
    pub(crate) woken: Woken<T, E>,
    /// The race returned `Pending` at least once rather than finding a winner at once.
    pub(crate) waited: bool,
    /// The flush ran to completion.
    pub(crate) flushed: bool,
}

/// Which future a [`race`] polls first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum IoOrder {
    /// Timer, then job, then the IO future: input cannot starve deadlines and deferred
    /// answers (both bounded by the application).
    Last,
    /// The IO future first: pending output goes out before anything else gets a turn.
    First,
}

/// Polls `timer`, `job` and `io` (in `order`) until one completes; the caller drops the others. A
/// `None` future never completes. Each time none of them is ready, `flush` (if any) is polled, until
/// it completes: so a flush happens only when the loop is about to sleep, and is dropped (to be
/// started again later) when something wakes the loop first.
///
/// The futures are pinned by the caller, in its own state, and the race only borrows them: an `async
/// fn` taking them by value would keep each twice in its state (the argument and its pinned move),
/// and a loop pays for that on its stack.
pub(crate) fn race<'a, I, T, C, F, E>(
    mut io: Pin<&'a mut Option<I>>,
    order: IoOrder,
    mut timer: Pin<&'a mut Option<T>>,
    mut job: Pin<&'a mut Option<C>>,
    mut flush: Pin<&'a mut Option<F>>,
) -> impl Future<Output = Raced<I::Output, E>> + 'a
where
    I: Future,
    T: Future<Output = ()>,
    C: Future<Output = ()>,
    F: Future<Output = Result<(), E>>,
{
    let mut waited = false;
    let mut flushed = false;
    poll_fn(move |cx| {
        let done = |woken| Poll::Ready(Raced { woken, waited, flushed });
        if order == IoOrder::First
            && let Some(io) = io.as_mut().as_pin_mut()
            && let Poll::Ready(output) = io.poll(cx)
        {
            return done(Woken::Io(output));
        }
        if let Some(timer) = timer.as_mut().as_pin_mut()
            && timer.poll(cx).is_ready()
        {
            return done(Woken::Timer);
        }
        if let Some(job) = job.as_mut().as_pin_mut()
            && job.poll(cx).is_ready()
        {
            return done(Woken::Job);
        }
        if order == IoOrder::Last
            && let Some(io) = io.as_mut().as_pin_mut()
            && let Poll::Ready(output) = io.poll(cx)
        {
            return done(Woken::Io(output));
        }
        if let Some(pending_flush) = flush.as_mut().as_pin_mut()
            && let Poll::Ready(result) = pending_flush.poll(cx)
        {
            flush.set(None);
            match result {
                Ok(()) => flushed = true,
                Err(error) => return Poll::Ready(Raced { woken: Woken::FlushFailed(error), waited, flushed }),
            }
        }
        waited = true;
        Poll::Pending
    })
}

/// Which of the futures of a [`race_write`] completed first.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Drain<W, R> {
    /// The write, with its output.
    Written(W),
    /// The write was not ready at its first poll, and the race was told to stop there.
    Blocked,
    /// The timer.
    Timer,
    /// The job source.
    Job,
    /// The read, with its output.
    Read(R),
}

/// Polls `write`, then `timer`, `job` and `read`, until one completes; the caller drops the others.
/// With `stop_if_blocked`, a `write` that is not ready at its first poll ends the race there unless
/// the timer or the job is ready ([`Drain::Blocked`]): the caller can then offer receive room for
/// `read`. Returns the winner and whether the race returned `Pending` at least once. The futures
/// are pinned by the caller (see [`race`]).
pub(crate) fn race_write<'a, W, R, T, J>(
    mut write: Pin<&'a mut W>,
    mut read: Pin<&'a mut Option<R>>,
    mut timer: Pin<&'a mut Option<T>>,
    mut job: Pin<&'a mut Option<J>>,
    stop_if_blocked: bool,
) -> impl Future<Output = (Drain<W::Output, R::Output>, bool)> + 'a
where
    W: Future,
    R: Future,
    T: Future<Output = ()>,
    J: Future<Output = ()>,
{
    let mut waited = false;
    poll_fn(move |cx| {
        if let Poll::Ready(output) = write.as_mut().poll(cx) {
            return Poll::Ready((Drain::Written(output), waited));
        }
        if let Some(timer) = timer.as_mut().as_pin_mut()
            && timer.poll(cx).is_ready()
        {
            return Poll::Ready((Drain::Timer, waited));
        }
        if let Some(job) = job.as_mut().as_pin_mut()
            && job.poll(cx).is_ready()
        {
            return Poll::Ready((Drain::Job, waited));
        }
        if stop_if_blocked && !waited {
            return Poll::Ready((Drain::Blocked, false));
        }
        if let Some(read) = read.as_mut().as_pin_mut()
            && let Poll::Ready(output) = read.poll(cx)
        {
            return Poll::Ready((Drain::Read(output), waited));
        }
        waited = true;
        Poll::Pending
    })
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

#[cfg(test)]
mod tests {
    extern crate std;

    use core::cell::Cell;
    use core::future::{Future, poll_fn, ready};
    use core::pin::pin;
    use core::task::{Context, Poll, Waker};

    use super::*;

    /// A future that is `Pending` until `ready_after` polls have been made, counting its polls.
    fn after<'a, T: Copy + 'a>(polls: &'a Cell<u32>, ready_after: u32, value: T) -> impl Future<Output = T> + 'a {
        poll_fn(move |_| {
            polls.set(polls.get() + 1);
            if polls.get() > ready_after { Poll::Ready(value) } else { Poll::Pending }
        })
    }

    /// Polls `future` up to `limit` times (a fake executor that wakes it each time).
    fn poll_up_to<F: Future>(future: F, limit: usize) -> Option<F::Output> {
        let mut cx = Context::from_waker(Waker::noop());
        let mut future = pin!(future);
        (0..limit).find_map(|_| match future.as_mut().poll(&mut cx) {
            Poll::Ready(output) => Some(output),
            Poll::Pending => None,
        })
    }

    type NoFlush = core::future::Ready<Result<(), ()>>;

    #[test]
    fn ready_input_is_taken_without_flushing_or_waiting() {
        let (read, flush) = (Cell::new(0), Cell::new(0));
        let raced = poll_up_to(
            race(
                pin!(Some(after(&read, 0, 7))),
                IoOrder::Last,
                pin!(None::<core::future::Ready<()>>),
                pin!(None::<core::future::Ready<()>>),
                pin!(Some(after(&flush, 0, Ok::<(), ()>(())))),
            ),
            1,
        );
        assert_eq!(raced, Some(Raced { woken: Woken::Io(7), waited: false, flushed: false }));
        assert_eq!(flush.get(), 0, "the flush is not even polled while input is ready");
    }

    #[test]
    fn the_flush_runs_once_the_read_would_block_and_the_read_still_wins_later() {
        let (read, flush) = (Cell::new(0), Cell::new(0));
        let no_timer = None::<core::future::Ready<()>>;
        let no_job = None::<core::future::Ready<()>>;
        // The read is pending twice; the flush completes at its second poll.
        let raced = poll_up_to(
            race(
                pin!(Some(after(&read, 2, 7))),
                IoOrder::Last,
                pin!(no_timer),
                pin!(no_job),
                pin!(Some(after(&flush, 1, Ok::<(), ()>(())))),
            ),
            10,
        );
        assert_eq!(raced, Some(Raced { woken: Woken::Io(7), waited: true, flushed: true }));
        assert_eq!((read.get(), flush.get()), (3, 2), "a finished flush is not polled again");
    }

    #[test]
    fn input_that_arrives_during_the_flush_interrupts_it() {
        let (read, flush) = (Cell::new(0), Cell::new(0));
        let raced = poll_up_to(
            race(
                pin!(Some(after(&read, 1, 7))),
                IoOrder::Last,
                pin!(None::<core::future::Ready<()>>),
                pin!(None::<core::future::Ready<()>>),
                pin!(Some(after(&flush, 5, Ok::<(), ()>(())))),
            ),
            10,
        );
        assert_eq!(raced, Some(Raced { woken: Woken::Io(7), waited: true, flushed: false }));
    }

    #[test]
    fn a_failed_flush_ends_the_race() {
        let read = Cell::new(0);
        let raced = poll_up_to(
            race(
                pin!(Some(after(&read, 5, 7))),
                IoOrder::Last,
                pin!(None::<core::future::Ready<()>>),
                pin!(None::<core::future::Ready<()>>),
                pin!(Some(ready(Err::<(), u8>(3)))),
            ),
            10,
        );
        assert_eq!(raced, Some(Raced { woken: Woken::FlushFailed(3), waited: false, flushed: false }));
    }

    #[test]
    fn input_is_checked_last_and_output_first() {
        let (io, timer, job) = (Cell::new(0), Cell::new(0), Cell::new(0));
        let raced = poll_up_to(
            race(
                pin!(Some(after(&io, 0, 1))),
                IoOrder::Last,
                pin!(Some(after(&timer, 0, ()))),
                pin!(Some(after(&job, 0, ()))),
                pin!(None::<NoFlush>),
            ),
            1,
        );
        assert_eq!(raced.map(|raced| raced.woken), Some(Woken::Timer));
        assert_eq!(io.get(), 0, "a ready read is not even polled when the timer is due");

        let raced = poll_up_to(
            race(
                pin!(Some(after(&io, 0, 1))),
                IoOrder::Last,
                pin!(None::<core::future::Ready<()>>),
                pin!(Some(after(&job, 0, ()))),
                pin!(None::<NoFlush>),
            ),
            1,
        );
        assert_eq!(raced.map(|raced| raced.woken), Some(Woken::Job));

        let (io, timer) = (Cell::new(0), Cell::new(0));
        let raced = poll_up_to(
            race(
                pin!(Some(after(&io, 0, 1))),
                IoOrder::First,
                pin!(Some(after(&timer, 0, ()))),
                pin!(None::<core::future::Ready<()>>),
                pin!(None::<NoFlush>),
            ),
            1,
        );
        assert_eq!(raced.map(|raced| raced.woken), Some(Woken::Io(1)));
        assert_eq!(timer.get(), 0, "ready output goes first");
    }

    #[test]
    fn blocked_output_lets_a_job_in() {
        let (io, job) = (Cell::new(0), Cell::new(0));
        let raced = poll_up_to(
            race(
                pin!(Some(after(&io, 10, 1))),
                IoOrder::First,
                pin!(None::<core::future::Ready<()>>),
                pin!(Some(after(&job, 1, ()))),
                pin!(None::<NoFlush>),
            ),
            10,
        );
        assert_eq!(raced, Some(Raced { woken: Woken::Job, waited: true, flushed: false }));
        assert_eq!(io.get(), 2);
    }

    #[test]
    fn nothing_to_wait_for_never_completes() {
        let flush = Cell::new(0);
        let raced = poll_up_to(
            race(
                pin!(None::<core::future::Ready<()>>),
                IoOrder::Last,
                pin!(None::<core::future::Ready<()>>),
                pin!(None::<core::future::Ready<()>>),
                pin!(Some(after(&flush, 0, Ok::<(), ()>(())))),
            ),
            5,
        );
        assert!(raced.is_none());
        assert_eq!(flush.get(), 1, "flushed once before sleeping");
    }

    #[test]
    fn a_write_that_is_not_ready_at_once_stops_the_race_when_asked() {
        let (write, read) = (Cell::new(0), Cell::new(0));
        let no_timer = None::<core::future::Ready<()>>;
        let no_job = None::<core::future::Ready<()>>;
        let raced = poll_up_to(
            race_write(pin!(after(&write, 1, 5)), pin!(Some(after(&read, 0, 7))), pin!(no_timer), pin!(no_job), true),
            1,
        );
        assert_eq!(raced, Some((Drain::<u32, u32>::Blocked, false)));
        assert_eq!(read.get(), 0, "the read is not polled: the caller has no room for it yet");

        let (write, job) = (Cell::new(0), Cell::new(0));
        let no_timer = None::<core::future::Ready<()>>;
        let no_read = None::<core::future::Ready<()>>;
        let raced = poll_up_to(
            race_write(pin!(after(&write, 1, 5)), pin!(no_read), pin!(no_timer), pin!(Some(after(&job, 0, ()))), true),
            1,
        );
        assert_eq!(raced, Some((Drain::Job, false)), "a ready job still gets in while the write waits");
    }

    #[test]
    fn a_blocked_write_goes_first_but_lets_a_read_in() {
        let (write, read) = (Cell::new(0), Cell::new(0));
        let no_timer = None::<core::future::Ready<()>>;
        let no_job = None::<core::future::Ready<()>>;
        let raced = poll_up_to(
            race_write(pin!(after(&write, 0, 5)), pin!(Some(after(&read, 0, 7))), pin!(no_timer), pin!(no_job), false),
            1,
        );
        assert_eq!(raced, Some((Drain::Written(5), false)), "a ready write wins over a ready read");
        assert_eq!(read.get(), 0);

        let (write, read, timer) = (Cell::new(0), Cell::new(0), Cell::new(0));
        let no_job = None::<core::future::Ready<()>>;
        let raced = poll_up_to(
            race_write(
                pin!(after(&write, 10, 5)),
                pin!(Some(after(&read, 1, 7))),
                pin!(Some(after(&timer, 10, ()))),
                pin!(no_job),
                false,
            ),
            10,
        );
        assert_eq!(raced, Some((Drain::Read(7), true)));
        assert_eq!((write.get(), timer.get()), (2, 2), "the write and the timer were polled before the read");
    }

    #[test]
    fn yield_now_is_pending_exactly_once() {
        assert_eq!(poll_up_to(yield_now(), 1), None);
        assert_eq!(poll_up_to(yield_now(), 2), Some(()));
    }
}
