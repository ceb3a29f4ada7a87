//! `mcp-bench-client`: MCP **clients** calling the same stdio server (a child process), run
//! alternately in one run, reported as ratios.
//!
//! Each client calls the server's `echo` tool with `{"message": …}` (64 bytes by default) and
//! checks every answer. Per repetition, in an order rotated each repetition, every client runs in
//! a fresh worker process (this binary with `--worker KIND`), which spawns the server, connects,
//! makes one checked call, then
//!
//! - **sequential**: one call at a time for `--seq-secs`,
//! - **pipelined**: `--depth` calls in flight for `--pipe-secs` (a new call for each answer),
//!
//! and reports per phase: calls, seconds, the client process's CPU time (`getrusage(RUSAGE_SELF)`,
//! all its threads), the server process's (`/proc/<pid>/stat` utime+stime, as `mcp-bench`
//! measures servers), and the allocations the client process made in the phase (a counting
//! global allocator; reading the CPU times, which allocates, is outside the counted window); and
//! its peak RSS (`VmHWM`) at the end.
//!
//! Clients (`--client LABEL=KIND`):
//! - `core`: `mcp_sansio::client::Client` driven by the driver's loop
//!   (`mcp_sansio_driver::run_with_options` on the tokio adapter's `FdReader`/`FdWriter` and
//!   `TokioClock`, interruptible writes, outside tokio's budget, as the tokio adapter drives a
//!   connection) on a `current_thread` runtime, with a `Jobs` source that issues a new
//!   `call_tool` whenever an answer comes; legacy era (`initialize`, as rmcp's client speaks);
//! - `core-modern`: the same in the 2026-07-28 era (`server/discover`, `_meta` in every request);
//! - `host`: the host API, `mcp_sansio_tokio::child::spawn` + `ClientHandle::call_tool`, on a
//!   `current_thread` runtime (pipelined: `--depth` tasks each awaiting one call at a time);
//!   legacy era;
//! - `rmcp`, `rmcp-mt` (feature `rmcp`): rmcp's client (`().serve(TokioChildProcess)`,
//!   `Peer::call_tool`) on a `current_thread` runtime and on the default multi-threaded one
//!   (pipelined: `--depth` tasks on clones of one peer).
//!
//! ```text
//! mcp-bench-client [--reps N] [--seq-secs S] [--pipe-secs S] [--depth D] [--message-bytes B]
//!                  --server 'COMMAND ARGS...' [--client LABEL=KIND]...
//! ```

mod core_path;
mod host_api;
#[cfg(feature = "rmcp")]
mod rmcp_client;

use std::process::Command;
use std::time::{Duration, Instant};

use mcp_sansio_bench::measure::{cpu_seconds, median, status_kib};

#[path = "../../../../core/tests/support/counting_alloc.rs"]
mod counting_alloc;
use counting_alloc::allocations;

