//! `mcp-bench`: one load generator speaking MCP (NDJSON over stdio pipes) to several servers, run
//! alternately in one run, reported as ratios.
//!
//! Each server is a command that serves MCP on its stdin/stdout and has an `echo` tool taking
//! `{"message": string}`. Per repetition, in an order rotated each repetition, every server gets:
//!
//! - **start-up**: `--startups` fresh processes (and the session's own), each timed from `spawn`
//!   to the complete answer of `initialize` (median);
//! - one **session**: `initialize`, `notifications/initialized`, one checked echo call, then
//!   - **sequential**: one `tools/call echo` at a time for `--seq-secs` (latency p50/p99, calls/s,
//!     and the server's CPU time per call),
//!   - **pipelined**: `--depth` calls kept in flight for `--pipe-secs` (calls/s, and the server's
//!     CPU time per call from `/proc/<pid>/stat` utime+stime over the phase),
//!   - **peak RSS**: `VmHWM` from `/proc/<pid>/status` at the end of the session.
//!
//! The report gives each metric's median over the repetitions, then the ratios of the first
//! server (`--server` order) to every other one.
//!
//! ```text
//! mcp-bench [--reps N] [--seq-secs S] [--pipe-secs S] [--depth D] [--startups K] [--message-bytes B]
//!           --server 'LABEL=COMMAND ARGS...' [--server ...] [--canned LABEL]...
//! ```
//! `--canned LABEL` marks a server whose echo answers are canned (the floor): its answers are
//! checked to be results, not to carry the message back.

use std::io::{Read, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use mcp_sansio_bench::measure::{cpu_seconds, median, percentile, push_decimal, read_room, status_kib};

struct Server {
    label: String,
    argv: Vec<String>,
    canned: bool,
}

struct Options {
    reps: usize,
    seq: Duration,
    pipe: Duration,
    depth: usize,
    startups: usize,
    message: String,
    servers: Vec<Server>,
}

fn usage(error: &str) -> ! {
    eprintln!("mcp-bench: {error}");
    eprintln!(
        "usage: mcp-bench [--reps N] [--seq-secs S] [--pipe-secs S] [--depth D] [--startups K] [--message-bytes B] \
         --server 'LABEL=COMMAND ARGS...' [--server ...] [--canned LABEL]..."
    );
    std::process::exit(2)
}

fn parse_options() -> Options {
    let mut options = Options {
        reps: 5,
        seq: Duration::from_secs(1),
        pipe: Duration::from_secs(2),
        depth: 64,
        startups: 10,
        message: String::new(),
        servers: Vec::new(),
    };
    let mut message_bytes = 64;
    let mut canned = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut value = || args.next().unwrap_or_else(|| usage(&format!("{flag} needs a value")));
        let number = |v: String| v.parse::<f64>().unwrap_or_else(|_| usage(&format!("not a number: {v}")));
        match flag.as_str() {
            "--reps" => options.reps = number(value()) as usize,
            "--seq-secs" => options.seq = Duration::from_secs_f64(number(value())),
            "--pipe-secs" => options.pipe = Duration::from_secs_f64(number(value())),
            "--depth" => options.depth = number(value()) as usize,
            "--startups" => options.startups = number(value()) as usize,
            "--message-bytes" => message_bytes = number(value()) as usize,
            "--canned" => canned.push(value()),
            "--server" => {
                let spec = value();
                let (label, command) = spec.split_once('=').unwrap_or_else(|| usage("--server takes LABEL=COMMAND"));
                let argv: Vec<String> = command.split_whitespace().map(String::from).collect();
                if argv.is_empty() {
                    usage("empty server command");
                }
                options.servers.push(Server { label: label.into(), argv, canned: false });
            }
            "-h" | "--help" => usage("help"),
            other => usage(&format!("unknown argument {other}")),
        }
    }
    if options.servers.is_empty() {
        usage("no --server given");
    }
    for label in canned {
        match options.servers.iter_mut().find(|s| s.label == label) {
            Some(server) => server.canned = true,
            None => usage(&format!("--canned {label}: no such server")),
        }
    }
    options.depth = options.depth.max(1);
    // A message of printable ASCII without escapes, `message_bytes` long.
    options.message = (0..message_bytes).map(|i| (b'a' + (i % 26) as u8) as char).collect();
    options
}

