//! `mcp-device`: the example device as an MCP server on stdin/stdout, with a simulated board; or,
//! with `--http [ADDR]`, over Streamable HTTP (both protocol eras on `http://ADDR/mcp`).
//!
//! On stdio, MCP messages go to stdout only; diagnostics go to stderr.

#![forbid(unsafe_code)]

mod board;

#[cfg(feature = "http")]
use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::Duration;

use board::SharedBoard;
use clap::{Parser, ValueEnum};
use mcp_example_device::{Device, INSTRUCTIONS, SERVER_NAME};
use mcp_sansio::endpoint;
use mcp_sansio::server::{
    Buffers, CacheHints, CacheScope, Config, Event, Handler, Limits, ListChanges, Server, ToolCall, ToolReply, Wrapper,
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
    /// Write the answers to a burst of pipelined requests once this many bytes of them wait, before
    /// taking the next request (`mcp_sansio::server::Limits::write_threshold`); a larger value means
    /// fewer, larger writes. On stdio only: an HTTP request carries one message.
    #[arg(long, default_value_t = mcp_sansio::server::DEFAULT_WRITE_THRESHOLD)]
    write_threshold: usize,
    /// Print every protocol event (sessions, rejected input) on stderr.
    #[arg(long)]
    verbose: bool,
    /// The async runtime that serves stdio.
    #[arg(long, value_enum, default_value_t = Runtime::Tokio)]
    runtime: Runtime,
    /// Log the HTTP server's spans and events on stderr, filtered like RUST_LOG (e.g. `info`,
    /// `mcp_sansio_http=debug`); RUST_LOG itself is read when this is not given. Quiet by default.
    #[cfg(feature = "http")]
    #[arg(long, value_name = "FILTER")]
    log: Option<String>,
    /// Serve Streamable HTTP on ADDR (default 127.0.0.1:8080) instead of stdio, at `/mcp`.
    #[cfg(feature = "http")]
    #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = "127.0.0.1:8080")]
    http: Option<SocketAddr>,
    /// With `--http`: most legacy sessions alive at once (with `--redis`: held in this process); a
    /// new one past it ends the session unused the longest that no client reads a stream of, and
    /// only when every session is read does `initialize` get 503.
    #[cfg(feature = "http")]
    #[arg(long, default_value_t = 256)]
    max_sessions: usize,
    /// With `--http`: share the legacy sessions with the other replicas of this server through the
    /// Redis server at URL (`redis://127.0.0.1:6379/`), so that a load balancer may send any
    /// request to any replica (see `deploy/`). Requests that need Redis while it is unreachable
    /// get 503.
    #[cfg(feature = "redis")]
    #[arg(long, value_name = "URL", requires = "http")]
    redis: Option<String>,
    /// With `--redis`: this replica's number (0–255), its own among the replicas sharing Redis.
    #[cfg(feature = "redis")]
    #[arg(long, default_value_t = 0, requires = "redis")]
    replica: u8,
    /// With `--redis`: serve a session from this replica's own copy for this many milliseconds
    /// after it was read, written or told of a change, instead of reading Redis before every
    /// request (`mcp_sansio_http::HttpConfig::shared_state_fresh`; 0, the default: always read).
    #[cfg(feature = "redis")]
    #[arg(long, value_name = "MS", default_value_t = 0, requires = "redis")]
    session_fresh_ms: u64,
    /// With `--http`: answer a legacy request whose answer is given at once and alone as a JSON
    /// body rather than an SSE stream (`mcp_sansio_http::HttpConfig::legacy_json_answers`); one
    /// that reports progress, logs, asks the client or answers later still streams.
    #[cfg(feature = "http")]
    #[arg(long)]
    json_answers: bool,
    /// With `--http`: serve on this many threads (tokio's multi-threaded runtime); 1, the default,
    /// is one `current_thread` runtime.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..))]
    threads: u16,
    /// With `--http`: split the endpoint into this many shards (1–256), each with its own handler
    /// (all on one board), stateless engine and part of the legacy sessions, so that requests of
    /// different shards run at once on the threads (`mcp_sansio_http::McpHttp::sharded`). Default:
    /// 1 with one thread, otherwise 4 per thread (fewer lets two busy sessions meet in one shard).
    #[cfg(feature = "http")]
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=256))]
    shards: Option<u16>,
    /// Opt-in: when no request is waiting, poll stdin (with `--http`: each connection) in a busy
    /// loop for up to this many microseconds before sleeping (lower round-trip latency on an idle
    /// machine, for up to this much CPU per request; see `mcp_sansio_tokio::FdReader::spin_before_wait`
    /// and `mcp_sansio_http::HttpConfig::spin_before_wait`). 0: sleep at once.
    #[arg(long, default_value_t = 0)]
    spin_us: u64,
    /// Burn this many microseconds of CPU in every `tools/call` before the device answers (a busy
    /// loop, not a sleep): a stand-in for a tool's own work, to measure how many calls are served
    /// in parallel (`--threads`; `scripts/bench-threads`). 0, the default: none.
    #[arg(long, value_name = "US", default_value_t = 0)]
    tool_cost_us: u64,
    /// With `--http`: require OAuth 2.1 bearer tokens, JWTs issued by ISSUER (`iss`), checked with
    /// the keys at `--jwks-url`; 401/403 otherwise, with the metadata document served at
    /// `/.well-known/oauth-protected-resource/mcp`.
    #[cfg(feature = "http")]
    #[arg(long, value_name = "ISSUER", requires_all = ["http", "jwks_url"])]
    jwt_issuer: Option<String>,
    /// With `--jwt-issuer`: the issuer's JWKS (`http://` or `https://`).
    #[cfg(feature = "http")]
    #[arg(long, value_name = "URL", requires = "jwt_issuer")]
    jwks_url: Option<String>,
    /// With `--jwt-issuer`: the audience tokens must name, this endpoint's canonical URI (default:
    /// `http://ADDR/mcp` as bound; set the public URL behind a proxy).
    #[cfg(feature = "http")]
    #[arg(long, value_name = "URI", requires = "jwt_issuer")]
    jwt_audience: Option<String>,
    /// With `--jwt-issuer`: a scope every token must grant (repeat for several; all are needed).
    #[cfg(feature = "http")]
    #[arg(long, value_name = "SCOPE", requires = "jwt_issuer")]
    required_scope: Vec<String>,
    /// With `--jwt-issuer`: seconds of clock skew allowed on `exp` and `nbf` (default 30).
    #[cfg(feature = "http")]
    #[arg(long, value_name = "SECONDS", requires = "jwt_issuer")]
    jwt_leeway: Option<u64>,
}

