//! The response body: bytes handed over by the endpoint, as they come.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::Bytes;
use hyper::body::{Body, Frame, SizeHint};
use mcp_sansio::endpoint::StreamId;
use tokio::sync::mpsc;
use tokio::time::Interval;

use crate::head::ResponseEnd;

/// The body of every response of the endpoint: a whole JSON message, nothing, or an SSE stream fed
/// by the endpoint (ending when the endpoint ends the stream, or drops it).
pub struct ResponseBody {
    /// The first bytes (a whole message, or a stream's first event), held apart from `front` so a
    /// one-message body allocates no queue.
    first: Option<Bytes>,
    front: VecDeque<Bytes>,
    rx: Option<mpsc::Receiver<Bytes>>,
    keep_alive: Option<Interval>,
    on_abort: AbortGuard,
    /// Tells the connection, when hyper drops the body after its last frame, that the next request
    /// head is awaited (connections of [`serve`](crate::serve)).
    on_end: ResponseEnd,
}

/// What a response stream the client closed before its end calls: the endpoint, to cancel what its
/// stateless engine still owes the stream.
pub(crate) trait Abort: Send + Sync {
    fn abort(&self, stream: StreamId);
}

/// Runs its action when dropped armed: a response stream the client closed before its end.
#[derive(Default)]
pub(crate) struct AbortGuard(Option<(Arc<dyn Abort>, StreamId)>);

impl AbortGuard {
    /// Calls `endpoint.abort(stream)` if dropped armed (a clone of the endpoint's `Arc`, so no
    /// allocation).
    pub(crate) fn new(endpoint: Arc<dyn Abort>, stream: StreamId) -> Self {
        AbortGuard(Some((endpoint, stream)))
    }

    /// The stream ended as it should: nothing to do.
    pub(crate) fn disarm(&mut self) {
        self.0 = None;
    }
}

impl Drop for AbortGuard {
    fn drop(&mut self) {
        if let Some((endpoint, stream)) = self.0.take() {
            endpoint.abort(stream);
        }
    }
}

impl ResponseBody {
    pub(crate) fn empty() -> Self {
        ResponseBody {
            first: None,
            front: VecDeque::new(),
            rx: None,
            keep_alive: None,
            on_abort: AbortGuard::default(),
            on_end: ResponseEnd::default(),
        }
    }

    pub(crate) fn full(bytes: Bytes) -> Self {
        let mut body = Self::empty();
        if !bytes.is_empty() {
            body.first = Some(bytes);
        }
        body
    }

    /// A stream of `first` (if any), then `rest`, then what `rx` brings.
    pub(crate) fn stream(
        first: Option<Bytes>,
        rest: VecDeque<Bytes>,
        rx: Option<mpsc::Receiver<Bytes>>,
        keep_alive: Option<Interval>,
    ) -> Self {
        ResponseBody {
            first,
            front: rest,
            rx,
            keep_alive,
            on_abort: AbortGuard::default(),
            on_end: ResponseEnd::default(),
        }
    }

    /// Tells `end`'s connection when the body is dropped.
    pub(crate) fn set_end(&mut self, end: ResponseEnd) {
        self.on_end = end;
    }

    /// This body, running `guard`'s action if it is dropped before its end.
    pub(crate) fn with_abort_guard(mut self, guard: AbortGuard) -> Self {
        self.on_abort = guard;
        self
    }
}

/// An SSE comment: clients ignore it; it keeps proxies and idle timers from closing the stream.
const KEEP_ALIVE: &[u8] = b":\n\n";

impl Body for ResponseBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        let this = &mut *self;
        if let Some(bytes) = this.first.take().or_else(|| this.front.pop_front()) {
            return Poll::Ready(Some(Ok(Frame::data(bytes))));
        }
        let Some(rx) = this.rx.as_mut() else {
            this.on_abort.disarm();
            return Poll::Ready(None);
        };
        match rx.poll_recv(cx) {
            Poll::Ready(Some(bytes)) => Poll::Ready(Some(Ok(Frame::data(bytes)))),
            Poll::Ready(None) => {
                this.rx = None;
                this.on_abort.disarm();
                Poll::Ready(None)
            }
            Poll::Pending => match this.keep_alive.as_mut().map(|k| k.poll_tick(cx)) {
                Some(Poll::Ready(_)) => Poll::Ready(Some(Ok(Frame::data(Bytes::from_static(KEEP_ALIVE))))),
                _ => Poll::Pending,
            },
        }
    }

    fn is_end_stream(&self) -> bool {
        self.first.is_none() && self.front.is_empty() && self.rx.is_none()
    }

    fn size_hint(&self) -> SizeHint {
        match self.rx {
            Some(_) => SizeHint::default(),
            None => SizeHint::with_exact(self.first.iter().chain(&self.front).map(|b| b.len() as u64).sum()),
        }
    }
}