/// Reads NDJSON lines from the child's stdout through one reused buffer.
struct Lines {
    out: ChildStdout,
    buf: Vec<u8>,
    start: usize,
    end: usize,
}

impl Lines {
    fn new(out: ChildStdout) -> Self {
        Lines { out, buf: vec![0; 1 << 20], start: 0, end: 0 }
    }

    fn fill(&mut self) -> std::io::Result<()> {
        let n = self.out.read(read_room(&mut self.buf, &mut self.start, &mut self.end))?;
        if n == 0 {
            return Err(std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "the server closed its stdout"));
        }
        self.end += n;
        Ok(())
    }

    /// The next line (without its newline), waiting for it.
    fn line(&mut self) -> std::io::Result<&[u8]> {
        loop {
            if let Some(at) = memchr::memchr(b'\n', &self.buf[self.start..self.end]) {
                let line = self.start..self.start + at;
                self.start += at + 1;
                return Ok(&self.buf[line]);
            }
            self.fill()?;
        }
    }

    /// Waits for input once, then calls `each` for every complete line buffered; how many.
    fn some_lines(&mut self, mut each: impl FnMut(&[u8])) -> std::io::Result<usize> {
        self.fill()?;
        let mut count = 0;
        while let Some(at) = memchr::memchr(b'\n', &self.buf[self.start..self.end]) {
            each(&self.buf[self.start..self.start + at]);
            self.start += at + 1;
            count += 1;
        }
        Ok(count)
    }
}

struct Session {
    child: Child,
    stdin: ChildStdin,
    lines: Lines,
}

const INITIALIZE: &[u8] = br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"mcp-bench","version":"0.0.0"}}}
"#;
const INITIALIZED: &[u8] = b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n";

fn fail(server: &Server, what: impl std::fmt::Display) -> ! {
    eprintln!("mcp-bench: {}: {what}", server.label);
    std::process::exit(1)
}

