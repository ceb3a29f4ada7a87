//! An engine that owns its buffers, so a legacy session can live in a map; and the pool of
//! buffers that suspended sessions' engines give back.

use mcp_sansio::server::{Config, Engine, Handler, OwnedBuffers};
use mcp_sansio::time::Instant;

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

    /// Runs `f` on the engine as the application's turn at `now`: a task's answer given in `f` is
    /// stamped `now`, and what `f` made due at once (a task's new status to tell, a waiting
    /// `tasks/result`) is served before the caller drains the output.
    pub(crate) fn run<H: Handler, R>(
        &mut self,
        handler: &mut H,
        now: Instant,
        f: impl FnOnce(&mut HttpEngine, &mut H) -> R,
    ) -> R {
        let engine = &mut self.engine;
        if let Some(tasks) = engine.task_table() {
            tasks.set_now(now);
        }
        let result = f(engine, handler);
        if engine.poll_timeout().is_some_and(|due| due <= now) {
            engine.handle_timeout(now, handler);
        }
        result
    }
}

/// The engines of suspended sessions, with their buffers, kept for the next session that wakes:
/// a session between requests holds no engine and no buffers, and waking one costs no allocation
/// while the pool has an engine, and no copy of one ([`Engine::renew`] makes a pooled engine new
/// in its box). Holds at most `max` engines; more are freed.
pub(crate) struct BufferPool {
    free: Vec<((usize, usize, usize), Box<OwnedEngine>)>,
    max: usize,
    /// The task table each new engine gets (legacy sessions' tasks), if any.
    session_tasks: Option<crate::TaskLimits>,
    /// The sessions are shared by replicas ([`BufferPool::share_sessions`]).
    shared: bool,
}

impl BufferPool {
    pub(crate) fn new(max: usize, session_tasks: Option<crate::TaskLimits>) -> Self {
        BufferPool { free: Vec::new(), max, session_tasks, shared: false }
    }

    /// The sessions are shared by replicas from now on: the task tables of engines made from now
    /// on ask a task's questions only through `tasks/result`
    /// ([`TaskTable::asking_through_tasks_result_only`]: the client's GET stream may be on another
    /// replica); pooled engines are freed.
    ///
    /// [`TaskTable::asking_through_tasks_result_only`]: mcp_sansio::server::tasks::TaskTable::asking_through_tasks_result_only
    pub(crate) fn share_sessions(&mut self) {
        self.shared = true;
        self.free.clear();
    }

    /// A new engine with `config` on buffers of these lengths: a pooled one renewed if there is one
    /// of these lengths (its task table kept: it holds no live task), else one on new zeroed
    /// buffers, with a task table of its own made at `now` if sessions have tasks.
    pub(crate) fn take(
        &mut self,
        config: Config<'static>,
        (rx_len, tx_len, input_len): (usize, usize, usize),
        now: Instant,
    ) -> Box<OwnedEngine> {
        let sizes = (rx_len, tx_len, input_len);
        match self.free.iter().rposition(|(pooled, _)| *pooled == sizes) {
            Some(index) => {
                let (_, mut engine) = self.free.swap_remove(index);
                engine.get().renew();
                engine
            }
            None => {
                let mut engine = Box::new(OwnedEngine::on(config, OwnedBuffers::zeroed(rx_len, tx_len, input_len)));
                let table = self.session_tasks.and_then(|limits| crate::tasks::session_task_table(limits, now));
                if let Some(table) = table {
                    let table = if self.shared { table.asking_through_tasks_result_only() } else { table };
                    engine.get().set_task_table(table);
                }
                engine
            }
        }
    }

    /// Keeps `engine` (taken with these buffer lengths, and built with the configuration every
    /// `take` passes) for a later `take`, or frees it if the pool is full.
    pub(crate) fn give(&mut self, sizes: (usize, usize, usize), engine: Box<OwnedEngine>) {
        if self.free.len() < self.max {
            self.free.push((sizes, engine));
        }
    }
}
