//! An [`Engine`] over heap buffers it owns (`alloc`), so it can live in a map or a spawned task
//! without borrowing anything: with a `Config<'static>` it is an `Engine<'static>`, which is `Send`.

use alloc::boxed::Box;
use alloc::vec;

use crate::server::{Config, Engine};

/// The heap buffers of an engine that owns them: receive, transmit (as in
/// [`Buffers`](crate::server::Buffers)) and the optional input buffer of
/// [`Engine::set_input_storage`].
///
/// ```
/// use mcp_sansio::server::{Config, Engine, OwnedBuffers};
///
/// let engine: Engine<'static> = Engine::new_owned(Config::new("app", "1.0.0"), OwnedBuffers::zeroed(1024, 4096, 0));
/// let worker = std::thread::spawn(move || engine.into_buffers());
/// let buffers = worker.join().unwrap().expect("the engine owned its buffers");
/// assert_eq!((buffers.rx.len(), buffers.tx.len()), (1024, 4096));
/// // ... and the next engine reuses them.
/// let _next: Engine<'static> = Engine::new_owned(Config::new("app", "1.0.0"), buffers);
/// ```
#[derive(Debug)]
pub struct OwnedBuffers {
    /// Receive buffer: its length is the longest message accepted.
    pub rx: Box<[u8]>,
    /// Transmit buffer: at least [`MIN_RESPONSE_WINDOW`](crate::server::MIN_RESPONSE_WINDOW) bytes.
    pub tx: Box<[u8]>,
    /// The input buffer of legacy sessions, if any.
    pub input: Option<Box<[u8]>>,
}

impl OwnedBuffers {
    /// Zeroed buffers of these lengths, with no input buffer if `input_len` is 0.
    #[must_use]
    pub fn zeroed(rx_len: usize, tx_len: usize, input_len: usize) -> Self {
        OwnedBuffers {
            rx: vec![0u8; rx_len].into_boxed_slice(),
            tx: vec![0u8; tx_len].into_boxed_slice(),
            input: (input_len > 0).then(|| vec![0u8; input_len].into_boxed_slice()),
        }
    }
}

impl<'a, const IN_FLIGHT: usize, const OUTBOUND: usize> Engine<'a, IN_FLIGHT, OUTBOUND> {
    /// An engine that owns `buffers`, with the input buffer ([`Engine::set_input_storage`]) if
    /// there is one. Get them back with [`Engine::into_buffers`].
    pub fn new_owned(config: Config<'a>, buffers: OwnedBuffers) -> Self {
        let mut engine = Engine::with_storage(config, buffers.rx, buffers.tx);
        if let Some(input) = buffers.input {
            engine.set_input_storage(input);
        }
        engine
    }

    /// Drops the engine (everything it held: buffered input, untransmitted output, deferred and
    /// outbound requests) and returns the buffers it owned, for another engine. An engine reads no
    /// byte of a buffer it did not write first, so used buffers serve as well as zeroed ones.
    ///
    /// `None` if the receive or the transmit buffer was borrowed; a borrowed input buffer comes
    /// back as `input: None`.
    #[must_use]
    pub fn into_buffers(self) -> Option<OwnedBuffers> {
        let input = self.input.into_box();
        let rx = self.ep.rx.into_storage().into_box()?;
        let tx = self.ep.out.tx.into_storage().into_box()?;
        Some(OwnedBuffers { rx, tx, input })
    }
}

impl<'a, const IN_FLIGHT: usize, const OUTBOUND: usize> Engine<'a, IN_FLIGHT, OUTBOUND> {
    /// Makes this engine new again on its own buffers and configuration, in place: what
    /// `Engine::new_owned(config, engine.into_buffers()?)` would give (everything it held dropped,
    /// no session, the notification route reset, the input buffer kept), without building an engine
    /// and moving it, which copies it whole (17 KB with 64 deferred slots). A server that keeps
    /// idle sessions suspended ([`suspend`](Self::suspend)) can keep their engines in a pool and
    /// [`resume`](Self::resume) a session on a renewed one.
    pub fn renew(&mut self) {
        // Every field named: a field added to the engine must be renewed here too (or it does not
        // compile).
        let Engine {
            config,
            ep,
            session,
            in_flight,
            next_generation,
            batch,
            pending_changes,
            input,
            server_info: _, // from `config`, which stays
            #[cfg(feature = "tasks")]
                tasks: _, // the table stays: an engine suspends only without live tasks
        } = self;
        let limits = config.limits;
        let empty = || crate::storage::Storage::empty();
        let old = core::mem::replace(ep, crate::endpoint::Endpoint::new(empty(), empty(), limits));
        *ep = crate::endpoint::Endpoint::new(old.rx.into_storage(), old.out.tx.into_storage(), limits);
        for slot in in_flight.iter_mut() {
            *slot = None;
        }
        *session = crate::server::Session::None;
        *next_generation = 0;
        *batch = None;
        *pending_changes = crate::server::ListChanges::NONE;
        input.renew();
    }
}

