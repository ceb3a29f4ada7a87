//! Accepting connections: hyper HTTP/1.1 with the configured timeouts, `TCP_NODELAY`, and graceful
//! shutdown.

use std::future::Future;
use std::io;

use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use mcp_sansio::server::Handler;
use tokio::net::TcpListener;

use crate::McpHttp;
#[cfg(unix)]
use crate::spin::SpinningStream;

/// Serves `endpoint` on `listener` until `shutdown` completes; then ends open streams and gives
/// connections [`HttpConfig::shutdown_grace`](crate::HttpConfig::shutdown_grace) to finish.
/// Spawns one task per connection on the current runtime.
pub async fn serve<H: Handler + Send + 'static>(
    listener: TcpListener,
    endpoint: McpHttp<H>,
    shutdown: impl Future<Output = ()>,
) -> io::Result<()> {
    let graceful = GracefulShutdown::new();
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
        builder
            .timer(TokioTimer::new())
            .header_read_timeout(config.header_read_timeout)
            .max_buf_size(config.max_header_bytes.max(8192));
        #[cfg(unix)]
        if !config.spin_before_wait.is_zero() {
            let stream = SpinningStream::new(stream, config.spin_before_wait);
            spawn_connection(&graceful, builder.serve_connection(TokioIo::new(stream), endpoint.clone()), peer);
            continue;
        }
        spawn_connection(&graceful, builder.serve_connection(TokioIo::new(stream), endpoint.clone()), peer);
    }
    endpoint.close_streams();
    let grace = endpoint.config().shutdown_grace;
    if tokio::time::timeout(grace, graceful.shutdown()).await.is_err() {
        tracing::debug!("connections still open after the shutdown grace period; dropped");
    }
    Ok(())
}

/// Runs one connection on its own task, watched for the graceful shutdown.
fn spawn_connection<C>(graceful: &GracefulShutdown, connection: C, peer: std::net::SocketAddr)
where
    C: hyper_util::server::graceful::GracefulConnection + Send + 'static,
    C::Error: std::fmt::Display + Send,
{
    let connection = graceful.watch(connection);
    tokio::spawn(async move {
        if let Err(error) = connection.await {
            tracing::debug!(%peer, %error, "connection ended with an error");
        }
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
