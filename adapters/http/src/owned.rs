//! An engine that owns its buffers, so a legacy session can live in a map.

use std::mem::ManuallyDrop;

use mcp_sansio::server::{Buffers, Config, Engine};

/// An [`Engine`] over heap buffers it owns (receive, transmit, and for legacy sessions the input
/// buffer). The engine borrows them for `'static`; they are freed after the engine is dropped.
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
        let rx: &'static mut [u8] = Box::leak(vec![0u8; rx_len].into_boxed_slice());
        let tx: &'static mut [u8] = Box::leak(vec![0u8; tx_len].into_boxed_slice());
        let (rx_ptr, tx_ptr) = (rx as *mut [u8], tx as *mut [u8]);
        let engine = Engine::new(config, Buffers { rx, tx });
        OwnedEngine { engine: ManuallyDrop::new(engine), rx: rx_ptr, tx: tx_ptr, input: None }
    }

    /// The same, with an input buffer of `input_len` bytes ([`Engine::set_input_buffer`]) so a
    /// legacy session can ask its client for input; none if `input_len` is 0.
    pub(crate) fn with_input(config: Config<'static>, rx_len: usize, tx_len: usize, input_len: usize) -> Self {
        let mut owned = OwnedEngine::new(config, rx_len, tx_len);
        if input_len > 0 {
            let input: &'static mut [u8] = Box::leak(vec![0u8; input_len].into_boxed_slice());
            owned.input = Some(input as *mut [u8]);
            owned.engine.set_input_buffer(input);
        }
        owned
    }

    /// The engine. Never swap or replace it: the buffers freed on drop are the ones it was built on.
    pub(crate) fn get(&mut self) -> &mut Engine<'static> {
        &mut self.engine
    }
}

impl Drop for OwnedEngine {
    fn drop(&mut self) {
        // SAFETY: the engine is dropped first and exactly once (it is never used again); then no
        // reference into the buffers remains, and each pointer came from `Box::leak` of a boxed
        // slice in `new` or `with_input` and is freed exactly once, here.
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
