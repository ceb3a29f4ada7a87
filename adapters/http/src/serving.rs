//! Which of an endpoint's engines serves the request being handled on this thread, so that an
//! application that defers a request ([`ToolReply::defer`](mcp_sansio::server::ToolReply::defer))
//! knows where to answer it later ([`McpHttp::with_engine`](crate::McpHttp::with_engine)). The
//! endpoint calls the application's handler only under its shard's lock, on the thread that
//! handles the HTTP request, so the answer is exact while the handler runs.

use std::cell::Cell;

use mcp_sansio::http::SessionId;

thread_local! {
    static SERVING: Cell<Option<Serving>> = const { Cell::new(None) };
}

/// One engine of an endpoint: a stateless 2026-07-28 engine, or a legacy session's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Serving {
    /// The engine that serves 2026-07-28 requests in this shard (0 in an endpoint of one shard;
    /// see [`McpHttp::sharded`](crate::McpHttp::sharded)).
    Stateless(usize),
    /// The engine of this legacy session.
    Session(SessionId),
}

impl Serving {
    /// The legacy session of this engine, if it is one's.
    pub fn session(self) -> Option<SessionId> {
        match self {
            Serving::Stateless(_) => None,
            Serving::Session(id) => Some(id),
        }
    }
}

impl From<SessionId> for Serving {
    fn from(id: SessionId) -> Self {
        Serving::Session(id)
    }
}

/// The engine whose handler call is running on this thread (`None` outside one).
///
/// ```no_run
/// # use mcp_sansio::server::{ToolCall, ToolReply};
/// fn call_tool(call: ToolCall<'_>, reply: ToolReply<'_>) {
///     let engine = mcp_sansio_http::serving(); // remember it with the deferred handle
///     let deferred = reply.defer();
///     // … later, that engine: endpoint.with_engine(engine, |engine, app| …)
/// }
/// ```
pub fn serving() -> Option<Serving> {
    SERVING.with(Cell::get)
}

/// Marks `engine` as serving until dropped (then the previous mark is back).
pub(crate) struct Marked(Option<Serving>);

/// Marks `engine` as the one serving on this thread while the returned guard lives.
pub(crate) fn mark(engine: Serving) -> Marked {
    Marked(SERVING.with(|serving| serving.replace(Some(engine))))
}

impl Drop for Marked {
    fn drop(&mut self) {
        SERVING.with(|serving| serving.set(self.0));
    }
}
