//! The request-head deadline of a connection ([`HttpConfig::header_read_timeout`]), kept here
//! rather than by hyper's `header_read_timeout`.
//!
//! hyper's own deadline costs every request a new boxed timer, registered in the runtime's timer
//! wheel while the head is awaited and taken out of it once the head is in, and one more round of
//! its connection loop after each response (to start the next head's timer). Here a connection
//! keeps one tokio timer: the deadline of each head only moves it later (`Sleep::reset` to a later
//! instant, while it is registered, is an atomic store; the wheel re-files it when the old instant
//! comes), and it is started by the connection's next use of its socket after a response, which
//! hyper always makes (the flush of the response's last bytes).
//!
//! The deadline runs from the connection's start, and from the end of each response (hyper drops
//! the body after its last frame), until the service is called with the next request: the time a
//! client has to send a request head, also between requests on a kept-alive connection, as with
//! hyper's. A read that waits past it fails, and hyper closes the connection without an answer, as
//! after its own head timeout. A request being served has no deadline: its body has its own
//! ([`HttpConfig::body_read_timeout`]), and its response takes the time it takes.
//!
//! [`HttpConfig::header_read_timeout`]: crate::HttpConfig::header_read_timeout
//! [`HttpConfig::body_read_timeout`]: crate::HttpConfig::body_read_timeout

use std::future::Future as _;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::Sleep;

/// The connection awaits a request head; its deadline starts at the next use of the socket.
const AWAIT: u8 = 0;
/// The connection awaits a request head, and its deadline runs.
const AWAITING: u8 = 1;
/// A request is being served (from the service's call to the end of its response).
const SERVING: u8 = 2;

/// Where a connection is between its requests, shared by its socket ([`HeadTimed`]), its service
/// (which starts a request) and its responses' bodies ([`ResponseEnd`]).
#[derive(Debug)]
pub(crate) struct HeadClock {
    phase: AtomicU8,
}

impl HeadClock {
    pub(crate) fn new() -> Arc<Self> {
        Arc::new(HeadClock { phase: AtomicU8::new(AWAIT) })
    }

    /// The service was called: a request head is in.
    pub(crate) fn request_started(&self) {
        self.phase.store(SERVING, Ordering::Relaxed);
    }

    /// The response ended: the next head is awaited.
    fn response_ended(&self) {
        self.phase.store(AWAIT, Ordering::Relaxed);
    }
}

/// Tells its connection's [`HeadClock`] that the response ended when dropped (with the response's
/// body: hyper drops it after its last frame, or when the connection ends).
#[derive(Debug, Default)]
pub(crate) struct ResponseEnd(pub(crate) Option<Arc<HeadClock>>);

impl Drop for ResponseEnd {
    fn drop(&mut self) {
        if let Some(clock) = &self.0 {
            clock.response_ended();
        }
    }
}

/// A connection's socket whose reads fail once a request head is awaited for longer than
/// `timeout` (see the module).
pub(crate) struct HeadTimed<T> {
    io: T,
    clock: Arc<HeadClock>,
    timeout: Duration,
    /// The connection's one timer, made at its first deadline.
    deadline: Option<Pin<Box<Sleep>>>,
}

impl<T> HeadTimed<T> {
    pub(crate) fn new(io: T, clock: Arc<HeadClock>, timeout: Duration) -> Self {
        HeadTimed { io, clock, timeout, deadline: None }
    }

    /// Starts the deadline of the awaited head if it has not started. A timer not registered in
    /// the wheel (new, or fired) is registered with the connection's task, so that an idle
    /// connection is woken when its deadline passes; a registered one keeps its registration.
    #[inline]
    fn start_deadline(&mut self, cx: &mut Context<'_>) {
        if self.clock.phase.load(Ordering::Relaxed) == AWAIT {
            self.start_deadline_now(cx);
        }
    }

    #[inline(never)]
    fn start_deadline_now(&mut self, cx: &mut Context<'_>) {
        self.clock.phase.store(AWAITING, Ordering::Relaxed);
        let at = tokio::time::Instant::now() + self.timeout;
        let timer = match &mut self.deadline {
            Some(timer) => {
                let registered = !timer.is_elapsed();
                timer.as_mut().reset(at);
                if registered {
                    return;
                }
                timer
            }
            None => self.deadline.insert(Box::pin(tokio::time::sleep_until(at))),
        };
        // Pending: the timeout is not zero (and if it is, the next read that waits fails).
        let _ = timer.as_mut().poll(cx);
    }

    /// Whether the awaited head's deadline has passed (its timer fired).
    fn expired(&self) -> bool {
        self.clock.phase.load(Ordering::Relaxed) == AWAITING && self.deadline.as_ref().is_some_and(|t| t.is_elapsed())
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for HeadTimed<T> {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let this = &mut *self;
        this.start_deadline(cx);
        match Pin::new(&mut this.io).poll_read(cx, buf) {
            Poll::Pending if this.expired() => {
                Poll::Ready(Err(io::Error::new(io::ErrorKind::TimedOut, "request head not received in time")))
            }
            other => other,
        }
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for HeadTimed<T> {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        self.start_deadline(cx);
        Pin::new(&mut self.io).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.start_deadline(cx);
        Pin::new(&mut self.io).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.start_deadline(cx);
        Pin::new(&mut self.io).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }
}
