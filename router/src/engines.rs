//! Where the router's jobs run: on the engine that holds a deferred request. That is the router's
//! own server (a byte stream: stdio, a child's pipes, a serial line), reached through its driver's
//! job queue ([`Router::into_server`](crate::Router::into_server)), or, with the `http` feature,
//! one engine of a Streamable HTTP endpoint ([`Router::into_http`](crate::Router::into_http)): the
//! stateless 2026-07-28 engine or the engine of the legacy session that sent the request, as the
//! endpoint says while the request is served ([`mcp_sansio_http::serving`]).

use std::sync::Arc;

use mcp_sansio::time::Instant;
use mcp_sansio_driver::{JobSender, JobStatus};

use crate::{BoxFuture, RouterServer};

/// Requests to the client awaiting answers at once, per engine (the core's `OUTBOUND`; the same
/// as `mcp_sansio_http::OUTBOUND`).
pub const OUTBOUND: usize = 4;

/// The engine every job of the router runs on: the router server's, and (the same type) each
/// engine of an HTTP endpoint.
pub type RouterEngine = mcp_sansio::server::Engine<'static, { crate::MAX_IN_FLIGHT }, OUTBOUND>;

/// The router's server and an HTTP endpoint's engines are one type, so one job serves both.
#[cfg(feature = "http")]
const _: fn(&mut mcp_sansio_http::HttpEngine) -> &mut RouterEngine = |engine| engine;

/// The engines of what the router became.
pub(crate) enum Engines {
    /// A byte-stream server, through its driver's job queue.
    Queue(JobSender<RouterServer>),
    /// A Streamable HTTP endpoint (held weakly: the endpoint holds the router's registry).
    #[cfg(feature = "http")]
    Http(mcp_sansio_http::WeakMcpHttp<mcp_sansio::server::Registry>),
}

impl Engines {
    /// The engine serving the request being handled now (call it from the handler).
    pub(crate) fn serving(&self, spawn: &Arc<dyn Fn(BoxFuture) + Send + Sync>) -> Target {
        #[cfg(not(feature = "http"))]
        let _ = spawn;
        match self {
            Engines::Queue(jobs) => Target::Queue(jobs.clone()),
            #[cfg(feature = "http")]
            Engines::Http(endpoint) => Target::Http {
                endpoint: endpoint.clone(),
                engine: mcp_sansio_http::serving().unwrap_or(mcp_sansio_http::Serving::Stateless(0)),
                spawn: spawn.clone(),
            },
        }
    }
}

/// One engine, to run jobs on. Cheap to clone.
#[derive(Clone)]
pub(crate) enum Target {
    Queue(JobSender<RouterServer>),
    #[cfg(feature = "http")]
    Http {
        endpoint: mcp_sansio_http::WeakMcpHttp<mcp_sansio::server::Registry>,
        engine: mcp_sansio_http::Serving,
        spawn: Arc<dyn Fn(BoxFuture) + Send + Sync>,
    },
}

impl Target {
    /// Runs `job` on the engine: from the driver's job queue (again while it returns
    /// [`JobStatus::Retry`], once output was written), or at once under the HTTP endpoint's lock
    /// (again once if it asks, after its output moved to the streams: an HTTP engine's transmit
    /// buffer is empty between calls). `false` if the engine is gone (the driver stopped, the
    /// endpoint dropped, the session ended).
    pub(crate) fn submit(&self, mut job: impl FnMut(&mut RouterEngine, Instant) -> JobStatus + Send + 'static) -> bool {
        match self {
            Target::Queue(jobs) => jobs.submit(move |server: &mut RouterServer, now| job(server, now)).is_ok(),
            #[cfg(feature = "http")]
            Target::Http { endpoint, engine, spawn } => {
                if mcp_sansio_http::serving().is_some() {
                    // Called from a handler, under the endpoint's lock: run it after.
                    let target = self.clone();
                    spawn(Box::pin(async move {
                        target.submit(job);
                    }));
                    return true;
                }
                let Some(endpoint) = endpoint.upgrade() else { return false };
                for _ in 0..2 {
                    let now = endpoint.now();
                    match endpoint.with_engine(*engine, |engine, _| job(engine, now)) {
                        Some(JobStatus::Retry) => continue,
                        Some(_) => return true,
                        None => return false,
                    }
                }
                true
            }
        }
    }
}
