//! A ready-made [`Jobs`] source fed from any task or thread, under any executor (feature `std`).
//!
//! The connection is owned by the task that drives it, so other tasks cannot touch it directly.
//! Instead they send a job through a [`JobSender`]; the driving loop runs it against the connection
//! and then writes whatever it produced. The queue does not know what the job does (typically:
//! answer a request the application deferred). A job that finds the transmit buffer full returns
//! [`JobStatus::Retry`] and is run again once output was written: see the [jobs
//! contract](crate#jobs).
//!
//! # Design
//!
//! A `std::sync::Mutex<VecDeque>` of boxed jobs and the stored [`Waker`] of the waiting loop,
//! shared through an [`Arc`]. The lock is held only to push or pop one job (never while a job runs
//! or a waker is woken), so it is uncontended in practice and never spins. This needs `std` (there
//! is no blocking lock in `core` or `alloc`, and a spin lock would be wrong on a preemptive OS), but
//! nothing else: no crate is added to the dependency tree, and it works the same under tokio,
//! smol, async-std or any other executor. A channel crate (`async-channel`, tokio's `mpsc`) would
//! do the same job with several more crates, or tie the queue to one runtime. Firmware without
//! `std` writes its own [`Jobs`] over a `Signal` or a channel of its executor.

use std::boxed::Box;
use std::collections::VecDeque;
use std::fmt;
use std::future::poll_fn;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Poll, Waker};

use mcp_sansio::time::Instant;

use crate::jobs::{JobStatus, Jobs};

/// Work to run on the driving task: receives the connection and the current time, and reports
/// whether it is [done](JobStatus::Done) or must be [retried](JobStatus::Retry) after the next
/// drain.
pub type BoxedJob<C> = Box<dyn FnMut(&mut C, Instant) -> JobStatus + Send>;

/// What the senders and the queue share.
struct State<C> {
    jobs: VecDeque<BoxedJob<C>>,
    /// The waker of the loop's last pending [`Jobs::ready`].
    waker: Option<Waker>,
    /// The [`JobQueue`] was dropped: nothing will run any more.
    stopped: bool,
}

type Shared<C> = Arc<Mutex<State<C>>>;

/// Locks `shared`. No code runs under the lock but queue operations, so a poisoned lock (a panic
/// elsewhere in the holder's thread) still holds a consistent queue.
fn lock<C>(shared: &Shared<C>) -> MutexGuard<'_, State<C>> {
    shared.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Creates a linked pair: give the [`JobQueue`] to the loop ([`run_with_jobs`](crate::run_with_jobs),
/// or an adapter's `run_with_jobs` / `serve_stdio_with_jobs`) and clone the [`JobSender`] into every
/// task or thread that may finish work later.
///
/// The queue is unbounded: each pending job is one allocation (and the queue's storage grows to
/// the most jobs pending at once); the application decides how many jobs it defers.
pub fn job_queue<C>() -> (JobSender<C>, JobQueue<C>) {
    let shared = Arc::new(Mutex::new(State { jobs: VecDeque::new(), waker: None, stopped: false }));
    (JobSender { shared: shared.clone() }, JobQueue { shared, next: None })
}

/// A cloneable, `Send + Sync` handle that queues jobs to run against the connection on the task
/// that drives it.
pub struct JobSender<C> {
    shared: Shared<C>,
}

impl<C> JobSender<C> {
    /// Queues `job`, which always finishes: the driving loop runs it once, with the connection and
    /// the current time, then writes what it produced. Jobs run in the order they were queued.
    /// Never blocks on the loop, so it can be called from synchronous code too.
    ///
    /// Fails with [`DriverStopped`] when the [`JobQueue`] is gone (the driving loop returned: the
    /// connection finished or hit an IO error); `job` is then dropped without running.
    pub fn complete<F>(&self, job: F) -> Result<(), DriverStopped>
    where
        F: FnOnce(&mut C, Instant) + Send + 'static,
    {
        let mut job = Some(job);
        self.submit(move |conn: &mut C, now| {
            if let Some(job) = job.take() {
                job(conn, now);
            }
            JobStatus::Done
        })
    }

    /// Queues `job`, which may return [`JobStatus::Retry`] when it cannot run yet; it then runs
    /// again as the [jobs contract](crate#jobs) says. Otherwise like [`JobSender::complete`].
    pub fn submit<F>(&self, job: F) -> Result<(), DriverStopped>
    where
        F: FnMut(&mut C, Instant) -> JobStatus + Send + 'static,
    {
        let job: BoxedJob<C> = Box::new(job);
        let mut state = lock(&self.shared);
        if state.stopped {
            drop(state);
            drop(job); // Outside the lock: dropping it may drop other senders.
            return Err(DriverStopped);
        }
        state.jobs.push_back(job);
        let waker = state.waker.take();
        drop(state);
        if let Some(waker) = waker {
            waker.wake();
        }
        Ok(())
    }

    /// `true` once the [`JobQueue`] is gone: further jobs would be dropped.
    pub fn is_stopped(&self) -> bool {
        lock(&self.shared).stopped
    }
}

impl<C> Clone for JobSender<C> {
    fn clone(&self) -> Self {
        JobSender { shared: self.shared.clone() }
    }
}

impl<C> fmt::Debug for JobSender<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JobSender").field("stopped", &self.is_stopped()).finish()
    }
}

/// The receiving end of [`job_queue`], consumed by the driving loop: its [`Jobs`] source.
///
/// Dropping it (the loop returned) stops the senders; jobs still queued are dropped without running
/// (including one waiting to be retried). Once every [`JobSender`] is gone, [`Jobs::ready`] never
/// completes again, and the loop goes on without jobs.
pub struct JobQueue<C> {
    shared: Shared<C>,
    /// The job `ready` received, or the one that asked to be retried: run first.
    next: Option<BoxedJob<C>>,
}

