//! [`Client`]: one [`Engine`] with its handler, and [`Bound`], the [`Connection`] adapters drive.

use core::ops::{Deref, DerefMut};

use crate::client::{Buffers, Config, Engine, Handler};
use crate::connection::Connection;
use crate::time::Instant;

/// A sans-IO MCP client: an [`Engine`] and the [`Handler`] that receives its answers, for the
/// common one-connection case. It derefs to its engine (requests, state) and is a
/// [`Connection`] an adapter drives (as is [`Client::connection`], borrowed).
pub struct Client<'a, H: Handler, const OUTBOUND: usize = 8> {
    engine: Engine<'a, OUTBOUND>,
    handler: H,
}

impl<'a, H: Handler, const OUTBOUND: usize> Client<'a, H, OUTBOUND> {
    /// A client over `buffers`, reporting to `handler`, with `config`.
    pub fn new(handler: H, config: Config<'a>, buffers: Buffers<'a>) -> Self {
        Client { engine: Engine::new(config, buffers), handler }
    }

    /// A client over a receive and a transmit buffer each borrowed or, with `alloc`, owned (so the
    /// client can live in a spawned task).
    pub fn with_storage(
        handler: H,
        config: Config<'a>,
        rx: impl Into<crate::storage::Storage<'a>>,
        tx: impl Into<crate::storage::Storage<'a>>,
    ) -> Self {
        Client { engine: Engine::with_storage(config, rx, tx), handler }
    }

    /// The application.
    pub fn handler(&self) -> &H {
        &self.handler
    }

    /// The application, mutably.
    pub fn handler_mut(&mut self) -> &mut H {
        &mut self.handler
    }

    /// The engine and the handler, both mutably (to call engine methods that take the handler).
    pub fn parts_mut(&mut self) -> (&mut Engine<'a, OUTBOUND>, &mut H) {
        (&mut self.engine, &mut self.handler)
    }

    /// The engine with the handler, as the [`Connection`] an adapter drives.
    pub fn connection(&mut self) -> Bound<'_, 'a, H, OUTBOUND> {
        self.engine.bind(&mut self.handler)
    }

    /// See [`Engine::handle_input`].
    pub fn handle_input(&mut self, now: Instant, data: &[u8]) -> usize {
        self.engine.handle_input(now, data, &mut self.handler)
    }
}

impl<'a, H: Handler, const OUTBOUND: usize> Deref for Client<'a, H, OUTBOUND> {
    type Target = Engine<'a, OUTBOUND>;

    fn deref(&self) -> &Self::Target {
        &self.engine
    }
}

impl<H: Handler, const OUTBOUND: usize> DerefMut for Client<'_, H, OUTBOUND> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.engine
    }
}

/// The client is driven as its engine with its handler, as [`Bound`] is.
impl<H: Handler, const OUTBOUND: usize> Connection for Client<'_, H, OUTBOUND> {
    fn rx_spare(&mut self) -> &mut [u8] {
        self.engine.rx_spare()
    }

    fn rx_commit(&mut self, now: Instant, n: usize) {
        self.engine.rx_commit(now, n, &mut self.handler)
    }

    fn handle_eof(&mut self, now: Instant) {
        self.engine.handle_eof(now, &mut self.handler)
    }

    fn poll_transmit(&self) -> Option<&[u8]> {
        transmit_bytes(&self.engine)
    }

    fn transmit_done(&mut self, now: Instant, n: usize) {
        self.engine.transmit_done(now, n, &mut self.handler)
    }

    fn transmit_blocked(&mut self, _now: Instant) -> (Option<&[u8]>, &mut [u8]) {
        let (transmit, spare) = self.engine.transmit_blocked();
        (transmit.map(|t| t.bytes).filter(|bytes| !bytes.is_empty()), spare)
    }

    fn poll_timeout(&self) -> Option<Instant> {
        self.engine.poll_timeout()
    }

    fn handle_timeout(&mut self, now: Instant) {
        self.engine.handle_timeout(now, &mut self.handler)
    }

    fn is_finished(&self) -> bool {
        self.engine.is_finished()
    }
}

/// What a byte stream writes next (a stream end with no bytes is nothing on a byte stream).
fn transmit_bytes<'t, const OUTBOUND: usize>(engine: &'t Engine<'_, OUTBOUND>) -> Option<&'t [u8]> {
    engine.poll_transmit().map(|t| t.bytes).filter(|bytes| !bytes.is_empty())
}

/// A client [`Engine`] with its handler, for one call or one drive by an adapter.
pub struct Bound<'e, 'a, H, const OUTBOUND: usize = 8> {
    pub(crate) engine: &'e mut Engine<'a, OUTBOUND>,
    pub(crate) handler: &'e mut H,
}

impl<'a, H, const OUTBOUND: usize> Bound<'_, 'a, H, OUTBOUND> {
    /// The engine.
    pub fn engine(&mut self) -> &mut Engine<'a, OUTBOUND> {
        self.engine
    }

    /// The handler.
    pub fn handler(&mut self) -> &mut H {
        self.handler
    }
}

impl<H: Handler, const OUTBOUND: usize> Connection for Bound<'_, '_, H, OUTBOUND> {
    fn rx_spare(&mut self) -> &mut [u8] {
        self.engine.rx_spare()
    }

    fn rx_commit(&mut self, now: Instant, n: usize) {
        self.engine.rx_commit(now, n, self.handler)
    }

    fn handle_eof(&mut self, now: Instant) {
        self.engine.handle_eof(now, self.handler)
    }

    fn poll_transmit(&self) -> Option<&[u8]> {
        transmit_bytes(self.engine)
    }

    fn transmit_done(&mut self, now: Instant, n: usize) {
        self.engine.transmit_done(now, n, self.handler)
    }

    fn transmit_blocked(&mut self, _now: Instant) -> (Option<&[u8]>, &mut [u8]) {
        let (transmit, spare) = self.engine.transmit_blocked();
        (transmit.map(|t| t.bytes).filter(|bytes| !bytes.is_empty()), spare)
    }

    fn poll_timeout(&self) -> Option<Instant> {
        self.engine.poll_timeout()
    }

    fn handle_timeout(&mut self, now: Instant) {
        self.engine.handle_timeout(now, self.handler)
    }

    fn is_finished(&self) -> bool {
        self.engine.is_finished()
    }
}
