//! Accepting connections: hyper HTTP/1.1 with the configured timeouts, `TCP_NODELAY`, and graceful
//! shutdown.

use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use mcp_sansio::server::Handler;
use tokio::net::TcpListener;
use tokio::sync::{Notify, watch};

use crate::head::{HeadClock, HeadTimed, ResponseEnd};
#[cfg(unix)]
use crate::spin::SpinningStream;
use crate::{McpHttp, ResponseBody};

/// Serves `endpoint` on `listener` until `shutdown` completes; then ends open streams and gives
/// connections [`HttpConfig::shutdown_grace`](crate::HttpConfig::shutdown_grace) to finish.
/// Spawns one task per connection on the current runtime.
pub async fn serve<H: Handler + Send + 'static>(
    listener: TcpListener,
    endpoint: McpHttp<H>,
    shutdown: impl Future<Output = ()>,
) -> io::Result<()> {
    let graceful = Graceful::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(error) => {
                    // Out of descriptors and the like: keep serving the connections there are.
                    tracing::warn!(%error, "accept failed");
                    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        if let Err(error) = stream.set_nodelay(true) {
            tracing::debug!(%error, "TCP_NODELAY not set");
        }
        let config = endpoint.config();
        let mut builder = http1::Builder::new();
        builder.max_buf_size(config.max_header_bytes.max(8192));
        #[cfg(unix)]
        if !config.spin_before_wait.is_zero() {
            // hyper's own head deadline: its read after each response (to start the next head's
            // timer) is where the spin happens.
            builder.timer(hyper_util::rt::TokioTimer::new()).header_read_timeout(config.header_read_timeout);
            let stream = SpinningStream::new(stream, config.spin_before_wait);
            spawn_connection(&graceful, builder.serve_connection(TokioIo::new(stream), endpoint.clone()), peer);
            continue;
        }
        let clock = HeadClock::new();
        let stream = HeadTimed::new(stream, Arc::clone(&clock), config.header_read_timeout);
        let service = Connection { endpoint: endpoint.clone(), clock };
        spawn_connection(&graceful, builder.serve_connection(TokioIo::new(stream), service), peer);
    }
    endpoint.close_streams();
    let grace = endpoint.config().shutdown_grace;
    if tokio::time::timeout(grace, graceful.shutdown()).await.is_err() {
        tracing::debug!("connections still open after the shutdown grace period; dropped");
    }
    Ok(())
}

/// The service of one connection: the endpoint, telling the connection's head deadline when a
/// request starts and when its response ends (see [`crate::head`]).
struct Connection<H> {
    endpoint: McpHttp<H>,
    clock: Arc<HeadClock>,
}

impl<H: Handler + Send + 'static> hyper::service::Service<Request<Incoming>> for Connection<H> {
    type Response = Response<ResponseBody>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Infallible>> + Send>>;

    fn call(&self, request: Request<Incoming>) -> Self::Future {
        self.clock.request_started();
        let end = ResponseEnd(Some(Arc::clone(&self.clock)));
        Box::pin(self.endpoint.clone().answer(request, end))
    }
}

/// The graceful shutdown of the connections: each connection's task is told to finish its
/// request and close (hyper's `graceful_shutdown`), and the server waits until they have.
///
/// As `hyper_util`'s `GracefulShutdown`, but its connections do not poll a `watch` channel's
/// `changed()` at every poll of the connection: each registers its task once with a [`Notify`],
/// and reads a flag.
struct Graceful {
    shared: Arc<Shutdown>,
    /// One receiver per connection, dropped when it ends: `closed()` when none is left.
    alive: watch::Sender<()>,
}

struct Shutdown {
    started: AtomicBool,
    notify: Notify,
}

impl Graceful {
    fn new() -> Self {
        let shared = Arc::new(Shutdown { started: AtomicBool::new(false), notify: Notify::new() });
        Graceful { shared, alive: watch::channel(()).0 }
    }

    /// Tells every connection to finish, and completes once they have.
    async fn shutdown(self) {
        self.shared.started.store(true, Ordering::Release);
        self.shared.notify.notify_waiters();
        self.alive.closed().await;
    }
}

/// Runs one connection on its own task, watched for the graceful shutdown.
fn spawn_connection<C>(graceful: &Graceful, connection: C, peer: std::net::SocketAddr)
where
    C: hyper_util::server::graceful::GracefulConnection + Send + 'static,
    C::Error: std::fmt::Display + Send,
{
    let shared = Arc::clone(&graceful.shared);
    let alive = graceful.alive.subscribe();
    tokio::spawn(async move {
        let mut connection = std::pin::pin!(connection);
        // Created before the flag is first read: a later `notify_waiters` reaches it.
        let mut notified = std::pin::pin!(shared.notify.notified());
        let (mut listening, mut finishing) = (false, false);
        let ended = std::future::poll_fn(|cx| {
            if !finishing {
                if !listening {
                    // Once: the task's waker stays registered (it is the same at every poll).
                    let _ = notified.as_mut().poll(cx);
                    listening = true;
                }
                if shared.started.load(Ordering::Acquire) {
                    connection.as_mut().graceful_shutdown();
                    finishing = true;
                }
            }
            connection.as_mut().poll(cx)
        })
        .await;
        if let Err(error) = ended {
            tracing::debug!(%peer, %error, "connection ended with an error");
        }
        drop(alive);
    });
}

/// Completes on SIGINT (Ctrl-C) or, on Unix, SIGTERM.
pub async fn shutdown_signal() {
    let interrupt = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = interrupt => {},
        () = terminate => {},
    }
}
