//! `core`: `mcp_sansio::client::Client` over the child's pipes, driven by the driver's loop with
//! a [`Jobs`] source that keeps the phase's calls in flight. Nothing is boxed per call: the
//! handler counts answers in shared cells, the job source reads them and calls `call_tool` on the
//! engine with arguments parsed once.

use std::cell::Cell;
use std::future::pending;
use std::os::fd::AsFd;
use std::process::{Command, Stdio};
use std::rc::Rc;
use std::time::{Duration, Instant};

use mcp_sansio::client::{Buffers, Client, Config, EraPolicy, Event, Handler};
use mcp_sansio::connection::Connection;
use mcp_sansio::endpoint::{Outcome, Response, SendError};
use mcp_sansio::json::{self, Value};
use mcp_sansio_driver::{JobStatus, Jobs, Options};
use mcp_sansio_tokio::{FdReader, FdWriter, TokioClock};

use crate::{Check, Job, Mark, Phase, Report, fail};

/// Requests in flight at most (the engine's table; `--depth` up to this).
const OUTBOUND: usize = 64;
/// The receive and transmit buffers (as the host API's child client has).
const BUFFER: usize = 1 << 20;

/// What the handler tells the job source.
#[derive(Default)]
struct Shared {
    connected: Cell<bool>,
    failed: Cell<bool>,
    in_flight: Cell<usize>,
    answered: Cell<u64>,
    bad: Cell<u64>,
}

/// The application: counts and checks answers.
struct Counter {
    shared: Rc<Shared>,
    check: Check,
}

impl Handler for Counter {
    fn on_response(&mut self, _now: mcp_sansio::time::Instant, response: Response<'_>) {
        let shared = &self.shared;
        shared.in_flight.set(shared.in_flight.get() - 1);
        shared.answered.set(shared.answered.get() + 1);
        if !matches!(response.outcome, Outcome::Result(result) if self.check.ok(result.as_bytes())) {
            shared.bad.set(shared.bad.get() + 1);
        }
    }

    fn on_event(&mut self, _now: mcp_sansio::time::Instant, event: Event<'_>) {
        match event {
            Event::Connected { .. } => self.shared.connected.set(true),
            Event::ConnectFailed(_) => self.shared.failed.set(true),
            _ => {}
        }
    }
}

type Conn<'a> = Client<'a, Counter, OUTBOUND>;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Stage {
    Connecting,
    /// One checked call.
    Check,
    Sequential,
    Pipelined,
    Done,
}

/// The job source: runs the stages, keeping each one's calls in flight.
struct Phases<'v> {
    shared: Rc<Shared>,
    arguments: Value<'v>,
    job: &'v Job,
    server: u32,
    stage: Stage,
    /// The current stage issues calls until then, and up to `limit` of them.
    deadline: Instant,
    limit: u64,
    issued: u64,
    mark: Option<Mark>,
    answered_at_start: u64,
    seq: Phase,
    pipe: Phase,
}

impl Phases<'_> {
    fn depth(&self) -> usize {
        match self.stage {
            Stage::Pipelined => self.job.depth,
            Stage::Check | Stage::Sequential => 1,
            Stage::Connecting | Stage::Done => 0,
        }
    }

    fn issuing(&self) -> bool {
        self.issued < self.limit && Instant::now() < self.deadline
    }

    fn has_work(&self) -> bool {
        match self.stage {
            Stage::Connecting => self.shared.connected.get() || self.shared.failed.get(),
            Stage::Done => false,
            _ => {
                let in_flight = self.shared.in_flight.get();
                if self.issuing() { in_flight < self.depth() } else { in_flight == 0 }
            }
        }
    }

    /// Starts `stage`: for `duration`, or for `limit` calls.
    fn enter(&mut self, stage: Stage, duration: Duration, limit: u64) {
        self.stage = stage;
        self.issued = 0;
        self.limit = limit;
        self.answered_at_start = self.shared.answered.get();
        if matches!(stage, Stage::Sequential | Stage::Pipelined) {
            self.mark = Some(Mark::start(self.server));
        }
        self.deadline = Instant::now() + duration;
    }

    /// Ends the current stage (every call answered) and starts the next.
    fn next_stage(&mut self) {
        let calls = self.shared.answered.get() - self.answered_at_start;
        let phase = self.mark.take().map(|mark| mark.end(self.server, calls));
        if self.shared.bad.get() > 0 {
            fail(format!("core: {} bad answers", self.shared.bad.get()));
        }
        match self.stage {
            Stage::Connecting => self.enter(Stage::Check, Duration::from_secs(3600), 1),
            Stage::Check => self.enter(Stage::Sequential, self.job.seq, u64::MAX),
            Stage::Sequential => {
                self.seq = phase.unwrap_or_default();
                self.enter(Stage::Pipelined, self.job.pipe, u64::MAX);
            }
            Stage::Pipelined => {
                self.pipe = phase.unwrap_or_default();
                self.stage = Stage::Done;
            }
            Stage::Done => {}
        }
    }
}

