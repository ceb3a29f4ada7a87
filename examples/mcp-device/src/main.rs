//! `mcp-device`: the example device as an MCP server on stdin/stdout, with a simulated board.
//!
//! MCP messages go to stdout only; diagnostics go to stderr.

#![forbid(unsafe_code)]

use std::process::ExitCode;

use clap::Parser;
use mcp_example_device::{Board, Device, INSTRUCTIONS, SAMPLE_CALIBRATION, SERVER_NAME, Sensor, simulated_temperature};
use mcp_sansio::server::{
    Buffers, CacheHints, CacheScope, Config, Event, Handler, Limits, Prompt, PromptGet, PromptReply, Resource,
    ResourceRead, ResourceReply, Server, Tool, ToolCall, ToolReply,
};
use mcp_sansio::time::Instant;

/// The example device as an MCP server speaking newline-delimited JSON-RPC on stdin/stdout.
#[derive(Parser, Debug)]
#[command(version, about)]
struct Args {
    /// Longest message accepted, in bytes (the receive buffer).
    #[arg(long, default_value_t = 1 << 20)]
    max_message_bytes: usize,
    /// Transmit buffer, in bytes; the largest answer is a quarter of it, so several answers can be
    /// batched into one write.
    #[arg(long, default_value_t = 1 << 20)]
    transmit_bytes: usize,
    /// Print every protocol event (sessions, rejected input) on stderr.
    #[arg(long)]
    verbose: bool,
    /// Opt-in: when no request is waiting, poll stdin in a busy loop for up to this many
    /// microseconds before sleeping (lower round-trip latency on an idle machine, for up to this
    /// much CPU per request; see `mcp_sansio_tokio::FdReader::spin_before_wait`). 0: sleep at once.
    #[arg(long, default_value_t = 0)]
    spin_us: u64,
}

/// A board simulated in the host process: a temperature that drifts slowly with time.
struct SimulatedBoard {
    led: bool,
}

impl Board for SimulatedBoard {
    fn temperature_celsius(&mut self, sensor: Sensor, now: Instant) -> Option<f32> {
        Some(simulated_temperature(sensor, now))
    }

    fn set_led(&mut self, on: bool) {
        self.led = on;
    }

    fn led(&self) -> bool {
        self.led
    }

    fn calibration(&self) -> &[u8] {
        &SAMPLE_CALIBRATION
    }
}

/// Forwards to the device logic and reports events on stderr.
struct Logged<H> {
    inner: H,
    verbose: bool,
}

impl<H: Handler> Handler for Logged<H> {
    fn tool(&self, index: usize) -> Option<Tool<'_>> {
        self.inner.tool(index)
    }
    fn resource(&self, index: usize) -> Option<Resource<'_>> {
        self.inner.resource(index)
    }
    fn prompt(&self, index: usize) -> Option<Prompt<'_>> {
        self.inner.prompt(index)
    }
    fn call_tool(&mut self, call: ToolCall<'_>, reply: ToolReply<'_>) {
        self.inner.call_tool(call, reply)
    }
    fn read_resource(&mut self, read: ResourceRead<'_>, reply: ResourceReply<'_>) {
        self.inner.read_resource(read, reply)
    }
    fn get_prompt(&mut self, get: PromptGet<'_>, reply: PromptReply<'_>) {
        self.inner.get_prompt(get, reply)
    }
    fn on_event(&mut self, now: Instant, event: Event<'_>) {
        let important = matches!(event, Event::Rejected { .. } | Event::FrameDropped(_));
        if self.verbose || important {
            eprintln!("mcp-device: [{} ms] {event:?}", now.as_millis());
        }
        self.inner.on_event(now, event);
    }
}

fn main() -> ExitCode {
    let args = Args::parse();
    let mut rx = vec![0u8; args.max_message_bytes.max(1024)];
    let mut tx = vec![0u8; args.transmit_bytes.max(4096)];
    let mut config = Config::new(SERVER_NAME, env!("CARGO_PKG_VERSION"));
    config.server_info.title = Some("Example MCP device");
    config.instructions = Some(INSTRUCTIONS);
    config.limits = Limits { max_response: tx.len() / 4, ..Limits::default() };
    // The tool and prompt lists never change while the process runs.
    config.list_cache = CacheHints { ttl_ms: 3_600_000, scope: CacheScope::Public };
    let handler = Logged { inner: Device::new(SimulatedBoard { led: false }), verbose: args.verbose };
    let mut server: Server<'_, _> = Server::new(handler, config, Buffers { rx: &mut rx, tx: &mut tx });

    let runtime = match tokio::runtime::Builder::new_current_thread().enable_time().enable_io().build() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("mcp-device: cannot start the runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    let spin = std::time::Duration::from_micros(args.spin_us);
    match runtime.block_on(mcp_sansio_tokio::serve_stdio_spinning(&mut server, spin)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) if error.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("mcp-device: {error}");
            ExitCode::FAILURE
        }
    }
}
