//! `mcp-bench-http`: one load generator speaking MCP over Streamable HTTP (HTTP/1.1 on loopback) to
//! several servers, run alternately in one run, reported as ratios.
//!
//! Each server is a command that serves MCP at `http://127.0.0.1:{port}/mcp` (`{port}` in its
//! arguments is replaced by a free port) and has an `echo` tool taking `{"message": string}`. Per
//! repetition, in an order rotated each repetition, every server is started afresh and gets:
//!
//! - **legacy** (protocol 2025-11-25): each client opens its own session (`initialize`, its
//!   `Mcp-Session-Id`, `notifications/initialized`), then calls `tools/call echo`; a server that
//!   mints no session id is served without one (its requests are then stateless);
//! - **stateless 2026-07-28**: no `initialize`; each request carries the `_meta` protocol version,
//!   client info and capabilities, and the `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` headers;
//!
//! each era measured with 1 client calling one at a time for `--seq-secs` (latency p50/p99,
//! calls/s) and with `--clients` clients at once for `--conc-secs`, each on its own kept-alive
//! connection (throughput, latency p99); the server's CPU per call from `/proc/<pid>/stat`
//! utime+stime over each phase. Answers may be JSON or SSE: both are parsed, and every answer is
//! checked to carry the message back. Then **peak RSS** (`VmHWM`), and **memory per idle legacy
//! session**: `--sessions` sessions opened (`initialize` + `notifications/initialized` over
//! `--clients` connections, closed afterwards) and left idle, `VmRSS` growth divided by their number
//! (the oldest and the newest are checked to still answer).
//!
//! The report gives each metric's median over the repetitions, then the ratios of the first
//! server (`--server` order) to every other one. The client is one `current_thread` tokio runtime.
//!
//! ```text
//! mcp-bench-http [--reps N] [--seq-secs S] [--conc-secs S] [--clients C] [--sessions K]
//!                [--message-bytes B] --server 'LABEL=COMMAND ARGS... {port}' [--server ...]
//! ```

mod client;
mod phases;
mod process;

use std::sync::Arc;
use std::time::Duration;

use mcp_sansio_bench::measure::{median, status_kib};
use phases::{Calls, Era};
use process::{Process, ServerSpec};

struct Options {
    reps: usize,
    seq: Duration,
    conc: Duration,
    clients: usize,
    sessions: usize,
    message: Arc<str>,
    servers: Vec<ServerSpec>,
}

fn usage(error: &str) -> ! {
    eprintln!("mcp-bench-http: {error}");
    eprintln!(
        "usage: mcp-bench-http [--reps N] [--seq-secs S] [--conc-secs S] [--clients C] [--sessions K] \
         [--message-bytes B] --server 'LABEL=COMMAND ARGS... {{port}}' [--server ...]"
    );
    std::process::exit(2)
}

fn parse_options() -> Options {
    let (mut reps, mut seq, mut conc, mut clients, mut sessions, mut message_bytes) = (5, 2.0, 3.0, 64, 10_000, 64);
    let mut servers = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut value = || args.next().unwrap_or_else(|| usage(&format!("{flag} needs a value")));
        let number = |v: String| v.parse::<f64>().unwrap_or_else(|_| usage(&format!("not a number: {v}")));
        match flag.as_str() {
            "--reps" => reps = number(value()) as usize,
            "--seq-secs" => seq = number(value()),
            "--conc-secs" => conc = number(value()),
            "--clients" => clients = number(value()) as usize,
            "--sessions" => sessions = number(value()) as usize,
            "--message-bytes" => message_bytes = number(value()) as usize,
            "--server" => {
                let spec = value();
                let (label, command) = spec.split_once('=').unwrap_or_else(|| usage("--server takes LABEL=COMMAND"));
                let argv: Vec<String> = command.split_whitespace().map(String::from).collect();
                if argv.is_empty() {
                    usage("empty server command");
                }
                servers.push(ServerSpec { label: label.into(), argv });
            }
            "-h" | "--help" => usage("help"),
            other => usage(&format!("unknown argument {other}")),
        }
    }
    if servers.is_empty() {
        usage("no --server given");
    }
    // A message of printable ASCII without escapes, `message_bytes` long.
    let message: String = (0..message_bytes).map(|i| (b'a' + (i % 26) as u8) as char).collect();
    Options {
        reps: reps.max(1),
        seq: Duration::from_secs_f64(seq),
        conc: Duration::from_secs_f64(conc),
        clients: clients.max(1),
        sessions,
        message: message.into(),
        servers,
    }
}

struct Sample {
    /// [legacy, stateless] × [sequential, concurrent].
    calls: [[Calls; 2]; 2],
    peak_rss_mb: f64,
    idle_session_bytes: Option<f64>,
}

fn measure(runtime: &tokio::runtime::Runtime, spec: &ServerSpec, options: &Options) -> Sample {
    let mut process = Process::start(spec);
    let (addr, pid) = (process.addr, process.pid());
    let mut run = |era: Era, clients: usize, duration: Duration, warmup: usize| {
        let message = options.message.clone();
        match runtime.block_on(phases::calls(addr, pid, era, message, clients, duration, warmup)) {
            Ok(calls) => calls,
            Err(error) => process.fail(&spec.label, format!("{era:?}, {clients} clients: {error}")),
        }
    };
    let calls = [
        [run(Era::Legacy, 1, options.seq, 200), run(Era::Legacy, options.clients, options.conc, 20)],
        [run(Era::Stateless, 1, options.seq, 200), run(Era::Stateless, options.clients, options.conc, 20)],
    ];
    let peak_rss_mb = status_kib(pid, "VmHWM") as f64 / 1024.0;
    let idle_session_bytes = if options.sessions == 0 {
        None
    } else {
        let idle = phases::idle_sessions(
            addr,
            pid,
            options.message.clone(),
            options.sessions,
            options.clients,
            Duration::from_millis(500),
        );
        match runtime.block_on(idle) {
            Ok(bytes) => bytes,
            Err(error) => process.fail(&spec.label, format!("idle sessions: {error}")),
        }
    };
    process.stop();
    Sample { calls, peak_rss_mb, idle_session_bytes }
}