/// The runtimes `mcp-device` can run on; each drives the same server with the same loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Runtime {
    /// A `current_thread` tokio runtime (`mcp-sansio-tokio`).
    Tokio,
    /// async-std's `block_on` (`mcp-sansio-futures`).
    #[cfg(feature = "async-std")]
    AsyncStd,
    /// smol's `block_on` (`mcp-sansio-futures`).
    #[cfg(feature = "smol")]
    Smol,
}

/// Forwards to the device logic, reports events on stderr, burns `--tool-cost-us` in each tool
/// call, and with `--http` hands the lists a request changed to the announcer.
struct Logged<H> {
    inner: H,
    verbose: bool,
    /// CPU time spent in every `tools/call` before the device answers.
    tool_cost: Duration,
    /// With `--http`: where the changes go, to be announced to every engine (every shard's, and
    /// with `--redis` every replica's: the board is theirs too), instead of to the engine of the
    /// request alone.
    changes: Option<tokio::sync::mpsc::UnboundedSender<ListChanges>>,
}

/// Only `on_event` and `call_tool` are its own: every other method is the device logic's
/// ([`Wrapper`]).
impl<H: Handler> Wrapper for Logged<H> {
    type Inner = H;
    fn inner(&self) -> &H {
        &self.inner
    }
    fn inner_mut(&mut self) -> &mut H {
        &mut self.inner
    }
    fn on_event(&mut self, now: Instant, event: Event<'_>) {
        let important =
            matches!(event, Event::Endpoint(endpoint::Event::Rejected { .. } | endpoint::Event::FrameDropped(_)));
        if self.verbose || important {
            eprintln!("mcp-device: [{} ms] {event:?}", now.as_millis());
        }
        self.inner.on_event(now, event);
    }
    fn call_tool(&mut self, call: ToolCall<'_>, reply: ToolReply<'_>) {
        burn(self.tool_cost);
        self.inner.call_tool(call, reply);
    }
    fn take_list_changes(&mut self) -> ListChanges {
        let changes = self.inner.take_list_changes();
        match &self.changes {
            Some(announcer) if changes != ListChanges::NONE => {
                let _ = announcer.send(changes);
                ListChanges::NONE
            }
            _ => changes,
        }
    }
}