/// This process's CPU time (all threads, user + system), in seconds; does not allocate.
fn self_cpu_seconds() -> f64 {
    // SAFETY: `getrusage` writes the zeroed struct it is given.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: as above; RUSAGE_SELF is always valid.
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

/// What a worker measured of one phase.
#[derive(Clone, Copy, Debug, Default)]
pub struct Phase {
    calls: u64,
    secs: f64,
    client_cpu: f64,
    server_cpu: f64,
    allocations: u64,
}

/// The start of a measured phase.
pub struct Mark {
    at: Instant,
    client_cpu: f64,
    server_cpu: f64,
    allocations: u64,
}

impl Mark {
    /// Reads the clocks and the allocation count; the server's CPU time (which allocates) first.
    pub fn start(server: u32) -> Mark {
        let server_cpu = cpu_seconds(server);
        let client_cpu = self_cpu_seconds();
        Mark { allocations: allocations(), at: Instant::now(), client_cpu, server_cpu }
    }

    /// The phase since `start`: the allocation count first, the server's CPU time last.
    pub fn end(&self, server: u32, calls: u64) -> Phase {
        let allocations = allocations() - self.allocations;
        let secs = self.at.elapsed().as_secs_f64();
        let client_cpu = self_cpu_seconds() - self.client_cpu;
        let server_cpu = cpu_seconds(server) - self.server_cpu;
        Phase { calls, secs, client_cpu, server_cpu, allocations }
    }
}

/// What a worker is asked to do.
pub struct Job {
    /// The server's command line.
    pub server: Vec<String>,
    /// The echoed message (printable ASCII, no escapes).
    pub message: String,
    pub seq: Duration,
    pub pipe: Duration,
    pub depth: usize,
}

impl Job {
    /// The tool's arguments as JSON text.
    pub fn arguments(&self) -> String {
        format!(r#"{{"message":"{}"}}"#, self.message)
    }
}

/// What a worker reports.
pub struct Report {
    pub seq: Phase,
    pub pipe: Phase,
}

/// Checks answers: whether a `CallToolResult` (as JSON text) is a successful echo of the message.
/// The searchers are built once (building one per search cost more than the client's own work
/// per call).
pub struct Check {
    message: memchr::memmem::Finder<'static>,
    error: memchr::memmem::Finder<'static>,
}

impl Check {
    pub fn new(message: &str) -> Check {
        Check {
            message: memchr::memmem::Finder::new(message.as_bytes()).into_owned(),
            error: memchr::memmem::Finder::new(br#""isError":true"#).into_owned(),
        }
    }

    pub fn ok(&self, result: &[u8]) -> bool {
        self.message.find(result).is_some() && self.error.find(result).is_none()
    }
}

/// Stops the worker with `what`.
pub fn fail(what: impl std::fmt::Display) -> ! {
    eprintln!("mcp-bench-client: {what}");
    std::process::exit(1)
}

const KINDS: &[&str] = &["core", "core-modern", "host", "rmcp", "rmcp-mt"];

fn default_clients() -> Vec<(String, String)> {
    let mut clients = vec![
        ("ours, core path (Client + driver)".to_string(), "core".to_string()),
        ("ours, host API (child::spawn)".to_string(), "host".to_string()),
        ("ours, core path, 2026-07-28 era".to_string(), "core-modern".to_string()),
    ];
    if cfg!(feature = "rmcp") {
        clients.push(("rmcp, current_thread".into(), "rmcp".into()));
        clients.push(("rmcp, multi-thread".into(), "rmcp-mt".into()));
    }
    clients
}

struct Options {
    reps: usize,
    job: Job,
    clients: Vec<(String, String)>,
}

fn usage(error: &str) -> ! {
    eprintln!("mcp-bench-client: {error}");
    eprintln!(
        "usage: mcp-bench-client [--reps N] [--seq-secs S] [--pipe-secs S] [--depth D] [--message-bytes B] \
         --server 'COMMAND ARGS...' [--client LABEL=KIND]...  (KIND: {})",
        KINDS.join(", ")
    );
    std::process::exit(2)
}

/// The options, and the worker's kind if this process is one.
fn parse_options() -> (Options, Option<String>) {
    let mut options = Options {
        reps: 5,
        job: Job {
            server: Vec::new(),
            message: String::new(),
            seq: Duration::from_secs(1),
            pipe: Duration::from_secs(2),
            depth: 64,
        },
        clients: Vec::new(),
    };
    let mut worker = None;
    let mut message_bytes = 64;
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut value = || args.next().unwrap_or_else(|| usage(&format!("{flag} needs a value")));
        let number = |v: String| v.parse::<f64>().unwrap_or_else(|_| usage(&format!("not a number: {v}")));
        match flag.as_str() {
            "--reps" => options.reps = number(value()) as usize,
            "--seq-secs" => options.job.seq = Duration::from_secs_f64(number(value())),
            "--pipe-secs" => options.job.pipe = Duration::from_secs_f64(number(value())),
            "--depth" => options.job.depth = (number(value()) as usize).max(1),
            "--message-bytes" => message_bytes = number(value()) as usize,
            "--server" => options.job.server = value().split_whitespace().map(String::from).collect(),
            "--client" => {
                let spec = value();
                let (label, kind) = spec.split_once('=').unwrap_or_else(|| usage("--client takes LABEL=KIND"));
                options.clients.push((label.into(), kind.into()));
            }
            "--worker" => worker = Some(value()),
            "-h" | "--help" => usage("help"),
            other => usage(&format!("unknown argument {other}")),
        }
    }
    if options.job.server.is_empty() {
        usage("no --server given");
    }
    if options.clients.is_empty() {
        options.clients = default_clients();
    }
    for kind in options.clients.iter().map(|(_, kind)| kind).chain(worker.as_ref()) {
        if !KINDS.contains(&kind.as_str()) || (kind.starts_with("rmcp") && !cfg!(feature = "rmcp")) {
            usage(&format!("unknown client kind {kind} (rmcp's need the `rmcp` feature)"));
        }
    }
    options.job.message = (0..message_bytes).map(|i| (b'a' + (i % 26) as u8) as char).collect();
    (options, worker)
}

/// Runs one client in this process and prints its report on stdout.
fn work(kind: &str, job: &Job) {
    let report = match kind {
        "core" => core_path::run(job, false),
        "core-modern" => core_path::run(job, true),
        "host" => host_api::run(job),
        #[cfg(feature = "rmcp")]
        "rmcp" => rmcp_client::run(job, false),
        #[cfg(feature = "rmcp")]
        "rmcp-mt" => rmcp_client::run(job, true),
        other => usage(&format!("unknown client kind {other}")),
    };
    for (name, p) in [("seq", report.seq), ("pipe", report.pipe)] {
        println!("{name} {} {} {} {} {}", p.calls, p.secs, p.client_cpu, p.server_cpu, p.allocations);
    }
    println!("rss_kib {}", status_kib(std::process::id(), "VmHWM"));
}

#[derive(Clone, Copy, Default)]
struct Sample {
    seq: Phase,
    pipe: Phase,
    rss_mb: f64,
}

impl Sample {
    fn parse(text: &str) -> Option<Sample> {
        let mut sample = Sample::default();
        for line in text.lines() {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let phase = |f: &[&str]| -> Option<Phase> {
                Some(Phase {
                    calls: f.get(1)?.parse().ok()?,
                    secs: f.get(2)?.parse().ok()?,
                    client_cpu: f.get(3)?.parse().ok()?,
                    server_cpu: f.get(4)?.parse().ok()?,
                    allocations: f.get(5)?.parse().ok()?,
                })
            };
            match fields.first() {
                Some(&"seq") => sample.seq = phase(&fields)?,
                Some(&"pipe") => sample.pipe = phase(&fields)?,
                Some(&"rss_kib") => sample.rss_mb = fields.get(1)?.parse::<f64>().ok()? / 1024.0,
                _ => {}
            }
        }
        (sample.seq.calls > 0 && sample.pipe.calls > 0).then_some(sample)
    }
}

fn per_call_us(seconds: f64, calls: u64) -> f64 {
    seconds * 1e6 / calls as f64
}

fn measure(kind: &str, options: &Options) -> Sample {
    let job = &options.job;
    let output = Command::new(std::env::current_exe().unwrap_or_else(|e| fail(e)))
        .args(["--worker", kind, "--server", &job.server.join(" ")])
        .args(["--seq-secs", &job.seq.as_secs_f64().to_string(), "--pipe-secs", &job.pipe.as_secs_f64().to_string()])
        .args(["--depth", &job.depth.to_string(), "--message-bytes", &job.message.len().to_string()])
        .stderr(std::process::Stdio::inherit())
        .output()
        .unwrap_or_else(|e| fail(format!("cannot run a worker: {e}")));
    let text = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() {
        fail(format!("the {kind} worker failed ({}): {text}", output.status));
    }
    Sample::parse(&text).unwrap_or_else(|| fail(format!("the {kind} worker's report is not usable: {text}")))
}

fn main() {
    let (options, worker) = parse_options();
    if let Some(kind) = worker {
        work(&kind, &options.job);
        return;
    }
    let started = Instant::now();
    let clients = &options.clients;
    let mut samples: Vec<Vec<Sample>> = vec![Vec::new(); clients.len()];
    for rep in 0..options.reps {
        for k in 0..clients.len() {
            let index = (k + rep) % clients.len();
            let s = measure(&clients[index].1, &options);
            eprintln!(
                "rep {}/{} {:<36} seq {:7.0}/s cpu {:6.2}+{:6.2} us/call allocs {:6.2}/call ({})  pipelined {:8.0}/s cpu {:5.2}+{:5.2} us/call allocs {:6.2}/call ({})  rss {:5.1} MB",
                rep + 1,
                options.reps,
                clients[index].0,
                s.seq.calls as f64 / s.seq.secs,
                per_call_us(s.seq.client_cpu, s.seq.calls),
                per_call_us(s.seq.server_cpu, s.seq.calls),
                s.seq.allocations as f64 / s.seq.calls as f64,
                s.seq.allocations,
                s.pipe.calls as f64 / s.pipe.secs,
                per_call_us(s.pipe.client_cpu, s.pipe.calls),
                per_call_us(s.pipe.server_cpu, s.pipe.calls),
                s.pipe.allocations as f64 / s.pipe.calls as f64,
                s.pipe.allocations,
                s.rss_mb,
            );
            samples[index].push(s);
        }
    }

    let metric = |i: usize, f: fn(&Sample) -> f64| median(samples[i].iter().map(f).collect());
    // (name, value, higher is better, in the ratio table)
    type Column = (&'static str, fn(&Sample) -> f64, bool, bool);
    let columns: [Column; 11] = [
        ("seq calls/s", |s| s.seq.calls as f64 / s.seq.secs, true, true),
        ("seq client CPU us/call", |s| per_call_us(s.seq.client_cpu, s.seq.calls), false, true),
        ("seq server CPU us/call", |s| per_call_us(s.seq.server_cpu, s.seq.calls), false, true),
        ("seq total CPU us/call", |s| per_call_us(s.seq.client_cpu + s.seq.server_cpu, s.seq.calls), false, true),
        ("seq client allocs/call", |s| s.seq.allocations as f64 / s.seq.calls as f64, false, false),
        ("pipelined calls/s", |s| s.pipe.calls as f64 / s.pipe.secs, true, true),
        ("pipelined client CPU us/call", |s| per_call_us(s.pipe.client_cpu, s.pipe.calls), false, true),
        ("pipelined server CPU us/call", |s| per_call_us(s.pipe.server_cpu, s.pipe.calls), false, true),
        (
            "pipelined total CPU us/call",
            |s| per_call_us(s.pipe.client_cpu + s.pipe.server_cpu, s.pipe.calls),
            false,
            true,
        ),
        ("pipelined client allocs/call", |s| s.pipe.allocations as f64 / s.pipe.calls as f64, false, false),
        ("client peak RSS MB", |s| s.rss_mb, false, true),
    ];
    println!(
        "\nmcp-bench-client: {} reps, {} B message, server `{}`, sequential {:?}, pipelined {:?} at depth {}; medians over reps; {:.0} s in all\n",
        options.reps,
        options.job.message.len(),
        options.job.server.join(" "),
        options.job.seq,
        options.job.pipe,
        options.job.depth,
        started.elapsed().as_secs_f64()
    );
    print!("| client |");
    for (name, ..) in &columns {
        print!(" {name} |");
    }
    println!();
    println!("|---|{}", "---:|".repeat(columns.len()));
    for (i, (label, _)) in clients.iter().enumerate() {
        print!("| {label} |");
        for (name, f, ..) in &columns {
            let value = metric(i, *f);
            if name.contains("allocs") {
                print!(" {value:.3} |");
            } else if value >= 1000.0 {
                print!(" {value:.0} |");
            } else {
                print!(" {value:.2} |");
            }
        }
        println!();
    }
    let first = &clients[0].0;
    println!("\nRatios of {first} to each client (of the medians; > 1 means {first} is better):\n");
    print!("| {first} vs |");
    let ratio_columns: Vec<&Column> = columns.iter().filter(|c| c.3).collect();
    for (name, ..) in &ratio_columns {
        print!(" {name} |");
    }
    println!();
    println!("|---|{}", "---:|".repeat(ratio_columns.len()));
    for (i, (label, _)) in clients.iter().enumerate().skip(1) {
        print!("| {label} |");
        for (_, f, higher_is_better, _) in &ratio_columns {
            let (ours, theirs) = (metric(0, *f), metric(i, *f));
            let ratio = if *higher_is_better { ours / theirs } else { theirs / ours };
            print!(" {ratio:.2}x |");
        }
        println!();
    }

    // The issue's targets: ours pipelined at least 2x rmcp's best, and no allocation per call.
    let pipelined = |i: usize| metric(i, columns[5].1);
    let rmcp_best = (0..clients.len())
        .filter(|&i| clients[i].1.starts_with("rmcp"))
        .max_by(|&a, &b| pipelined(a).total_cmp(&pipelined(b)));
    println!();
    for (i, (label, kind)) in clients.iter().enumerate().filter(|(_, (_, kind))| !kind.starts_with("rmcp")) {
        let most = |f: fn(&Sample) -> Phase| samples[i].iter().map(f).max_by_key(|p| p.allocations).unwrap_or_default();
        let (seq, pipe) = (most(|s| s.seq), most(|s| s.pipe));
        print!(
            "- {label}: client allocations in a phase at most {} in {} sequential calls ({:.3}/call), {} in {} pipelined calls ({:.3}/call)",
            seq.allocations,
            seq.calls,
            seq.allocations as f64 / seq.calls as f64,
            pipe.allocations,
            pipe.calls,
            pipe.allocations as f64 / pipe.calls as f64
        );
        if let Some(best) = rmcp_best.filter(|_| kind != "core-modern") {
            print!(
                "; pipelined {:.2}x the calls/s of rmcp's best here ({})",
                pipelined(i) / pipelined(best),
                clients[best].0
            );
        }
        println!();
    }
}