/// An engine over owned buffers moves to another thread or task: everything in an
/// `Engine<'static>` is `Send` (a `Config<'static>`'s state sealer is `&'static dyn StateSealer`,
/// and `StateSealer: Sync`).
const _: fn() = || {
    fn assert_send<T: Send>() {}
    assert_send::<Engine<'static>>();
    assert_send::<Engine<'static, 16, 8>>();
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::Handler;
    use crate::time::Instant;

    struct App;
    impl Handler for App {}

    const PING: &[u8] = b"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"}\n";

    /// Answers one ping on `engine`'s byte stream (through its receive and transmit buffers) and
    /// returns the answer.
    fn ping(engine: &mut Engine<'static>) -> std::vec::Vec<u8> {
        let now = Instant::from_millis(0);
        assert_eq!(engine.handle_input(now, PING, &mut App), PING.len());
        let transmit = engine.poll_transmit().expect("the answer");
        let answer = transmit.bytes.to_vec();
        let written = answer.len();
        engine.transmit_done(now, written, &mut App);
        answer
    }

    #[test]
    fn a_renewed_engine_answers_and_suspends_as_a_new_one() {
        let config = Config::new("owned", "1.0.0");
        let mut used: Engine<'static> = Engine::new_owned(config, OwnedBuffers::zeroed(512, 2048, 1024));
        let first = ping(&mut used);
        let state = used.suspend().expect("quiet");
        used.renew();
        let mut fresh: Engine<'static> = Engine::new_owned(config, OwnedBuffers::zeroed(512, 2048, 1024));
        assert_eq!(used.suspend(), fresh.suspend());
        used.resume(state);
        fresh.resume(state);
        assert_eq!((ping(&mut used), ping(&mut fresh)), (first.clone(), first));
        assert_eq!(used.suspend(), fresh.suspend());
    }

    #[test]
    fn an_engine_over_owned_buffers_answers_in_another_thread_and_gives_its_buffers_back() {
        let buffers = OwnedBuffers::zeroed(512, 2048, 1024);
        let addresses = (buffers.rx.as_ptr(), buffers.tx.as_ptr(), buffers.input.as_ref().map(|i| i.as_ptr()));
        let mut engine: Engine<'static> = Engine::new_owned(Config::new("owned", "1.0.0"), buffers);
        let (answer, buffers) = std::thread::spawn(move || (ping(&mut engine), engine.into_buffers())).join().unwrap();
        assert_eq!(answer, b"{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}\n");
        let buffers = buffers.expect("every buffer was owned");
        assert_eq!(
            (buffers.rx.len(), buffers.tx.len(), buffers.input.as_ref().map(|i| i.len())),
            (512, 2048, Some(1024))
        );
        // The same allocations, not copies: reused by the next engine, which answers as well.
        assert_eq!((buffers.rx.as_ptr(), buffers.tx.as_ptr(), buffers.input.as_ref().map(|i| i.as_ptr())), addresses);
        let mut next: Engine<'static> = Engine::new_owned(Config::new("owned", "1.0.0"), buffers);
        assert_eq!(ping(&mut next), b"{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}\n");
    }

    #[test]
    fn borrowed_buffers_are_not_given_back() {
        let (mut rx, mut tx, mut input) = ([0u8; 256], [0u8; 1024], [0u8; 64]);
        let mut engine: Engine<'_> = Engine::with_storage(Config::new("borrowed", "1.0.0"), &mut rx, &mut tx);
        engine.set_input_buffer(&mut input);
        assert!(engine.into_buffers().is_none());
        // Owned receive and transmit buffers come back without the borrowed input buffer.
        let mut engine: Engine<'_> =
            Engine::new_owned(Config::new("mixed", "1.0.0"), OwnedBuffers::zeroed(256, 1024, 0));
        engine.set_input_buffer(&mut input);
        let buffers = engine.into_buffers().expect("rx and tx were owned");
        assert!(buffers.input.is_none());
    }
}