/// The board: kept in Redis with `--redis` (every replica drives it), in this process otherwise.
fn board(args: &Args) -> Result<SharedBoard, String> {
    #[cfg(feature = "redis")]
    if let Some(url) = &args.redis {
        return SharedBoard::in_redis(url);
    }
    let _ = args;
    Ok(SharedBoard::default())
}

/// Tells every engine (every replica's with `--redis`) of the lists and resources a request
/// changed ([`Logged::take_list_changes`]), as each client negotiated.
#[cfg(feature = "http")]
async fn announce<H: Handler + Send + 'static>(
    endpoint: mcp_sansio_http::McpHttp<H>,
    mut changes: tokio::sync::mpsc::UnboundedReceiver<ListChanges>,
) {
    use mcp_sansio::server::ListChanged;
    use mcp_sansio_http::Notice;
    while let Some(changed) = changes.recv().await {
        let lists = [(changed.tools, ListChanged::Tools), (changed.prompts, ListChanged::Prompts)];
        let mut notices: Vec<Notice> = lists
            .into_iter()
            .chain([(changed.resources, ListChanged::Resources)])
            .filter_map(|(changed, list)| changed.then_some(Notice::ListChanged(list)))
            .collect();
        for index in (0..32).filter(|i| changed.updated & (1 << i) != 0) {
            let uri = endpoint.with_handler(|handler| handler.resource(index).map(|r| r.uri.to_owned()));
            notices.extend(uri.map(Notice::ResourceUpdated));
        }
        for notice in notices {
            if let Err(error) = endpoint.announce(notice).await {
                eprintln!("mcp-device: a change not announced: {error}");
            }
        }
    }
}

/// Keeps this thread busy for `cost` of wall-clock time (a tool's work), without sleeping.
fn burn(cost: Duration) {
    if cost.is_zero() {
        return;
    }
    let start = std::time::Instant::now();
    while start.elapsed() < cost {
        std::hint::spin_loop();
    }
}

fn main() -> ExitCode {
    let args = Args::parse();
    let mut rx = vec![0u8; args.max_message_bytes.max(1024)];
    let mut tx = vec![0u8; args.transmit_bytes.max(4096)];
    let config = Config::new(SERVER_NAME, env!("CARGO_PKG_VERSION"))
        .with_title("Example MCP device")
        .with_instructions(INSTRUCTIONS)
        .with_limits(Limits { max_response: tx.len() / 4, write_threshold: args.write_threshold, ..Limits::default() })
        // The tool list changes (blink_led), announced with listChanged; other clients re-read it soon.
        .with_list_cache(CacheHints::new(60_000, CacheScope::Public));
    // Every handler instance drives the one board (with `--http`, there may be several; with
    // `--redis`, the board is in Redis for every replica).
    let board = match board(&args) {
        Ok(board) => board,
        Err(error) => {
            eprintln!("mcp-device: {error}");
            return ExitCode::FAILURE;
        }
    };
    let (verbose, tool_cost) = (args.verbose, Duration::from_micros(args.tool_cost_us));
    #[cfg(feature = "http")]
    let (changes, announced) = match args.http {
        Some(_) => {
            let (changes, announced) = tokio::sync::mpsc::unbounded_channel();
            (Some(changes), Some(announced))
        }
        None => (None, None),
    };
    #[cfg(not(feature = "http"))]
    let changes = None;
    let make = move || Logged { inner: Device::new(board.clone()), verbose, tool_cost, changes: changes.clone() };
    #[cfg(feature = "http")]
    if let Some(filter) = args.log.clone().or_else(|| std::env::var("RUST_LOG").ok()) {
        match tracing_subscriber::EnvFilter::try_new(&filter) {
            Ok(filter) => tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).init(),
            Err(error) => {
                eprintln!("mcp-device: invalid log filter {filter:?}: {error}");
                return ExitCode::FAILURE;
            }
        }
    }
    #[cfg(feature = "http")]
    if let (Some(addr), Some(announced)) = (args.http, announced) {
        return serve_http(addr, make, announced, config, tx.len(), &args);
    }
    let mut input = vec![0u8; 16 * 1024];
    let mut server: Server<'_, _> = Server::new(make(), config, Buffers { rx: &mut rx, tx: &mut tx });
    // Room for a legacy request to wait for the client's input (the factory reset's confirmation).
    server.parts_mut().0.set_input_buffer(&mut input);

    let served = match args.runtime {
        Runtime::Tokio => match tokio::runtime::Builder::new_current_thread().enable_time().enable_io().build() {
            Ok(runtime) => {
                let spin = std::time::Duration::from_micros(args.spin_us);
                runtime.block_on(mcp_sansio_tokio::serve_stdio_spinning(&mut server, spin))
            }
            Err(error) => {
                eprintln!("mcp-device: cannot start the runtime: {error}");
                return ExitCode::FAILURE;
            }
        },
        #[cfg(feature = "async-std")]
        Runtime::AsyncStd => async_std::task::block_on(mcp_sansio_futures::serve_stdio(&mut server)),
        #[cfg(feature = "smol")]
        Runtime::Smol => smol::block_on(mcp_sansio_futures::serve_stdio(&mut server)),
    };
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) if error.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("mcp-device: {error}");
            ExitCode::FAILURE
        }
    }
}

