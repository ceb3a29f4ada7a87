//! The router is runtime-neutral: the same tools on smol (spawned with `smol::spawn`, driven by
//! `mcp-sansio-futures`), a timer, progress and typed arguments, in both eras.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mcp_sansio::client::{self, EraPolicy};
use mcp_sansio::server::Config;
use mcp_sansio_futures::host::{self, Host};
use mcp_sansio_router::{Context, Router, Structured};
use smol::net::unix::UnixStream;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Wait {
    ms: u64,
    steps: u64,
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Waited {
    ms: u64,
}

fn router() -> Router {
    Router::new().tool_with_context(
        "wait",
        "Waits, reporting each step",
        |Wait { ms, steps }, ctx: Context| async move {
            for step in 1..=steps {
                smol::Timer::after(Duration::from_millis(ms / steps.max(1))).await;
                ctx.progress(step, Some(steps), None);
            }
            Structured(Waited { ms })
        },
    )
}

#[test]
fn typed_tools_run_on_smol_in_both_eras() {
    smol::block_on(async {
        for era in [EraPolicy::Legacy, EraPolicy::Modern] {
            let (server_io, client_io) = UnixStream::pair().unwrap();
            let (mut server, jobs) = router().into_server(Config::new("router-on-smol", "1.0.0"), |future| {
                smol::spawn(future).detach();
            });
            smol::spawn(async move {
                mcp_sansio_futures::run_with_jobs(&mut server, server_io.clone(), server_io, jobs).await
            })
            .detach();
            let config = client::Config::new("smol-client", "1.0.0").with_era(era);
            let (client, mut conn, jobs) = host::connection(config, Host::new(), 1 << 16, 1 << 16);
            smol::spawn(async move {
                mcp_sansio_futures::run_with_jobs(&mut conn, client_io.clone(), client_io, jobs).await
            })
            .detach();
            client.connect().await.unwrap();

            let steps = Arc::new(Mutex::new(Vec::new()));
            let seen = steps.clone();
            let started = Instant::now();
            let answer = client
                .call_tool_with_progress(
                    "wait",
                    r#"{"ms":60,"steps":3}"#,
                    Box::new(move |p, _, _| seen.lock().unwrap().push(p)),
                )
                .await
                .unwrap();
            let answer: serde_json::Value = serde_json::from_slice(&answer).unwrap();
            assert_eq!(answer["structuredContent"]["ms"], 60, "{era:?}: {answer}");
            assert!(started.elapsed() >= Duration::from_millis(60), "the timer ran");
            assert_eq!(*steps.lock().unwrap(), [1.0, 2.0, 3.0], "{era:?}");
            let bad = client.call_tool("wait", r#"{"ms":"soon"}"#).await.unwrap();
            let bad: serde_json::Value = serde_json::from_slice(&bad).unwrap();
            assert_eq!(bad["isError"], true, "{era:?}: {bad}");
        }
    });
}
