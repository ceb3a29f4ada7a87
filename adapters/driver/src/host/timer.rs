//! [`HostConnection`]: the client engine with its [`Host`], as the connection a transport drives,
//! and the host's timers: futures that wait for an instant (the pause between two polls of a
//! task) are woken by the connection's own deadline, so they need no runtime's timer and work
//! under every transport and executor alike.

use std::collections::BTreeMap;
use std::ops::{Deref, DerefMut};

use mcp_sansio::client::Client;
use mcp_sansio::connection::Connection;
use mcp_sansio::time::Instant;

use super::MAX_IN_FLIGHT;
use super::app::{Answer, Host};
use super::oneshot::Sender;

/// A timer: its instant, and a number that tells apart timers of one instant.
pub(crate) type TimerId = (Instant, u64);

/// The futures waiting for an instant, woken in order.
#[derive(Default)]
pub(crate) struct Timers {
    waiting: BTreeMap<TimerId, Sender<Answer>>,
    next: u64,
}

impl Timers {
    /// Wakes `waiter` (with an empty `Ok`) once `at` has come.
    pub(crate) fn add(&mut self, at: Instant, waiter: Sender<Answer>) -> TimerId {
        let id = (at, self.next);
        self.next = self.next.wrapping_add(1);
        self.waiting.insert(id, waiter);
        id
    }

    /// Takes the timer `id` away, if it has not fired.
    pub(crate) fn remove(&mut self, id: TimerId) -> Option<Sender<Answer>> {
        self.waiting.remove(&id)
    }

    fn next_deadline(&self) -> Option<Instant> {
        self.waiting.first_key_value().map(|((at, _), _)| *at)
    }

    fn fire(&mut self, now: Instant) {
        while let Some(entry) = self.waiting.first_entry().filter(|entry| entry.key().0 <= now) {
            entry.remove().send(Ok(std::vec::Vec::new()));
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.waiting.len()
    }
}

/// The connection a transport drives: the client engine with its [`Host`] (it derefs to the
/// [`Client`]), whose deadline ([`Connection::poll_timeout`]) is the earlier of the engine's
/// and the host's timers'.
pub struct HostConnection {
    client: Client<'static, Host, MAX_IN_FLIGHT>,
}

impl HostConnection {
    pub(crate) fn new(client: Client<'static, Host, MAX_IN_FLIGHT>) -> Self {
        HostConnection { client }
    }
}

impl Deref for HostConnection {
    type Target = Client<'static, Host, MAX_IN_FLIGHT>;

    fn deref(&self) -> &Self::Target {
        &self.client
    }
}

impl DerefMut for HostConnection {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.client
    }
}

impl std::fmt::Debug for HostConnection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostConnection").field("host", self.client.handler()).finish_non_exhaustive()
    }
}

impl Connection for HostConnection {
    fn rx_spare(&mut self) -> &mut [u8] {
        self.client.rx_spare()
    }

    fn rx_commit(&mut self, now: Instant, n: usize) {
        Connection::rx_commit(&mut self.client, now, n)
    }

    fn handle_eof(&mut self, now: Instant) {
        Connection::handle_eof(&mut self.client, now)
    }

    fn poll_transmit(&self) -> Option<&[u8]> {
        Connection::poll_transmit(&self.client)
    }

    fn transmit_done(&mut self, now: Instant, n: usize) {
        Connection::transmit_done(&mut self.client, now, n)
    }

    fn transmit_blocked(&mut self, now: Instant) -> (Option<&[u8]>, &mut [u8]) {
        Connection::transmit_blocked(&mut self.client, now)
    }

    fn poll_timeout(&self) -> Option<Instant> {
        let engine = Connection::poll_timeout(&self.client);
        let timers = self.client.handler().timers.next_deadline();
        match (engine, timers) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn handle_timeout(&mut self, now: Instant) {
        Connection::handle_timeout(&mut self.client, now);
        self.client.handler_mut().timers.fire(now);
    }

    fn is_finished(&self) -> bool {
        Connection::is_finished(&self.client)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::oneshot::oneshot;

    #[test]
    fn timers_fire_in_order_and_set_the_connections_deadline() {
        let config = mcp_sansio::client::Config::new("test", "1");
        let (_handle, mut conn, _jobs) = crate::host::connection(config, Host::new(), 1024, 1024);
        assert_eq!(Connection::poll_timeout(&conn), None);
        let at = Instant::from_millis;
        let (early, mut woken_early) = oneshot();
        let (late, mut woken_late) = oneshot();
        let (gone, _) = oneshot();
        conn.handler_mut().timers.add(at(300), late);
        conn.handler_mut().timers.add(at(100), early);
        let removed = conn.handler_mut().timers.add(at(50), gone);
        assert!(conn.handler_mut().timers.remove(removed).is_some());
        assert_eq!(Connection::poll_timeout(&conn), Some(at(100)));
        let poll = |receiver: &mut super::super::oneshot::Receiver<Answer>| {
            let waker = std::task::Waker::noop();
            std::future::Future::poll(std::pin::Pin::new(receiver), &mut std::task::Context::from_waker(waker))
        };
        Connection::handle_timeout(&mut conn, at(99));
        assert!(poll(&mut woken_early).is_pending());
        Connection::handle_timeout(&mut conn, at(100));
        assert_eq!(poll(&mut woken_early), std::task::Poll::Ready(Some(Ok(std::vec::Vec::new()))));
        assert!(poll(&mut woken_late).is_pending());
        assert_eq!(Connection::poll_timeout(&conn), Some(at(300)));
        Connection::handle_timeout(&mut conn, at(400));
        assert!(poll(&mut woken_late).is_ready());
        assert_eq!(Connection::poll_timeout(&conn), None);
    }
}