/// Serves the device over Streamable HTTP until SIGINT or SIGTERM, with handlers made by `make`
/// (instances of one device: they share its board).
#[cfg(feature = "http")]
fn serve_http<H: Handler + Send + 'static>(
    addr: SocketAddr,
    make: impl FnMut() -> H,
    announced: tokio::sync::mpsc::UnboundedReceiver<ListChanges>,
    config: Config<'static>,
    transmit: usize,
    args: &Args,
) -> ExitCode {
    let runtime = match args.threads {
        1 => tokio::runtime::Builder::new_current_thread().enable_all().build(),
        n => tokio::runtime::Builder::new_multi_thread().worker_threads(n.into()).enable_all().build(),
    };
    let runtime = match runtime {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("mcp-device: cannot start the runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    let mut http = mcp_sansio_http::HttpConfig::new(config, addr);
    http.session_transmit_bytes = transmit;
    http.stateless_transmit_bytes = transmit;
    http.max_sessions = args.max_sessions;
    http.spin_before_wait = std::time::Duration::from_micros(args.spin_us);
    http.legacy_json_answers = args.json_answers;
    // Clients of the deprecated 2024-11-05 HTTP+SSE transport connect to /sse.
    http.legacy_sse = Some(mcp_sansio::http::SsePaths::DEFAULT);
    let result = runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(addr).await?;
        let url = format!("http://{}/mcp", listener.local_addr()?);
        eprintln!("mcp-device: serving {url} (2026-07-28 and 2025-03-26 ... 2025-11-25; HTTP+SSE of 2024-11-05 at /sse)");
        eprintln!("mcp-device: host configuration:");
        eprintln!(r#"  {{"mcpServers": {{"{SERVER_NAME}": {{"type": "http", "url": "{url}"}}}}}}"#);
        if let (Some(issuer), Some(jwks_url)) = (&args.jwt_issuer, &args.jwks_url) {
            let audience = args.jwt_audience.clone().unwrap_or_else(|| url.clone());
            let mut jwt = mcp_sansio_http::jwt::JwtConfig::new(issuer, &audience, jwks_url);
            if let Some(leeway) = args.jwt_leeway {
                jwt = jwt.with_leeway(std::time::Duration::from_secs(leeway));
            }
            for scope in &args.required_scope {
                jwt = jwt.require_scope(scope);
            }
            let validator = mcp_sansio_http::jwt::JwtValidator::new(jwt).await?;
            let auth = validator.bearer_auth();
            eprintln!("mcp-device: bearer tokens from {issuer} for {audience} required; metadata at {}", auth.resource_metadata_url);
            http.auth = Some(auth);
        } else if !addr.ip().is_loopback() {
            eprintln!("mcp-device: warning: not a loopback address; Host/Origin are not checked and there is no authentication");
        }
        #[cfg(feature = "redis")]
        let shared = match &args.redis {
            Some(url) => {
                http.replica = args.replica;
                http.shared_state_fresh = std::time::Duration::from_millis(args.session_fresh_ms);
                let sessions = mcp_sansio_redis::RedisSessions::open(url).map_err(std::io::Error::other)?;
                eprintln!("mcp-device: replica {} sharing legacy sessions through {url}", args.replica);
                Some(sessions)
            }
            None => None,
        };
        // One handler per shard, all on the one board.
        let shards = args.shards.map_or(if args.threads == 1 { 1 } else { 4 * usize::from(args.threads) }, usize::from);
        let endpoint = mcp_sansio_http::McpHttp::sharded(make, shards, http);
        #[cfg(feature = "redis")]
        let endpoint = match shared {
            Some(sessions) => endpoint.with_shared_sessions(sessions),
            None => endpoint,
        };
        tokio::spawn(announce(endpoint.clone(), announced));
        mcp_sansio_http::serve(listener, endpoint, mcp_sansio_http::shutdown_signal()).await
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("mcp-device: {error}");
            ExitCode::FAILURE
        }
    }
}
