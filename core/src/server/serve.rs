//! [`Server`]: one [`Engine`] with its handler, and the [`Connection`](crate::connection::Connection) impls adapters drive.

use crate::endpoint::SendError;
use core::fmt;
use core::ops::{Deref, DerefMut};

use crate::mcp::LoggingLevel;
use crate::server::{Buffers, Config, Engine, Handler, ListChanged};
use crate::time::Instant;

/// A sans-IO MCP server: an [`Engine`] and the [`Handler`] it serves. `IN_FLIGHT` is how many
/// requests may be deferred at once, `OUTBOUND` how many requests to the client may await answers.
///
/// Drive it through [`Connection`](crate::connection::Connection) (see the [crate docs](crate#the-run-loop) for the run loop);
/// answer deferred requests with [`Engine::reply_tool`], [`Engine::reply_resource`] and
/// [`Engine::reply_prompt`], which the server offers as its engine's (it derefs to it). To serve many connections from one application, use one [`Engine`] per
/// connection and pass the handler to each call instead.
pub struct Server<'a, H: Handler, const IN_FLIGHT: usize = 4, const OUTBOUND: usize = 2> {
    engine: Engine<'a, IN_FLIGHT, OUTBOUND>,
    handler: H,
}

impl<'a, H: Handler, const IN_FLIGHT: usize, const OUTBOUND: usize> Server<'a, H, IN_FLIGHT, OUTBOUND> {
    /// A server over `buffers`, serving `handler` with `config`.
    pub fn new(handler: H, config: Config<'a>, buffers: Buffers<'a>) -> Self {
        Server { engine: Engine::new(config, buffers), handler }
    }

    /// A server over buffers it owns (see [`Engine::new_owned`]), serving `handler` with `config`.
    #[cfg(feature = "alloc")]
    pub fn new_owned(handler: H, config: Config<'a>, buffers: crate::server::OwnedBuffers) -> Self {
        Server { engine: Engine::new_owned(config, buffers), handler }
    }

    /// The application.
    pub fn handler(&self) -> &H {
        &self.handler
    }

    /// The application, mutably.
    pub fn handler_mut(&mut self) -> &mut H {
        &mut self.handler
    }

    /// The engine.
    pub fn engine(&self) -> &Engine<'a, IN_FLIGHT, OUTBOUND> {
        &self.engine
    }

    /// The engine and the handler, both mutably (to call engine methods that take the handler).
    pub fn parts_mut(&mut self) -> (&mut Engine<'a, IN_FLIGHT, OUTBOUND>, &mut H) {
        (&mut self.engine, &mut self.handler)
    }

    /// See [`Engine::handle_input`].
    pub fn handle_input(&mut self, now: Instant, data: &[u8]) -> usize {
        self.engine.handle_input(now, data, &mut self.handler)
    }

    /// See [`Engine::log`].
    pub fn log(
        &mut self,
        level: LoggingLevel,
        logger: Option<&str>,
        data: fmt::Arguments<'_>,
    ) -> Result<bool, SendError> {
        self.engine.log(level, logger, data, &self.handler)
    }

    /// See [`Engine::list_changed`].
    pub fn list_changed(&mut self, list: ListChanged) -> Result<usize, SendError> {
        self.engine.list_changed(list, &self.handler)
    }
}

/// Everything an [`Engine`] offers that needs no handler (replying to deferred requests, sending
/// requests and notifications, progress, session state) is reached through the server.
impl<'a, H: Handler, const IN_FLIGHT: usize, const OUTBOUND: usize> Deref for Server<'a, H, IN_FLIGHT, OUTBOUND> {
    type Target = Engine<'a, IN_FLIGHT, OUTBOUND>;

    fn deref(&self) -> &Self::Target {
        &self.engine
    }
}

impl<H: Handler, const IN_FLIGHT: usize, const OUTBOUND: usize> DerefMut for Server<'_, H, IN_FLIGHT, OUTBOUND> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.engine
    }
}

crate::connection::connection_by_engine!(
    /// The server is driven as its engine with its handler, as [`Bound`] is.
    impl[H: Handler, const IN_FLIGHT: usize, const OUTBOUND: usize] Server<'_, H, IN_FLIGHT, OUTBOUND>,
    Engine::transmit_blocked
);

crate::connection::connection_by_engine!(
    impl[H: Handler, const IN_FLIGHT: usize, const OUTBOUND: usize] Bound<'_, '_, H, IN_FLIGHT, OUTBOUND>,
    Engine::transmit_blocked
);

/// An [`Engine`] with the handler it serves, for one call or one drive by an adapter; implements
/// [`Connection`](crate::connection::Connection).
pub struct Bound<'e, 'a, H, const IN_FLIGHT: usize = 4, const OUTBOUND: usize = 2> {
    pub(crate) engine: &'e mut Engine<'a, IN_FLIGHT, OUTBOUND>,
    pub(crate) handler: &'e mut H,
}

impl<'a, H, const IN_FLIGHT: usize, const OUTBOUND: usize> Bound<'_, 'a, H, IN_FLIGHT, OUTBOUND> {
    /// The engine.
    pub fn engine(&mut self) -> &mut Engine<'a, IN_FLIGHT, OUTBOUND> {
        self.engine
    }

    /// The handler.
    pub fn handler(&mut self) -> &mut H {
        self.handler
    }

    /// The engine and the handler, both mutably (to call engine methods that take the handler).
    pub fn parts_mut(&mut self) -> (&mut Engine<'a, IN_FLIGHT, OUTBOUND>, &mut H) {
        (self.engine, self.handler)
    }
}