/// Spawns the server and completes `initialize`; the session and the time from spawn to the answer.
fn start(server: &Server) -> (Session, Duration) {
    let started = Instant::now();
    let mut child = Command::new(&server.argv[0])
        .args(&server.argv[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap_or_else(|e| fail(server, format!("cannot start {:?}: {e}", server.argv)));
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = Lines::new(child.stdout.take().unwrap());
    stdin.write_all(INITIALIZE).unwrap_or_else(|e| fail(server, e));
    let answer = lines.line().unwrap_or_else(|e| fail(server, e));
    let elapsed = started.elapsed();
    let text = String::from_utf8_lossy(answer);
    if !(text.contains(r#""id":0"#) && text.contains(r#""result""#) && text.contains("protocolVersion")) {
        fail(server, format!("bad initialize answer: {text}"));
    }
    (Session { child, stdin, lines }, elapsed)
}

impl Session {
    fn finish(mut self, server: &Server) {
        drop(self.stdin);
        let status = self.child.wait().unwrap_or_else(|e| fail(server, e));
        if !status.success() {
            fail(server, format!("exited with {status}"));
        }
    }
}

/// `tools/call echo` requests with increasing ids.
struct Requests {
    prefix: Vec<u8>,
    suffix: Vec<u8>,
    next_id: u64,
}

impl Requests {
    fn new(message: &str) -> Self {
        let suffix =
            format!(r#","method":"tools/call","params":{{"name":"echo","arguments":{{"message":"{message}"}}}}}}"#);
        Requests {
            prefix: br#"{"jsonrpc":"2.0","id":"#.to_vec(),
            suffix: [suffix.as_bytes(), b"\n"].concat(),
            next_id: 1,
        }
    }

    fn push(&mut self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.prefix);
        push_decimal(out, self.next_id);
        out.extend_from_slice(&self.suffix);
        self.next_id += 1;
    }
}

/// Whether `line` is a successful echo answer (carrying `message`, unless the server is canned).
fn answer_ok(line: &[u8], server: &Server, message: &[u8]) -> bool {
    memchr::memmem::find(line, br#""result""#).is_some()
        && memchr::memmem::find(line, br#""isError":true"#).is_none()
        && (server.canned || memchr::memmem::find(line, message).is_some())
}

#[derive(Clone, Copy, Default)]
struct Sample {
    startup_ms: f64,
    seq_p50_us: f64,
    seq_p99_us: f64,
    seq_calls_per_s: f64,
    seq_cpu_us_per_call: f64,
    pipe_calls_per_s: f64,
    cpu_us_per_call: f64,
    peak_rss_mb: f64,
}

fn measure(server: &Server, options: &Options) -> Sample {
    let mut sample = Sample::default();
    let mut startups: Vec<f64> = (0..options.startups)
        .map(|_| {
            let (session, elapsed) = start(server);
            session.finish(server);
            elapsed.as_secs_f64() * 1e3
        })
        .collect();

    let (mut session, elapsed) = start(server);
    startups.push(elapsed.as_secs_f64() * 1e3);
    sample.startup_ms = median(startups);
    let pid = session.child.id();
    let message = options.message.as_bytes();
    let mut requests = Requests::new(&options.message);
    let mut out = Vec::with_capacity(1 << 16);

    session.stdin.write_all(INITIALIZED).unwrap_or_else(|e| fail(server, e));
    // One checked call: the answer is a tool result, with the message as its text content.
    requests.push(&mut out);
    session.stdin.write_all(&out).unwrap_or_else(|e| fail(server, e));
    out.clear();
    let first = session.lines.line().unwrap_or_else(|e| fail(server, e)).to_vec();
    let parsed: serde_json::Value =
        serde_json::from_slice(&first).unwrap_or_else(|e| fail(server, format!("echo answer is not JSON ({e})")));
    let text = parsed.pointer("/result/content/0/text").and_then(|t| t.as_str());
    if parsed["id"] != 1 || (!server.canned && text != Some(options.message.as_str())) {
        fail(server, format!("bad echo answer: {}", String::from_utf8_lossy(&first)));
    }

    // Sequential: one call at a time.
    let mut latencies = Vec::with_capacity(1 << 16);
    let seq_cpu_before = cpu_seconds(pid);
    let phase = Instant::now();
    while phase.elapsed() < options.seq {
        requests.push(&mut out);
        let sent = Instant::now();
        session.stdin.write_all(&out).unwrap_or_else(|e| fail(server, e));
        out.clear();
        let line = session.lines.line().unwrap_or_else(|e| fail(server, e));
        latencies.push(sent.elapsed().as_secs_f64() * 1e6);
        if !answer_ok(line, server, message) {
            fail(server, format!("bad answer: {}", String::from_utf8_lossy(line)));
        }
    }
    let seq_elapsed = phase.elapsed().as_secs_f64();
    let seq_cpu = cpu_seconds(pid) - seq_cpu_before;
    sample.seq_cpu_us_per_call = seq_cpu * 1e6 / latencies.len() as f64;
    sample.seq_calls_per_s = latencies.len() as f64 / seq_elapsed;
    latencies.sort_by(f64::total_cmp);
    sample.seq_p50_us = percentile(&latencies, 50.0);
    sample.seq_p99_us = percentile(&latencies, 99.0);

    // Pipelined: keep `depth` calls in flight; each read's answers are replaced in one write.
    let mut in_flight = 0;
    let mut answered = 0u64;
    let mut bad = None;
    let cpu_before = cpu_seconds(pid);
    let phase = Instant::now();
    loop {
        let running = phase.elapsed() < options.pipe;
        if running {
            while in_flight < options.depth {
                requests.push(&mut out);
                in_flight += 1;
            }
            session.stdin.write_all(&out).unwrap_or_else(|e| fail(server, e));
            out.clear();
        } else if in_flight == 0 {
            break;
        }
        let n = session
            .lines
            .some_lines(|line| {
                if bad.is_none() && !answer_ok(line, server, message) {
                    bad = Some(String::from_utf8_lossy(line).into_owned());
                }
            })
            .unwrap_or_else(|e| fail(server, e));
        in_flight -= n;
        answered += n as u64;
    }
    let pipe_elapsed = phase.elapsed().as_secs_f64();
    let cpu = cpu_seconds(pid) - cpu_before;
    if let Some(line) = bad {
        fail(server, format!("bad answer: {line}"));
    }
    sample.pipe_calls_per_s = answered as f64 / pipe_elapsed;
    sample.cpu_us_per_call = cpu * 1e6 / answered as f64;
    sample.peak_rss_mb = status_kib(pid, "VmHWM") as f64 / 1024.0;
    session.finish(server);
    sample
}

fn main() {
    let options = parse_options();
    let servers = &options.servers;
    let mut samples: Vec<Vec<Sample>> = vec![Vec::new(); servers.len()];
    for rep in 0..options.reps {
        for k in 0..servers.len() {
            let index = (k + rep) % servers.len();
            let sample = measure(&servers[index], &options);
            eprintln!(
                "rep {}/{} {:<18} seq p50 {:7.1} us  seq {:8.0}/s  seq cpu {:6.2} us/call  pipelined {:9.0}/s  cpu {:6.2} us/call  rss {:5.1} MB  start {:6.2} ms",
                rep + 1,
                options.reps,
                servers[index].label,
                sample.seq_p50_us,
                sample.seq_calls_per_s,
                sample.seq_cpu_us_per_call,
                sample.pipe_calls_per_s,
                sample.cpu_us_per_call,
                sample.peak_rss_mb,
                sample.startup_ms
            );
            samples[index].push(sample);
        }
    }

    let metric = |i: usize, f: fn(&Sample) -> f64| median(samples[i].iter().map(f).collect());
    type Column = (&'static str, fn(&Sample) -> f64, bool);
    // (name, value, higher is better)
    let columns: [Column; 8] = [
        ("seq p50 us", |s| s.seq_p50_us, false),
        ("seq p99 us", |s| s.seq_p99_us, false),
        ("seq calls/s", |s| s.seq_calls_per_s, true),
        ("seq CPU us/call", |s| s.seq_cpu_us_per_call, false),
        ("pipelined calls/s", |s| s.pipe_calls_per_s, true),
        ("pipelined CPU us/call", |s| s.cpu_us_per_call, false),
        ("peak RSS MB", |s| s.peak_rss_mb, false),
        ("start-up ms", |s| s.startup_ms, false),
    ];
    println!(
        "\nmcp-bench: {} reps, {} B message, sequential {:?}, pipelined {:?} at depth {}, {} start-ups per rep; medians over reps\n",
        options.reps,
        options.message.len(),
        options.seq,
        options.pipe,
        options.depth,
        options.startups + 1
    );
    print!("| server |");
    for (name, _, _) in &columns {
        print!(" {name} |");
    }
    println!();
    println!("|---|{}", "---:|".repeat(columns.len()));
    for (i, server) in servers.iter().enumerate() {
        print!("| {} |", server.label);
        for (_, f, _) in &columns {
            let value = metric(i, *f);
            if value >= 1000.0 { print!(" {value:.0} |") } else { print!(" {value:.2} |") }
        }
        println!();
    }
    let first = &servers[0].label;
    println!("\nRatios of {first} to each server (of the medians; > 1 means {first} is better for every column):\n");
    print!("| {first} vs |");
    for (name, _, _) in &columns {
        print!(" {name} |");
    }
    println!();
    println!("|---|{}", "---:|".repeat(columns.len()));
    for (i, server) in servers.iter().enumerate().skip(1) {
        print!("| {} |", server.label);
        for (_, f, higher_is_better) in &columns {
            let (ours, theirs) = (metric(0, *f), metric(i, *f));
            let ratio = if *higher_is_better { ours / theirs } else { theirs / ours };
            print!(" {ratio:.2}x |");
        }
        println!();
    }
}