impl<'a> Jobs<Conn<'a>> for Phases<'_> {
    async fn ready(&mut self) {
        if !self.has_work() {
            // Only the handler (run by the same loop) changes what `has_work` reads, and the loop
            // polls `ready` again after each input, so nothing needs to wake this.
            pending::<()>().await
        }
    }

    fn run(&mut self, conn: &mut Conn<'a>, now: mcp_sansio::time::Instant) -> JobStatus {
        loop {
            match self.stage {
                Stage::Done => return JobStatus::Done,
                Stage::Connecting => {
                    if self.shared.failed.get() {
                        fail("core: the connection failed");
                    }
                    self.next_stage();
                }
                _ if self.issuing() => {
                    while self.shared.in_flight.get() < self.depth() && self.issued < self.limit {
                        match conn.call_tool(now, "echo", Some(self.arguments)) {
                            Ok(_) => {
                                self.shared.in_flight.set(self.shared.in_flight.get() + 1);
                                self.issued += 1;
                            }
                            Err(SendError::Full) => return JobStatus::Retry,
                            Err(error) => fail(format!("core: call_tool: {error}")),
                        }
                    }
                    return JobStatus::Done;
                }
                _ if self.shared.in_flight.get() == 0 => {
                    self.next_stage();
                    if self.stage == Stage::Done {
                        // Ends the connection as the end of the server's output would: the loop
                        // returns once its output is written.
                        conn.handle_eof(now);
                        return JobStatus::Done;
                    }
                }
                _ => return JobStatus::Done,
            }
        }
    }
}

/// Runs the stages against the server; `modern`: the 2026-07-28 era, else legacy.
pub fn run(job: &Job, modern: bool) -> Report {
    if job.depth > OUTBOUND {
        fail(format!("core: --depth is at most {OUTBOUND}"));
    }
    let mut child = Command::new(&job.server[0])
        .args(&job.server[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap_or_else(|e| fail(format!("cannot start {:?}: {e}", job.server)));
    let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else { fail("no pipes") };
    let arguments_text = job.arguments();
    let arguments = json::parse(arguments_text.as_bytes(), json::MAX_DEPTH_LIMIT).unwrap_or_else(|_| fail("arguments"));
    let (mut rx, mut tx) = (vec![0u8; BUFFER], vec![0u8; BUFFER]);
    let shared = Rc::new(Shared::default());
    let era = if modern { EraPolicy::Modern } else { EraPolicy::Legacy };
    let config = Config::new("mcp-bench-client", "0.0.0").with_era(era);
    let counter = Counter { shared: shared.clone(), check: Check::new(&job.message) };
    let mut client: Conn<'_> = Client::new(counter, config, Buffers { rx: &mut rx, tx: &mut tx });
    let mut phases = Phases {
        shared,
        arguments,
        job,
        server: child.id(),
        stage: Stage::Connecting,
        deadline: Instant::now(),
        limit: 0,
        issued: 0,
        mark: None,
        answered_at_start: 0,
        seq: Phase::default(),
        pipe: Phase::default(),
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap_or_else(|e| fail(format!("runtime: {e}")));
    runtime.block_on(async {
        let mut clock = TokioClock::start();
        let reader = FdReader::new(stdout.as_fd());
        let writer = FdWriter::new(stdin.as_fd());
        let (Ok(mut reader), Ok(mut writer)) = (reader, writer) else { fail("core: cannot register the pipes") };
        client.connect(mcp_sansio_driver::Clock::now(&clock)).unwrap_or_else(|e| fail(format!("connect: {e}")));
        // What the tokio adapter's `run_with_jobs` does, with this job source instead of a queue.
        let options = Options::new().interruptible_writes(true);
        let driven = mcp_sansio_driver::run_with_options(
            &mut client,
            &mut reader,
            &mut writer,
            &mut clock,
            &mut phases,
            options,
        );
        if let Err(error) = tokio::task::unconstrained(driven).await {
            fail(format!("core: the loop stopped: {error}"));
        }
    });
    if phases.stage != Stage::Done {
        fail("core: the connection ended early");
    }
    drop(stdin);
    let status = child.wait().unwrap_or_else(|e| fail(e));
    if !status.success() {
        fail(format!("the server exited with {status}"));
    }
    Report { seq: phases.seq, pipe: phases.pipe }
}
