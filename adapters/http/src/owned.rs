//! An engine that owns its buffers, so a legacy session can live in a map; and the pool of
//! buffers that suspended sessions' engines give back.

use mcp_sansio::server::{Config, Engine, OwnedBuffers};

/// Deferred requests one engine holds at once (the core's `IN_FLIGHT`): a legacy session's, or
/// the stateless engine's for every 2026-07-28 client together. One more is answered `-32603`
/// ("Server busy"). Each slot costs about 250 bytes while its engine is awake.
pub const IN_FLIGHT: usize = 64;
/// Requests to the client of a legacy session awaiting answers at once (the core's `OUTBOUND`).
pub const OUTBOUND: usize = 4;
/// The engine of each legacy session and the stateless engine.
pub type HttpEngine = Engine<'static, IN_FLIGHT, OUTBOUND>;

/// An engine's buffers: receive, transmit, and for a legacy session the input buffer.
pub(crate) type EngineBuffers = OwnedBuffers;

fn sizes(buffers: &EngineBuffers) -> (usize, usize, usize) {
    (buffers.rx.len(), buffers.tx.len(), buffers.input.as_ref().map_or(0, |i| i.len()))
}

/// An [`Engine`] over heap buffers it owns (receive, transmit, and for legacy sessions the input
/// buffer), handed back by [`OwnedEngine::into_buffers`]. Safe code: the core's
/// [`Engine::new_owned`] keeps the boxes as `Storage::Owned`, so the engine is `'static` and `Send`
/// with nothing leaked.
pub(crate) struct OwnedEngine {
    engine: HttpEngine,
}

impl OwnedEngine {
    pub(crate) fn new(config: Config<'static>, rx_len: usize, tx_len: usize) -> Self {
        OwnedEngine::on(config, OwnedBuffers::zeroed(rx_len, tx_len, 0))
    }

    /// An engine on `buffers`, with the input buffer ([`Engine::set_input_buffer`]) if there is
    /// one, so a legacy session can ask its client for input. The engine reads no byte of a buffer
    /// it did not write first, so buffers another engine used serve as well as zeroed ones.
    pub(crate) fn on(config: Config<'static>, buffers: EngineBuffers) -> Self {
        OwnedEngine { engine: Engine::new_owned(config, buffers) }
    }

    /// The engine.
    pub(crate) fn get(&mut self) -> &mut HttpEngine {
        &mut self.engine
    }

    /// Drops the engine and returns its buffers (always `Some`: it owns every buffer it was built
    /// on).
    pub(crate) fn into_buffers(self) -> Option<EngineBuffers> {
        self.engine.into_buffers()
    }
}

/// The buffers of suspended sessions' engines, kept for the next engine a session needs: a
/// session between requests holds no buffers, and waking one costs no allocation while the pool
/// has buffers. Holds at most `max` sets; more are freed.
pub(crate) struct BufferPool {
    free: Vec<EngineBuffers>,
    max: usize,
}

impl BufferPool {
    pub(crate) fn new(max: usize) -> Self {
        BufferPool { free: Vec::new(), max }
    }

    /// Buffers of these sizes: pooled ones if there are, else new zeroed ones.
    pub(crate) fn take(&mut self, rx_len: usize, tx_len: usize, input_len: usize) -> EngineBuffers {
        match self.free.iter().rposition(|b| sizes(b) == (rx_len, tx_len, input_len)) {
            Some(index) => self.free.swap_remove(index),
            None => OwnedBuffers::zeroed(rx_len, tx_len, input_len),
        }
    }

    /// Keeps `buffers` for a later `take`, or frees them if the pool is full.
    pub(crate) fn give(&mut self, buffers: EngineBuffers) {
        if self.free.len() < self.max {
            self.free.push(buffers);
        }
    }
}
