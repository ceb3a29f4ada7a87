//! The example device served over loopback TCP with `serve_tcp`, under async-std and under smol:
//! a whole session in both eras, and a request to the client that times out on the driver's clock.

#[macro_use]
mod support;

use std::time::{Duration, Instant};

use mcp_sansio_futures::{job_queue, serve_tcp, serve_tcp_with_jobs};
use serde_json::json;
use support::{INITIALIZE, INITIALIZED, Runtime, device_server};

on_both_runtimes!(a_session_in_both_eras_over_tcp, a_request_to_the_client_times_out_on_the_driver_clock);

const MODERN_META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

async fn a_session_in_both_eras_over_tcp(runtime: Runtime) {
    let mut server = device_server(|_| {});
    let (mut client, server_stream) = runtime.tcp_pair().await;
    let client_side = async move {
        let requests = [
            INITIALIZE.to_string(),
            INITIALIZED.to_string(),
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#.to_string(),
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"message":"over tcp"}}}"#.to_string(),
            format!(r#"{{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{{"name":"get_uptime",{MODERN_META}}}}}"#),
            r#"{"jsonrpc":"2.0","id":5,"method":"no/such/method"}"#.to_string(),
        ];
        // Pipelined: everything is sent before any answer is read.
        client.send(&(requests.join("\n") + "\n")).await;
        let mut answers = Vec::new();
        for _ in 0..5 {
            answers.push(client.next().await.expect("an answer"));
        }
        client.end_input();
        assert_eq!(client.next().await, None, "the server closes after the input ended");
        answers
    };
    let (served, answers) = smol::future::zip(serve_tcp(&mut server, server_stream), client_side).await;
    served.unwrap();
    assert_eq!(answers[0]["id"], 1);
    assert_eq!(answers[0]["result"]["protocolVersion"], "2025-06-18");
    let tools: Vec<_> = answers[1]["result"]["tools"].as_array().unwrap().iter().map(|tool| &tool["name"]).collect();
    assert!(tools.contains(&&json!("echo")), "{tools:?}");
    assert_eq!(answers[2]["result"]["content"][0]["text"], "over tcp");
    assert_eq!(answers[3]["id"], 4);
    assert_eq!(answers[3]["result"]["resultType"], "complete", "{}", answers[3]);
    assert_eq!(answers[4]["error"]["code"], -32601);
}

async fn a_request_to_the_client_times_out_on_the_driver_clock(runtime: Runtime) {
    const TIMEOUT: Duration = Duration::from_millis(200);
    let mut server = device_server(|config| {
        config.request_timeout = Some(mcp_sansio::time::Duration::from_millis(TIMEOUT.as_millis() as u64))
    });
    let (sender, jobs) = job_queue();
    let (mut client, server_stream) = runtime.tcp_pair().await;
    let client_side = async move {
        client.send(&format!("{INITIALIZE}\n{INITIALIZED}\n")).await;
        assert_eq!(client.next().await.unwrap()["id"], 1);
        // The server pings the client, which never answers.
        sender
            .complete(|server: &mut support::DeviceServer, now| {
                server.ping(now).unwrap();
            })
            .unwrap();
        let ping = client.next().await.unwrap();
        let pinged = Instant::now();
        assert_eq!(ping["method"], "ping", "{ping}");
        let cancelled = client.next().await.unwrap();
        let waited = pinged.elapsed();
        client.end_input();
        assert_eq!(client.next().await, None);
        (ping, cancelled, waited)
    };
    let (served, (ping, cancelled, waited)) =
        smol::future::zip(serve_tcp_with_jobs(&mut server, server_stream, jobs), client_side).await;
    served.unwrap();
    assert_eq!(cancelled["method"], "notifications/cancelled", "{cancelled}");
    assert_eq!(cancelled["params"]["requestId"], ping["id"]);
    // The deadline is in whole milliseconds from when the ping was queued, just before it was read.
    assert!(waited >= TIMEOUT - Duration::from_millis(20), "cancelled after {waited:?}, before the timeout");
    assert!(waited < TIMEOUT * 10, "cancelled only after {waited:?}");
}

/// Compiles only if the serving futures are `Send`, so they can be spawned on multi-threaded
/// executors (`smol::spawn`, `async_std::task::spawn`) as well as run by `block_on`.
#[allow(dead_code)]
fn serving_futures_are_send(
    server: &mut support::DeviceServer,
    stream: smol::net::TcpStream,
    jobs: mcp_sansio_futures::JobQueue<support::DeviceServer>,
) {
    fn send<T: Send>(_: T) {}
    send(serve_tcp(&mut *server, stream));
    send(mcp_sansio_futures::serve_stdio_with_jobs(server, jobs));
}
