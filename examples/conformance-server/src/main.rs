//! `conformance-server`: the fixtures the official MCP conformance suite expects
//! (`@modelcontextprotocol/conformance server --url http://127.0.0.1:$PORT/mcp`), on the public
//! API only, for both protocol eras on one endpoint. `PORT` defaults to 3000.
//!
//! The tables are in `fixtures`, their behaviour in `handler`. Two tasks act outside requests: one
//! announces list changes (`test_trigger_*_change`) to every engine (each filters by its
//! capabilities and listen streams), one changes `test://watched-resource` every 3 s and tells its
//! subscribers; one answers deferred calls when their time comes (`tasks`: the tools of the tasks
//! extension's scenarios). `tests/conformance/baseline-*.yml` names the checks that still fail,
//! and why.

#![forbid(unsafe_code)]

mod fixtures;
mod handler;
mod tasks;

use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use mcp_sansio::server::{Config, HmacSealer, ListChanged};
use mcp_sansio_http::{HttpConfig, HttpEngine, McpHttp, TaskLimits, serve, shutdown_signal};

use crate::handler::Fixtures;

/// Runs `f` on the stateless engine and on every legacy session's engine.
fn on_every_engine(endpoint: &McpHttp<Fixtures>, f: impl Fn(&mut HttpEngine, &mut Fixtures)) {
    endpoint.with_engine(None, &f);
    for id in endpoint.session_ids() {
        endpoint.with_engine(Some(id), &f);
    }
}

/// Announces the lists requests changed, as soon as they did.
async fn announce_list_changes(endpoint: McpHttp<Fixtures>, announce: Arc<tokio::sync::Notify>) {
    loop {
        announce.notified().await;
        let changes = endpoint.with_handler(|fixtures| std::mem::take(&mut fixtures.changes));
        for (changed, list) in [(changes.tools, ListChanged::Tools), (changes.prompts, ListChanged::Prompts)] {
            if changed {
                on_every_engine(&endpoint, |engine, fixtures| {
                    if let Err(error) = engine.list_changed(list, fixtures) {
                        eprintln!("conformance-server: list change not sent: {error:?}");
                    }
                });
            }
        }
    }
}

/// Changes `test://watched-resource` every 3 s and tells whoever subscribed to it.
async fn update_watched_resource(endpoint: McpHttp<Fixtures>) {
    let mut every = tokio::time::interval(Duration::from_secs(3));
    every.tick().await;
    loop {
        every.tick().await;
        endpoint.with_handler(|fixtures| fixtures.watched_revision += 1);
        on_every_engine(&endpoint, |engine, _| {
            let _ = engine.resource_updated(fixtures::WATCHED_URI);
        });
    }
}

fn main() -> ExitCode {
    let port = match std::env::var("PORT").map(|p| p.parse::<u16>()) {
        Err(_) => 3000,
        Ok(Ok(port)) => port,
        Ok(Err(error)) => {
            eprintln!("conformance-server: PORT: {error}");
            return ExitCode::FAILURE;
        }
    };
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    let mut key = [0u8; 32];
    if let Err(error) = getrandom::fill(&mut key) {
        eprintln!("conformance-server: no random key for requestState: {error}");
        return ExitCode::FAILURE;
    }
    let sealer: &'static HmacSealer =
        Box::leak(Box::new(HmacSealer::new(key, mcp_sansio::time::Duration::from_secs(600))));
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
        eprintln!("conformance-server: serving http://{addr}/mcp");
        let announce = Arc::new(tokio::sync::Notify::new());
        let (jobs, queue) = tasks::job_queue();
        let mut config = HttpConfig::new(engine, addr);
        config.tasks = Some(TaskLimits::default());
        let endpoint = McpHttp::new(Fixtures::new(Arc::clone(&announce), jobs), config);
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
