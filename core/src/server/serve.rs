//! [`Server`]: one [`Engine`] with its handler, and the [`Connection`] impls adapters drive.

use crate::connection::Connection;
use crate::endpoint::SendError;
use core::fmt;
use core::ops::{Deref, DerefMut};

use crate::mcp::LoggingLevel;
use crate::server::{Buffers, Config, Engine, Handler, ListChanged};
use crate::time::Instant;

/// A sans-IO MCP server: an [`Engine`] and the [`Handler`] it serves. `IN_FLIGHT` is how many
/// requests may be deferred at once, `OUTBOUND` how many requests to the client may await answers.
///
/// Drive it through [`Connection`] (see the [crate docs](crate#the-run-loop) for the run loop);
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

/// The server is driven as its engine with its handler, as [`Bound`] is; both share the byte
/// mapping of the transmit queue (`Bound::bytes_of`).
impl<H: Handler, const IN_FLIGHT: usize, const OUTBOUND: usize> Connection for Server<'_, H, IN_FLIGHT, OUTBOUND> {
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
        Bound::<H, IN_FLIGHT, OUTBOUND>::transmit_bytes(&self.engine)
    }

    fn transmit_done(&mut self, now: Instant, n: usize) {
        self.engine.transmit_done(now, n, &mut self.handler)
    }

    fn transmit_blocked(&mut self, now: Instant) -> (Option<&[u8]>, &mut [u8]) {
        let (transmit, spare) = self.engine.transmit_blocked(now, &mut self.handler);
        (Bound::<H, IN_FLIGHT, OUTBOUND>::bytes_of(transmit), spare)
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

impl<H: Handler, const IN_FLIGHT: usize, const OUTBOUND: usize> Connection for Bound<'_, '_, H, IN_FLIGHT, OUTBOUND> {
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
        Self::transmit_bytes(self.engine)
    }

    fn transmit_done(&mut self, now: Instant, n: usize) {
        self.engine.transmit_done(now, n, self.handler)
    }

    fn transmit_blocked(&mut self, now: Instant) -> (Option<&[u8]>, &mut [u8]) {
        let (transmit, spare) = self.engine.transmit_blocked(now, self.handler);
        (Self::bytes_of(transmit), spare)
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

impl<'a, H, const IN_FLIGHT: usize, const OUTBOUND: usize> Bound<'_, 'a, H, IN_FLIGHT, OUTBOUND> {
    /// What a byte stream writes next: the pending transmit's bytes (an end-of-stream marker with
    /// no bytes means nothing on a byte stream).
    fn transmit_bytes<'t>(engine: &'t Engine<'a, IN_FLIGHT, OUTBOUND>) -> Option<&'t [u8]> {
        Self::bytes_of(engine.poll_transmit())
    }

    fn bytes_of(transmit: Option<crate::endpoint::Transmit<'_>>) -> Option<&[u8]> {
        transmit.map(|t| t.bytes).filter(|bytes| !bytes.is_empty())
    }
}

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
}
