//! The endpoint's shards ([`McpHttp::sharded`]): each has its own handler, its own stateless
//! 2026-07-28 engine and its part of the legacy sessions, under a lock of its own, so that
//! requests of different shards run at once, handler included.
//!
//! - A legacy session lives in one shard for its life: the first byte of its id names it (modulo
//!   the number of shards), and new sessions go to the shards in turn, so that a few busy
//!   sessions do not meet in one.
//! - A stateless request goes to the first shard no other request holds (in turn from a
//!   different one each time), or waits for one when all are busy; a request about a task goes to
//!   the shard whose engine holds the task.
//! - A stateless stream's id carries its shard's number in its top 8 bits (as a shared session's
//!   carries its replica's), so that a response closed early cancels its request in the right
//!   engine.
//!
//! Locks are never nested: a request holds one shard's at a time.

use std::sync::atomic::Ordering;
use std::sync::{MutexGuard, TryLockError};

use mcp_sansio::endpoint::StreamId;
use mcp_sansio::http::{self as rules, SessionId};
use mcp_sansio::jsonrpc::ParsedMessage;
use mcp_sansio::server::tasks::named_task;
use mcp_sansio::time::Instant;

use super::{Inner, State};
use crate::state::REPLICA_SHIFT;

/// Most shards of an endpoint: their numbers take the top 8 bits of a stateless stream's id.
pub const MAX_SHARDS: usize = 256;

impl<H> Inner<H> {
    /// How many shards the endpoint has.
    pub(crate) fn shard_count(&self) -> usize {
        self.shards.len()
    }

    /// Locks shard `index`.
    pub(crate) fn shard(&self, index: usize) -> MutexGuard<'_, State<H>> {
        // A handler that panicked left the state as consistent as the engine keeps it.
        self.shards[index].lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The shard of session `id`.
    pub(crate) fn shard_of(&self, id: SessionId) -> usize {
        let count = self.shard_count();
        if count == 1 {
            return 0;
        }
        let hex = id.as_str().as_bytes();
        let digit = |b: u8| if b.is_ascii_digit() { b - b'0' } else { b.wrapping_sub(b'a') + 10 };
        usize::from(digit(hex[0]) << 4 | digit(hex[1])) % count
    }

    /// Locks the shard of session `id`.
    pub(crate) fn session_shard(&self, id: SessionId) -> MutexGuard<'_, State<H>> {
        self.shard(self.shard_of(id))
    }

    /// Locks a shard for a stateless request: the first free one from the next in turn, or (all
    /// busy) that one when it is free.
    pub(crate) fn free_shard(&self) -> MutexGuard<'_, State<H>> {
        let count = self.shard_count();
        if count == 1 {
            return self.shard(0);
        }
        let first = self.next_shard.fetch_add(1, Ordering::Relaxed) % count;
        for step in 0..count {
            match self.shards[(first + step) % count].try_lock() {
                Ok(guard) => return guard,
                Err(TryLockError::Poisoned(poisoned)) => return poisoned.into_inner(),
                Err(TryLockError::WouldBlock) => {}
            }
        }
        self.shard(first)
    }

    /// A new session id (from the OS's secure generator), naming the next shard in turn: the first
    /// of its random bytes is moved to the nearest value that names it. `None` if the generator
    /// failed.
    pub(crate) fn new_session_id(&self) -> Option<SessionId> {
        let mut random = [0u8; rules::SESSION_ID_RANDOM_BYTES];
        getrandom::fill(&mut random).ok()?;
        let count = self.shard_count();
        if count > 1 {
            let shard = self.next_session.fetch_add(1, Ordering::Relaxed) % count;
            let byte = usize::from(random[0]);
            let mut named = byte - byte % count + shard;
            if named > usize::from(u8::MAX) {
                named -= count;
            }
            random[0] = u8::try_from(named).unwrap_or(random[0]);
        }
        Some(SessionId::from_random(random))
    }

    /// The shard of stateless stream `stream`.
    pub(crate) fn stream_shard(&self, stream: StreamId) -> usize {
        match self.shard_count() {
            1 => 0,
            count => usize::try_from(stream.0 >> REPLICA_SHIFT).map_or(0, |shard| shard.min(count - 1)),
        }
    }

    /// For a stateless request about a task (`tasks/get`, `tasks/update`, `tasks/cancel` naming a
    /// `taskId`): the locked shard whose engine holds the task for `owner`, if one does. `Err`:
    /// the request is not about a task.
    pub(crate) fn task_shard(
        &self,
        body: &ParsedMessage<'_>,
        owner: u64,
        now: Instant,
    ) -> Result<Option<MutexGuard<'_, State<H>>>, NotAboutATask> {
        let Some(task) = task_of(body) else { return Err(NotAboutATask) };
        let task = task.as_str();
        for index in 0..self.shard_count() {
            let mut guard = self.shard(index);
            let Some(tasks) = guard.stateless.get().task_table() else { return Ok(None) };
            tasks.set_owner(owner);
            if tasks.contains(now, task) {
                return Ok(Some(guard));
            }
        }
        Ok(None)
    }
}

