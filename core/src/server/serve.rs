//! [`Server`]: one [`Engine`] with its handler, and the [`Connection`] impls adapters drive.

use crate::connection::Connection;
use crate::endpoint::{OutboundKey, SendError};
use core::fmt;

use crate::json::JsonWriter;
use crate::mcp::LoggingLevel;
use crate::server::{
    Bound, Buffers, Config, Deferred, Engine, Handler, ListChanged, PromptReply, ReplyError, ResourceReply, ToolReply,
};
use crate::time::Instant;
use crate::version::ProtocolVersion;

/// A sans-IO MCP server: an [`Engine`] and the [`Handler`] it serves. `IN_FLIGHT` is how many
/// requests may be deferred at once, `OUTBOUND` how many requests to the client may await answers.
///
/// Drive it through [`Connection`] (see the [crate docs](crate#the-run-loop) for the run loop);
/// answer deferred requests with [`Server::reply_tool`], [`Server::reply_resource`] and
/// [`Server::reply_prompt`]. To serve many connections from one application, use one [`Engine`] per
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

    /// The configuration.
    pub fn config(&self) -> &Config<'a> {
        self.engine.config()
    }

    /// The legacy session's negotiated version, once `initialize` was answered.
    pub fn session_version(&self) -> Option<ProtocolVersion> {
        self.engine.session_version()
    }

    /// See [`Engine::client_capabilities`].
    pub fn client_capabilities(&self) -> Option<crate::mcp::ClientCapabilities> {
        self.engine.client_capabilities()
    }

    /// How many deferred requests await an answer.
    pub fn in_flight(&self) -> usize {
        self.engine.in_flight()
    }

    /// Whether the client cancelled this deferred request (its answer would be suppressed).
    pub fn is_cancelled(&self, deferred: &Deferred) -> bool {
        self.engine.is_cancelled(deferred)
    }

    /// See [`Engine::handle_input`].
    pub fn handle_input(&mut self, now: Instant, data: &[u8]) -> usize {
        self.engine.handle_input(now, data, &mut self.handler)
    }

    /// See [`Engine::reply_tool`].
    pub fn reply_tool(&mut self, deferred: &Deferred) -> Result<ToolReply<'_>, ReplyError> {
        self.engine.reply_tool(deferred)
    }

    /// See [`Engine::reply_resource`].
    pub fn reply_resource(&mut self, deferred: &Deferred) -> Result<ResourceReply<'_>, ReplyError> {
        self.engine.reply_resource(deferred)
    }

    /// See [`Engine::reply_prompt`].
    pub fn reply_prompt(&mut self, deferred: &Deferred) -> Result<PromptReply<'_>, ReplyError> {
        self.engine.reply_prompt(deferred)
    }

    /// See [`Engine::ping`].
    pub fn ping(&mut self, now: Instant) -> Result<OutboundKey, SendError> {
        self.engine.ping(now)
    }

    /// See [`Engine::send_request`].
    pub fn send_request(
        &mut self,
        now: Instant,
        method: &str,
        params: Option<&dyn Fn(&mut JsonWriter<'_>)>,
    ) -> Result<OutboundKey, SendError> {
        self.engine.send_request(now, method, params)
    }

    /// See [`Engine::cancel_request`].
    pub fn cancel_request(&mut self, key: OutboundKey) -> bool {
        self.engine.cancel_request(key)
    }

    /// See [`Engine::notify`].
    pub fn notify(&mut self, method: &str, params: Option<&dyn Fn(&mut JsonWriter<'_>)>) -> Result<(), SendError> {
        self.engine.notify(method, params)
    }

    /// See [`Engine::progress`].
    pub fn progress(
        &mut self,
        deferred: &Deferred,
        progress: u64,
        total: Option<u64>,
        message: Option<&str>,
    ) -> Result<(), SendError> {
        self.engine.progress(deferred, progress, total, message)
    }

    /// See [`Engine::log_for`].
    pub fn log_for(
        &mut self,
        deferred: &Deferred,
        level: LoggingLevel,
        logger: Option<&str>,
        data: fmt::Arguments<'_>,
    ) -> Result<bool, SendError> {
        self.engine.log_for(deferred, level, logger, data)
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

    /// See [`Engine::resource_updated`].
    pub fn resource_updated(&mut self, uri: &str) -> Result<usize, SendError> {
        self.engine.resource_updated(uri)
    }

    /// See [`Engine::end_listens`].
    pub fn end_listens(&mut self) -> Result<usize, SendError> {
        self.engine.end_listens()
    }
}

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
        self.engine.poll_transmit().map(|t| t.bytes).filter(|bytes| !bytes.is_empty())
    }

    fn transmit_done(&mut self, now: Instant, n: usize) {
        self.engine.transmit_done(now, n, &mut self.handler)
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
        self.engine.poll_transmit().map(|t| t.bytes).filter(|bytes| !bytes.is_empty())
    }

    fn transmit_done(&mut self, now: Instant, n: usize) {
        self.engine.transmit_done(now, n, self.handler)
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