impl<C> Jobs<C> for JobQueue<C> {
    async fn ready(&mut self) {
        poll_fn(|cx| {
            if self.next.is_some() {
                return Poll::Ready(());
            }
            let mut state = lock(&self.shared);
            match state.jobs.pop_front() {
                // Kept in the same poll that received it: dropping this future loses nothing.
                Some(job) => {
                    drop(state);
                    self.next = Some(job);
                    Poll::Ready(())
                }
                None => {
                    match &mut state.waker {
                        Some(waker) => waker.clone_from(cx.waker()),
                        waker @ None => *waker = Some(cx.waker().clone()),
                    }
                    Poll::Pending
                }
            }
        })
        .await
    }

    fn run(&mut self, conn: &mut C, now: Instant) -> JobStatus {
        let Some(mut job) = self.next.take() else {
            return JobStatus::Done;
        };
        let status = job(conn, now);
        if status == JobStatus::Retry {
            self.next = Some(job);
        }
        status
    }
}

impl<C> Drop for JobQueue<C> {
    fn drop(&mut self) {
        let mut state = lock(&self.shared);
        state.stopped = true;
        state.waker = None;
        let jobs = core::mem::take(&mut state.jobs);
        drop(state);
        // Outside the lock: a job may hold a sender, whose drop must not wait for it.
        drop(jobs);
    }
}

impl<C> fmt::Debug for JobQueue<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let queued = lock(&self.shared).jobs.len() + usize::from(self.next.is_some());
        f.debug_struct("JobQueue").field("queued", &queued).finish()
    }
}

/// Returned by [`JobSender::complete`] and [`JobSender::submit`] when the driving loop has already
/// returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DriverStopped;

impl fmt::Display for DriverStopped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the connection's driving loop has stopped")
    }
}

impl core::error::Error for DriverStopped {}

#[cfg(test)]
mod tests {
    use std::future::Future;
    use std::pin::pin;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::task::{Context, Wake};
    use std::vec::Vec;

    use super::*;

    fn assert_send_sync_clone<T: Send + Sync + Clone>() {}

    /// Polls `ready` once.
    fn ready_now<C>(queue: &mut JobQueue<C>, waker: &Waker) -> bool {
        let mut cx = Context::from_waker(waker);
        pin!(queue.ready()).poll(&mut cx).is_ready()
    }

    #[test]
    fn sender_is_send_sync_and_clone_for_any_connection_type() {
        // `*const u8` is neither `Send` nor `Sync`: the handle must not depend on the connection's.
        assert_send_sync_clone::<JobSender<*const u8>>();
    }

    #[test]
    fn complete_fails_once_the_queue_is_gone() {
        let (sender, queue) = job_queue::<u32>();
        assert!(!sender.is_stopped());
        sender.complete(|value, _| *value += 1).unwrap();
        drop(queue);
        assert!(sender.is_stopped());
        assert_eq!(sender.complete(|value, _| *value += 1), Err(DriverStopped));
    }

    #[test]
    fn a_retried_job_stays_first_in_line_until_it_is_done() {
        let (sender, mut queue) = job_queue::<Vec<&'static str>>();
        let mut attempts = 0;
        sender
            .submit(move |log: &mut Vec<&'static str>, _| {
                attempts += 1;
                log.push("first");
                if attempts < 3 { JobStatus::Retry } else { JobStatus::Done }
            })
            .unwrap();
        sender.complete(|log, _| log.push("second")).unwrap();
        let mut log = Vec::new();
        let mut statuses = Vec::new();
        for _ in 0..4 {
            assert!(ready_now(&mut queue, Waker::noop()));
            statuses.push(queue.run(&mut log, Instant::ZERO));
        }
        assert_eq!(log, ["first", "first", "first", "second"]);
        assert_eq!(statuses, [JobStatus::Retry, JobStatus::Retry, JobStatus::Done, JobStatus::Done]);
        assert_eq!(queue.run(&mut log, Instant::ZERO), JobStatus::Done, "nothing left: nothing runs");
        assert_eq!(log.len(), 4);
    }

    struct CountingWaker(AtomicUsize);

    impl Wake for CountingWaker {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    #[test]
    fn a_job_sent_from_another_thread_wakes_the_waiting_loop() {
        let (sender, mut queue) = job_queue::<u32>();
        let counter = Arc::new(CountingWaker(AtomicUsize::new(0)));
        let waker = Waker::from(counter.clone());
        assert!(!ready_now(&mut queue, &waker), "nothing queued yet");
        std::thread::spawn(move || sender.complete(|value, _| *value += 1).unwrap()).join().unwrap();
        assert_eq!(counter.0.load(Ordering::SeqCst), 1, "woken once");
        assert!(ready_now(&mut queue, &waker));
        let mut value = 0;
        assert_eq!(queue.run(&mut value, Instant::ZERO), JobStatus::Done);
        assert_eq!(value, 1);
        // Every sender is gone: nothing more can arrive, and `ready` stays pending.
        assert!(!ready_now(&mut queue, &waker));
    }

    #[test]
    fn jobs_left_in_a_dropped_queue_are_dropped_without_running() {
        let (sender, queue) = job_queue::<u32>();
        let marker = Arc::new(());
        let held = marker.clone();
        sender.complete(move |_, _| drop(held)).unwrap();
        assert_eq!(Arc::strong_count(&marker), 2);
        drop(queue);
        assert_eq!(Arc::strong_count(&marker), 1, "dropped with the queue, not with the last sender");
    }
}