type Column = (&'static str, Box<dyn Fn(&Sample) -> f64>, bool);

/// The columns of one era: (name, value, higher is better).
fn era_columns(era: usize, clients: usize) -> Vec<Column> {
    let at = move |phase: usize, f: fn(&Calls) -> f64| -> Box<dyn Fn(&Sample) -> f64> {
        Box::new(move |s: &Sample| f(&s.calls[era][phase]))
    };
    let many = |what: &str| -> &'static str { Box::leak(format!("{clients} clients {what}").into_boxed_str()) };
    vec![
        ("seq p50 us", at(0, |c| c.p50_us), false),
        ("seq p99 us", at(0, |c| c.p99_us), false),
        ("seq calls/s", at(0, |c| c.calls_per_s), true),
        ("seq CPU us/call", at(0, |c| c.cpu_us_per_call), false),
        (many("calls/s"), at(1, |c| c.calls_per_s), true),
        (many("p99 us"), at(1, |c| c.p99_us), false),
        (many("CPU us/call"), at(1, |c| c.cpu_us_per_call), false),
    ]
}

fn print_value(value: f64) {
    if value.is_nan() {
        print!(" n/a |")
    } else if value >= 1000.0 {
        print!(" {value:.0} |")
    } else {
        print!(" {value:.2} |")
    }
}

fn table(
    title: &str,
    columns: &[Column],
    servers: &[ServerSpec],
    samples: &[Vec<Sample>],
    note: &dyn Fn(usize) -> String,
) {
    let metric = |i: usize, f: &dyn Fn(&Sample) -> f64| median(samples[i].iter().map(f).collect());
    println!("\n{title}\n");
    print!("| server |");
    columns.iter().for_each(|(name, _, _)| print!(" {name} |"));
    println!("\n|---|{}", "---:|".repeat(columns.len()));
    for (i, server) in servers.iter().enumerate() {
        print!("| {}{} |", server.label, note(i));
        columns.iter().for_each(|(_, f, _)| print_value(metric(i, f)));
        println!();
    }
    let first = &servers[0].label;
    println!(
        "\n{title}: ratios of {first} to each (> 1: {first} better; for times and sizes the other's value over ours)\n"
    );
    print!("| {first} vs |");
    columns.iter().for_each(|(name, _, _)| print!(" {name} |"));
    println!("\n|---|{}", "---:|".repeat(columns.len()));
    for (i, server) in servers.iter().enumerate().skip(1) {
        print!("| {}{} |", server.label, note(i));
        for (_, f, higher_is_better) in columns {
            let (ours, theirs) = (metric(0, f), metric(i, f));
            let ratio = if *higher_is_better { ours / theirs } else { theirs / ours };
            if ratio.is_nan() { print!(" n/a |") } else { print!(" {ratio:.2}x |") }
        }
        println!();
    }
}

fn main() {
    let options = parse_options();
    let servers = &options.servers;
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("tokio runtime");
    let mut samples: Vec<Vec<Sample>> = (0..servers.len()).map(|_| Vec::new()).collect();
    for rep in 0..options.reps {
        for k in 0..servers.len() {
            let index = (k + rep) % servers.len();
            let s = measure(&runtime, &servers[index], &options);
            let [[ls, lc], [ms, mc]] = &s.calls;
            let phase = |c: &Calls| {
                format!(
                    "p50 {:7.1} us {:6.0}/s cpu {:5.1} us (client {:4.1})",
                    c.p50_us, c.calls_per_s, c.cpu_us_per_call, c.client_cpu_us_per_call
                )
            };
            eprintln!(
                "rep {}/{} {}: legacy 1c {} {}c {} | 2026 1c {} {}c {} | rss {:.1} MB | idle {} B/session",
                rep + 1,
                options.reps,
                servers[index].label,
                phase(ls),
                options.clients,
                phase(lc),
                phase(ms),
                options.clients,
                phase(mc),
                s.peak_rss_mb,
                s.idle_session_bytes.map_or("n/a".into(), |b| format!("{b:.0}")),
            );
            samples[index].push(s);
        }
    }

    println!(
        "\nmcp-bench-http: {} reps, {} B message, sequential {:?} (1 client), concurrent {:?} ({} clients, one connection each), \
         {} idle legacy sessions; medians over reps",
        options.reps,
        options.message.len(),
        options.seq,
        options.conc,
        options.clients,
        options.sessions
    );
    let sessionless = |i: usize| {
        if samples[i].iter().any(|s| !s.calls[0][0].sessions) {
            " (no session ids: stateless)".to_owned()
        } else {
            String::new()
        }
    };
    let none = |_: usize| String::new();
    table(
        "Legacy 2025-11-25 (a session per client)",
        &era_columns(0, options.clients),
        servers,
        &samples,
        &sessionless,
    );
    table("Stateless 2026-07-28", &era_columns(1, options.clients), servers, &samples, &none);
    let memory: Vec<Column> = vec![
        ("peak RSS MB (before the idle sessions)", Box::new(|s: &Sample| s.peak_rss_mb), false),
        (
            Box::leak(format!("B per idle legacy session ({})", options.sessions).into_boxed_str()),
            Box::new(|s: &Sample| s.idle_session_bytes.unwrap_or(f64::NAN)),
            false,
        ),
    ];
    table("Memory", &memory, servers, &samples, &none);
}
