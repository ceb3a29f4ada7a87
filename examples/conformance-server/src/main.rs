//! `conformance-server`: the fixtures the official MCP conformance suite expects
//! (`@modelcontextprotocol/conformance server --url http://127.0.0.1:$PORT/mcp`), on the public
//! API only, for both protocol eras on one endpoint. It listens on `127.0.0.1:$PORT` (`PORT`
//! defaults to 3000) or on `--http ADDR`.
//!
//! Several replicas behind a load balancer (`scripts/conformance --replicas N`, through
//! `deploy/replicas`): each started with `--redis URL` and its own `--replica N` shares the legacy
//! sessions through Redis (`mcp_sansio_redis::RedisSessions`), and all must seal `requestState`
//! with one key ring (`HmacKeyRing`), given as keys of 64 hex digits separated by commas in the
//! environment variable `MCP_STATE_KEY` (one random key per process when unset, so a state sealed
//! by one replica is refused by another). `--help` lists the flags.
//!
//! The tables are in `fixtures`, their behaviour in `handler`. Three tasks act outside requests:
//! one announces list changes (`test_trigger_*_change`) with `McpHttp::announce`, which reaches
//! every engine of every replica (each filters by its capabilities and listen streams); one
//! changes `test://watched-resource` every 3 s and tells the subscribers of this process's engines
//! (each replica has its own timer and revision: see `update_watched_resource`); one answers
//! deferred calls when their time comes (`tasks`: the tools of the tasks extension's scenarios).
//! The fixtures' state (the dynamic tool and prompt, the revision, deferred tasks) is each
//! process's own. `tests/conformance/baseline-*.yml` names the checks that still fail, and why.

#![forbid(unsafe_code)]

mod fixtures;
mod handler;
mod lists;
mod tasks;

use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use mcp_sansio::server::{Config, HmacKeyRing, ListChanged};
use mcp_sansio_http::{HttpConfig, McpHttp, Notice, TaskLimits, serve, shutdown_signal};

use crate::handler::Fixtures;
use crate::lists::DynamicLists;

const USAGE: &str = "\
conformance-server: the official MCP conformance suite's fixtures over Streamable HTTP, at /mcp

Usage: conformance-server [--http ADDR] [--redis URL [--replica N]] [--log FILTER]

Options:
  --http ADDR     listen on ADDR (default 127.0.0.1:$PORT, PORT defaulting to 3000)
  --redis URL     share the legacy sessions with the other replicas through the Redis server at
                  URL (redis://127.0.0.1:6379/), announce list changes to all of them, and
                  keep whether the dynamic tool and prompt are listed there (all list alike)
  --replica N     with --redis: this replica's number (0-255, default 0), its own among them
  --log FILTER    log the HTTP server on stderr, filtered like RUST_LOG (e.g. mcp_sansio_http=debug);
                  RUST_LOG is read when not given
  -h, --help      print this help

Environment:
  PORT            the port on 127.0.0.1 when --http is not given (3000)
  MCP_STATE_KEY   the key sealing requestState, 64 hex digits (or a ring: keys separated by commas,
                  the first sealing, every one opening); replicas must share it (random
                  per process when unset)
";

/// The command line.
#[derive(Default)]
struct Args {
    http: Option<SocketAddr>,
    redis: Option<String>,
    replica: Option<u8>,
    log: Option<String>,
}

/// The command line, or `Err` with why not; `Ok(None)` after `--help`.
fn parse_args(mut args: impl Iterator<Item = String>) -> Result<Option<Args>, String> {
    let mut parsed = Args::default();
    while let Some(flag) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--http" => parsed.http = Some(value()?.parse().map_err(|e| format!("--http: {e}"))?),
            "--redis" => parsed.redis = Some(value()?),
            "--replica" => parsed.replica = Some(value()?.parse().map_err(|e| format!("--replica: {e}"))?),
            "--log" => parsed.log = Some(value()?),
            "-h" | "--help" => return Ok(None),
            other => return Err(format!("unknown argument {other:?} (see --help)")),
        }
    }
    if parsed.replica.is_some() && parsed.redis.is_none() {
        return Err("--replica needs --redis".to_owned());
    }
    Ok(Some(parsed))
}

/// The keys sealing `requestState`: `MCP_STATE_KEY` (64 hex digits, or several keys separated by
/// commas: the first seals, every one opens, see `HmacKeyRing`) when set, one random key otherwise.
fn state_keys() -> Result<Vec<[u8; 32]>, String> {
    let Ok(value) = std::env::var("MCP_STATE_KEY") else {
        let mut key = [0u8; 32];
        getrandom::fill(&mut key).map_err(|e| format!("no random key for requestState: {e}"))?;
        return Ok(vec![key]);
    };
    value
        .split(',')
        .map(|hex| {
            let digits = hex.trim().as_bytes();
            if digits.len() != 64 || !digits.iter().all(u8::is_ascii_hexdigit) {
                return Err("MCP_STATE_KEY must be keys of 64 hex digits, separated by commas".to_owned());
            }
            let mut key = [0u8; 32];
            for (byte, pair) in key.iter_mut().zip(digits.chunks(2)) {
                let pair = std::str::from_utf8(pair).map_err(|e| e.to_string())?;
                *byte = u8::from_str_radix(pair, 16).map_err(|e| e.to_string())?;
            }
            Ok(key)
        })
        .collect()
}