/// The task a `tasks/get`, `tasks/update` or `tasks/cancel` request names, if `body` is one.
pub(crate) fn task_of(body: &ParsedMessage<'_>) -> Option<String> {
    match body.message() {
        Some(Ok(message)) => named_task(&message).map(str::to_owned),
        _ => None,
    }
}

/// A request that is not about one task ([`Inner::task_shard`]).
#[derive(Debug)]
pub(crate) struct NotAboutATask;

#[cfg(test)]
mod tests {
    use mcp_sansio::mcp::ServerCapabilities;
    use mcp_sansio::server::{Config, Handler};

    use crate::{HttpConfig, McpHttp};

    struct Nothing;
    impl Handler for Nothing {
        fn capabilities(&self) -> ServerCapabilities {
            ServerCapabilities::NONE
        }
    }

    fn endpoint(shards: usize) -> McpHttp<Nothing> {
        let config = HttpConfig::new(Config::new("t", "1"), "127.0.0.1:0".parse().unwrap());
        McpHttp::sharded(|| Nothing, shards, config)
    }

    #[test]
    fn new_sessions_go_to_the_shards_in_turn_and_their_ids_name_them() {
        for shards in [1, 2, 3, 7, 16, 255, 256] {
            let inner = &endpoint(shards).inner;
            let named: Vec<usize> = (0..2 * shards).map(|_| inner.shard_of(inner.new_session_id().unwrap())).collect();
            let expected: Vec<usize> = (0..2 * shards).map(|i| i % shards).collect();
            assert_eq!(named, expected, "{shards} shards");
        }
        // An id another server (or replica) minted names a shard too.
        let inner = &endpoint(3).inner;
        let foreign = mcp_sansio::http::SessionId::from_random([0xff; 16]);
        assert_eq!(inner.shard_of(foreign), 0xff % 3);
    }

    #[test]
    fn a_stateless_stream_names_its_shard_and_a_free_shard_is_taken_before_a_busy_one() {
        let endpoint = endpoint(3);
        let inner = &endpoint.inner;
        for index in 0..3 {
            let route = inner.shard(index).stateless_streams.open(mcp_sansio::endpoint::Framing::Body);
            assert_eq!(inner.stream_shard(route.stream), index);
        }
        let busy = inner.shard(1);
        let taken: Vec<usize> = (0..6).map(|_| inner.free_shard().index).collect();
        assert!(!taken.contains(&1), "{taken:?}");
        drop(busy);
        assert_eq!(endpoint.shard_count(), 3);
        assert_eq!(crate::McpHttp::sharded(|| Nothing, 0, endpoint.config().clone()).shard_count(), 1);
    }
}
