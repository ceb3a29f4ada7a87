//! An engine that owns its buffers, so a legacy session can live in a map; and the pool of
//! buffers that suspended sessions' engines give back.

use std::mem::ManuallyDrop;

use mcp_sansio::server::{Buffers, Config, Engine};

/// An engine's buffers: receive, transmit, and for a legacy session the input buffer.
pub(crate) struct EngineBuffers {
    rx: Box<[u8]>,
    tx: Box<[u8]>,
    input: Option<Box<[u8]>>,
}

impl EngineBuffers {
    /// Zeroed buffers of these sizes (no input buffer if `input_len` is 0).
    pub(crate) fn new(rx_len: usize, tx_len: usize, input_len: usize) -> Self {
        EngineBuffers {
            rx: vec![0u8; rx_len].into_boxed_slice(),
            tx: vec![0u8; tx_len].into_boxed_slice(),
            input: (input_len > 0).then(|| vec![0u8; input_len].into_boxed_slice()),
        }
    }

    fn sizes(&self) -> (usize, usize, usize) {
        (self.rx.len(), self.tx.len(), self.input.as_ref().map_or(0, |i| i.len()))
    }
}

/// An [`Engine`] over heap buffers it owns (receive, transmit, and for legacy sessions the input
/// buffer). The engine borrows them for `'static`; they are freed (or handed back by
/// [`OwnedEngine::into_buffers`]) after the engine is dropped.
pub(crate) struct OwnedEngine {
    engine: ManuallyDrop<Engine<'static>>,
    rx: *mut [u8],
    tx: *mut [u8],
    input: Option<*mut [u8]>,
}

// SAFETY: the buffers are reachable only through this struct's engine (they were leaked from
// boxes no one else holds), so moving the struct to another thread moves their sole owner, as
// moving a `Box<[u8]>` would; `Engine` itself holds nothing tied to a thread.
unsafe impl Send for OwnedEngine {}

impl OwnedEngine {
    pub(crate) fn new(config: Config<'static>, rx_len: usize, tx_len: usize) -> Self {
        OwnedEngine::on(config, EngineBuffers::new(rx_len, tx_len, 0))
    }

    /// An engine on `buffers`, with the input buffer ([`Engine::set_input_buffer`]) if there is
    /// one, so a legacy session can ask its client for input. The engine reads no byte of a buffer
    /// it did not write first, so buffers another engine used serve as well as zeroed ones.
    pub(crate) fn on(config: Config<'static>, buffers: EngineBuffers) -> Self {
        let rx: &'static mut [u8] = Box::leak(buffers.rx);
        let tx: &'static mut [u8] = Box::leak(buffers.tx);
        let (rx_ptr, tx_ptr) = (rx as *mut [u8], tx as *mut [u8]);
        let mut engine = Engine::new(config, Buffers { rx, tx });
        let input = buffers.input.map(|input| {
            let input: &'static mut [u8] = Box::leak(input);
            let input_ptr = input as *mut [u8];
            engine.set_input_buffer(input);
            input_ptr
        });
        OwnedEngine { engine: ManuallyDrop::new(engine), rx: rx_ptr, tx: tx_ptr, input }
    }

    /// The engine. Never swap or replace it: the buffers freed on drop are the ones it was built on.
    pub(crate) fn get(&mut self) -> &mut Engine<'static> {
        &mut self.engine
    }

    /// Drops the engine and returns its buffers.
    pub(crate) fn into_buffers(self) -> EngineBuffers {
        let mut this = ManuallyDrop::new(self);
        // SAFETY: as in `drop`: the engine is dropped first and exactly once, then no reference
        // into the buffers remains; each pointer came from `Box::leak` in `on` and is turned back
        // into its box exactly once, here (`this` is never dropped, so `drop` does not run).
        unsafe {
            ManuallyDrop::drop(&mut this.engine);
            EngineBuffers {
                rx: Box::from_raw(this.rx),
                tx: Box::from_raw(this.tx),
                input: this.input.map(|input| Box::from_raw(input)),
            }
        }
    }
}

impl Drop for OwnedEngine {
    fn drop(&mut self) {
        // SAFETY: the engine is dropped first and exactly once (it is never used again); then no
        // reference into the buffers remains, and each pointer came from `Box::leak` of a boxed
        // slice in `on` and is freed exactly once, here.
        unsafe {
            ManuallyDrop::drop(&mut self.engine);
            drop(Box::from_raw(self.rx));
            drop(Box::from_raw(self.tx));
            if let Some(input) = self.input {
                drop(Box::from_raw(input));
            }
        }
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
        match self.free.iter().rposition(|b| b.sizes() == (rx_len, tx_len, input_len)) {
            Some(index) => self.free.swap_remove(index),
            None => EngineBuffers::new(rx_len, tx_len, input_len),
        }
    }

    /// Keeps `buffers` for a later `take`, or frees them if the pool is full.
    pub(crate) fn give(&mut self, buffers: EngineBuffers) {
        if self.free.len() < self.max {
            self.free.push(buffers);
        }
    }
}