/// Announces the lists requests changed, as soon as they did, to every engine of every replica
/// (of this process only without `--redis`).
async fn announce_list_changes(endpoint: McpHttp<Fixtures>, announce: Arc<tokio::sync::Notify>) {
    loop {
        announce.notified().await;
        let changes = endpoint.with_handler(|fixtures| std::mem::take(&mut fixtures.changes));
        for (changed, list) in [(changes.tools, ListChanged::Tools), (changes.prompts, ListChanged::Prompts)] {
            if changed && let Err(error) = endpoint.announce(Notice::ListChanged(list)).await {
                eprintln!("conformance-server: list change not announced: {error}");
            }
        }
    }
}

/// Changes `test://watched-resource` every 3 s and tells whoever subscribed to it in this process.
///
/// Each replica keeps its own timer and tells its own engines, not every replica
/// (`McpHttp::announce`): a stream held by any replica hears of a change every 3 s as with one
/// process, with no traffic between replicas and none of them needed by the others. Announcing
/// from every replica would tell each subscriber N times per 3 s; from replica 0 only, the updates
/// would stop while replica 0 is down. The revision in the resource's text is each replica's own
/// counter either way (each process has its own `Fixtures`).
async fn update_watched_resource(endpoint: McpHttp<Fixtures>) {
    let mut every = tokio::time::interval(Duration::from_secs(3));
    every.tick().await;
    loop {
        every.tick().await;
        endpoint.with_handler(|fixtures| fixtures.watched_revision += 1);
        endpoint.for_each_engine(|engine, _| {
            let _ = engine.resource_updated(fixtures::WATCHED_URI);
        });
    }
}

fn main() -> ExitCode {
    let args = match parse_args(std::env::args().skip(1)) {
        Ok(Some(args)) => args,
        Ok(None) => {
            print!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(error) => {
            eprintln!("conformance-server: {error}");
            return ExitCode::from(2);
        }
    };
    if let Some(filter) = args.log.clone().or_else(|| std::env::var("RUST_LOG").ok()) {
        match tracing_subscriber::EnvFilter::try_new(&filter) {
            Ok(filter) => tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).init(),
            Err(error) => {
                eprintln!("conformance-server: invalid log filter {filter:?}: {error}");
                return ExitCode::FAILURE;
            }
        }
    }
    let addr = match (args.http, std::env::var("PORT").map(|p| p.parse::<u16>())) {
        (Some(addr), _) => addr,
        (None, Err(_)) => SocketAddr::from(([127, 0, 0, 1], 3000)),
        (None, Ok(Ok(port))) => SocketAddr::from(([127, 0, 0, 1], port)),
        (None, Ok(Err(error))) => {
            eprintln!("conformance-server: PORT: {error}");
            return ExitCode::FAILURE;
        }
    };
    let keys = match state_keys() {
        Ok(keys) => keys,
        Err(error) => {
            eprintln!("conformance-server: {error}");
            return ExitCode::FAILURE;
        }
    };
    let keys: &'static [[u8; 32]] = Box::leak(keys.into_boxed_slice());
    let sealer: &'static HmacKeyRing<'static> =
        Box::leak(Box::new(HmacKeyRing::new(keys, mcp_sansio::time::Duration::from_secs(600))));
    let mut engine = Config::new("mcp-sansio-conformance-server", env!("CARGO_PKG_VERSION"));
    engine.limits.max_response = 64 * 1024;
    engine.state_sealer = Some(sealer);
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("conformance-server: cannot start the runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(addr).await?;
        eprintln!("conformance-server: serving http://{}/mcp", listener.local_addr()?);
        let announce = Arc::new(tokio::sync::Notify::new());
        let (jobs, queue) = tasks::job_queue();
        let mut config = HttpConfig::new(engine, addr);
        config.tasks = Some(TaskLimits::default());
        let (shared, dynamic) = match &args.redis {
            Some(url) => {
                config.replica = args.replica.unwrap_or(0);
                let sessions = mcp_sansio_redis::RedisSessions::open(url).map_err(std::io::Error::other)?;
                eprintln!("conformance-server: replica {} sharing legacy sessions through {url}", config.replica);
                (Some(sessions), DynamicLists::shared(url).map_err(std::io::Error::other)?)
            }
            None => (None, DynamicLists::local()),
        };
        let endpoint = McpHttp::new(Fixtures::new(dynamic, Arc::clone(&announce), jobs), config);
        let endpoint = match shared {
            Some(sessions) => endpoint.with_shared_sessions(sessions),
            None => endpoint,
        };
        tokio::spawn(tasks::run_jobs(endpoint.clone(), queue));
        tokio::spawn(announce_list_changes(endpoint.clone(), announce));
        tokio::spawn(update_watched_resource(endpoint.clone()));
        serve(listener, endpoint, shutdown_signal()).await
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("conformance-server: {error}");
            ExitCode::FAILURE
        }
    }
}
