//! [`Client`]: one [`Engine`] with its handler, and [`Bound`], the [`Connection`](crate::connection::Connection) adapters drive.

use core::ops::{Deref, DerefMut};

use crate::client::{Buffers, Config, Engine, Handler};
use crate::time::Instant;

/// A sans-IO MCP client: an [`Engine`] and the [`Handler`] that receives its answers, for the
/// common one-connection case. It derefs to its engine (requests, state) and is a
/// [`Connection`](crate::connection::Connection) an adapter drives (as is [`Client::connection`], borrowed).
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

    /// The engine with the handler, as the [`Connection`](crate::connection::Connection) an adapter drives.
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

crate::connection::connection_by_engine!(
    /// The client is driven as its engine with its handler, as [`Bound`] is.
    impl[H: Handler, const OUTBOUND: usize] Client<'_, H, OUTBOUND>,
    transmit_blocked
);

/// The client's [`Engine::transmit_blocked`], in the shape the server's takes: the client holds
/// no input back for its output, so it has nothing to serve first.
fn transmit_blocked<'e, H, const OUTBOUND: usize>(
    engine: &'e mut Engine<'_, OUTBOUND>,
    _now: Instant,
    _handler: &mut H,
) -> (Option<crate::endpoint::Transmit<'e>>, &'e mut [u8]) {
    engine.transmit_blocked()
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

    /// The engine and the handler, both mutably (to call engine methods that take the handler).
    pub fn parts_mut(&mut self) -> (&mut Engine<'a, OUTBOUND>, &mut H) {
        (self.engine, self.handler)
    }
}

crate::connection::connection_by_engine!(impl[H: Handler, const OUTBOUND: usize] Bound<'_, '_, H, OUTBOUND>, transmit_blocked);
