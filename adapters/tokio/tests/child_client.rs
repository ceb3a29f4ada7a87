//! `child::spawn`: the client engine, on the driver and the host API, calling a real child
//! process that serves the example device on its stdio, in both eras.
//!
//! Built without the test harness: run normally, this binary spawns itself as the server child
//! (`CHILD_ENV` set; `CHILD_MODE` picks a misbehaviour).

#[path = "../../driver/tests/support/scripted_tasks.rs"]
mod scripted_tasks;
mod support;

use std::time::Duration;

use mcp_example_device::Device;
use mcp_sansio::client::{self, EraPolicy, InputAnswer};
use mcp_sansio::mcp::ClientCapabilities;
use mcp_sansio::mcp::input::ReceivedInput;
use mcp_sansio::server::{Buffers, Config, Server};
use mcp_sansio::version::ProtocolVersion;
use mcp_sansio_tokio::child;
use mcp_sansio_tokio::host::{Host, RequestError};
use scripted_tasks::{check_followed_task, serve_scripted_tasks};
use serde_json::Value as Json;
use support::FixedBoard;

const CHILD_ENV: &str = "MCP_SANSIO_TOKIO_CLIENT_CHILD";
const CHILD_MODE: &str = "MCP_SANSIO_TOKIO_CLIENT_CHILD_MODE";

fn main() {
    if std::env::var_os(CHILD_ENV).is_some() {
        serve_as_child();
    }
    let cases: [(&str, fn()); 8] = [
        ("a listen stream hears the tool list change, and ends when dropped", listen),
        ("64 pipelined calls of 16 KiB each way, more than a pipe buffer", pipelined),
        ("auto finds the modern era and calls every kind of method", auto_modern),
        ("legacy handshake, and elicitation answered in both eras", legacy_and_input),
        ("dropped request futures leave the client usable", drop_cancels),
        ("a child that exits mid-request ends the requests", child_exits),
        ("a child that never answers times the handshake out", silent_child),
        ("a call made a task is polled, answered and followed to its result", task),
    ];
    let mut failed = 0;
    for (name, case) in cases {
        match std::panic::catch_unwind(case) {
            Ok(()) => println!("test child client: {name} ... ok"),
            Err(_) => {
                println!("test child client: {name} ... FAILED");
                failed += 1;
            }
        }
    }
    println!("{} passed, {failed} failed", cases.len() - failed);
    if failed > 0 {
        std::process::exit(1);
    }
}

/// The child: the example device on stdio, or a misbehaving server.
fn serve_as_child() -> ! {
    let mode = std::env::var(CHILD_MODE).unwrap_or_default();
    if mode == "silent" {
        // Reads and never answers.
        let mut sink = Vec::new();
        let _ = std::io::Read::read_to_end(&mut std::io::stdin(), &mut sink);
        std::process::exit(0);
    }
    if mode == "tasks" {
        serve_scripted_tasks();
    }
    if mode == "exit-after-two" {
        // Answers the probe as a modern server, then exits with the next request unanswered.
        let mut line = String::new();
        std::io::stdin().read_line(&mut line).unwrap();
        println!(
            r#"{{"jsonrpc":"2.0","id":1,"result":{{"supportedVersions":["2026-07-28"],"capabilities":{{"tools":{{}}}},"resultType":"complete"}}}}"#
        );
        line.clear();
        std::io::stdin().read_line(&mut line).unwrap();
        eprintln!("exiting on purpose");
        std::process::exit(7);
    }
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    // Room for 16 KiB messages ("big"), as mcp-device has.
    let (mut rx, mut tx, mut input) = (vec![0u8; 64 * 1024], vec![0u8; 64 * 1024], [0u8; 4096]);
    let mut config = Config::new("mcp-device", "0.1.0");
    if mode == "big" {
        config.limits.max_response = 32 * 1024;
    }
    let mut server: Server<'_, _> = Server::new(Device::new(FixedBoard), config, Buffers { rx: &mut rx, tx: &mut tx });
    server.set_input_buffer(&mut input);
    let served = runtime.block_on(mcp_sansio_tokio::serve_stdio(&mut server));
    std::process::exit(i32::from(served.is_err()));
}

fn command(mode: &str) -> tokio::process::Command {
    let mut command = tokio::process::Command::new(std::env::current_exe().unwrap());
    command.env(CHILD_ENV, "1").env(CHILD_MODE, mode);
    command
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap()
}

fn config(era: EraPolicy) -> client::Config<'static> {
    let capabilities = ClientCapabilities::NONE.with_elicitation_form();
    client::Config::new("child-client-test", "1.0.0").with_era(era).with_capabilities(capabilities)
}

/// Confirms every form.
fn confirming_host() -> Host {
    Host::new().with_input(Box::new(|input, result| match input {
        ReceivedInput::ElicitForm { .. } => {
            result.raw(br#"{"action":"accept","content":{"confirm":true}}"#);
            InputAnswer::Written
        }
        _ => InputAnswer::Refused,
    }))
}

fn parse(bytes: &[u8]) -> Json {
    serde_json::from_slice(bytes).unwrap()
}

fn auto_modern() {
    runtime().block_on(async {
        let client = child::spawn(command(""), config(EraPolicy::Auto), Host::new()).unwrap();
        let connected = client.connect().await.unwrap();
        assert_eq!(connected.version, ProtocolVersion::V2026_07_28);
        assert_eq!(connected.server_name.as_deref(), Some("mcp-device"));
        let tools = client.list_tools().await.unwrap();
        let names: Vec<String> = tools.iter().map(|t| parse(t)["name"].as_str().unwrap().to_string()).collect();
        assert!(names.contains(&"echo".to_string()) && names.contains(&"factory_reset".to_string()), "{names:?}");
        let echoed = parse(&client.call_tool("echo", r#"{"message":"hello child"}"#).await.unwrap());
        assert_eq!(echoed["content"][0]["text"], "hello child");
        client.ping().await.unwrap();
        let missing = client.call_tool("no_such_tool", "{}").await;
        assert!(matches!(missing, Err(RequestError::Server { .. })) || parse(&missing.unwrap())["isError"] == true);
        let prompts = client.list_prompts().await.unwrap();
        assert!(!prompts.is_empty());
        // The device completes the sensor argument of its resource template.
        let completed = client.complete(r#"{"type":"ref/resource","uri":"device://sensor/{name}"}"#, "name", "c").await;
        let completed = parse(&completed.unwrap());
        assert_eq!(completed["completion"]["values"], serde_json::json!(["cpu"]), "{completed}");
        let resources = client.list_resources().await.unwrap();
        let uri = parse(&resources[0])["uri"].as_str().unwrap().to_string();
        let read = parse(&client.read_resource(&uri).await.unwrap());
        assert!(read["contents"].is_array());
        // Progress reports reach the call's callback (the device calibrates in 4 steps).
        let reports = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let seen = reports.clone();
        let progress = Box::new(move |progress: f64, total: Option<f64>, _: Option<&str>| {
            seen.lock().unwrap().push((progress, total));
        });
        client.call_tool_with_progress("calibrate", "{}", progress).await.unwrap();
        assert_eq!(*reports.lock().unwrap(), [(1.0, Some(4.0)), (2.0, Some(4.0)), (3.0, Some(4.0)), (4.0, Some(4.0))]);
        let status = client.close().await.unwrap();
        assert!(status.success(), "the child ends when its stdin closes: {status:?}");
    });
}

fn pipelined() {
    runtime().block_on(async {
        let client = child::spawn(command("big"), config(EraPolicy::Auto), Host::new()).unwrap();
        client.connect().await.unwrap();
        let calls: Vec<_> = (0..64)
            .map(|i| {
                let handle = (*client).clone();
                let message = format!("{i:02}{}", "x".repeat(16 * 1024));
                tokio::spawn(async move {
                    let arguments = serde_json::json!({ "message": message }).to_string();
                    (message, handle.call_tool("echo", &arguments).await)
                })
            })
            .collect();
        for call in calls {
            let (message, result) = call.await.unwrap();
            assert_eq!(parse(&result.unwrap())["content"][0]["text"], message.as_str());
        }
        client.close().await.unwrap();
    });
}

fn listen() {
    runtime().block_on(async {
        let client = child::spawn(command(""), config(EraPolicy::Modern), Host::new()).unwrap();
        client.connect().await.unwrap();
        let mut stream = client.listen(r#"{"toolsListChanged":true}"#).await.unwrap();
        let first = stream.next().await.unwrap();
        assert_eq!(first.method, "notifications/subscriptions/acknowledged");
        let params: Json = serde_json::from_str(first.params.as_deref().unwrap()).unwrap();
        assert_eq!(params["notifications"]["toolsListChanged"], true, "{params}");
        client.call_tool("enable_blink", r#"{"enabled":true}"#).await.unwrap();
        let changed = tokio::time::timeout(Duration::from_secs(5), stream.next()).await.unwrap().unwrap();
        assert_eq!(changed.method, "notifications/tools/list_changed");
        assert_eq!(stream.dropped(), 0);
        drop(stream);
        // The stream was cancelled; the client goes on.
        let tools = client.list_tools().await.unwrap();
        assert!(tools.iter().any(|t| parse(t)["name"] == "blink_led"));
        client.close().await.unwrap();

        let legacy = child::spawn(command(""), config(EraPolicy::Legacy), Host::new()).unwrap();
        legacy.connect().await.unwrap();
        let refused = legacy.listen(r#"{"toolsListChanged":true}"#).await;
        assert!(matches!(refused, Err(RequestError::Send(_))), "no listen streams in a legacy session");
        legacy.close().await.unwrap();
    });
}

fn legacy_and_input() {
    runtime().block_on(async {
        for era in [EraPolicy::Legacy, EraPolicy::Modern] {
            let client = child::spawn(command(""), config(era), confirming_host()).unwrap();
            let connected = client.connect().await.unwrap();
            let expected =
                if era == EraPolicy::Legacy { ProtocolVersion::V2025_11_25 } else { ProtocolVersion::V2026_07_28 };
            assert_eq!(connected.version, expected);
            let reset = parse(&client.call_tool("factory_reset", "{}").await.unwrap());
            assert_ne!(reset["isError"], true, "{era:?}: {reset}");
            assert_eq!(reset["content"][0]["text"], "factory settings restored", "{era:?}");
            client.close().await.unwrap();
        }
    });
}

fn drop_cancels() {
    runtime().block_on(async {
        let client = child::spawn(command(""), config(EraPolicy::Legacy), Host::new()).unwrap();
        client.connect().await.unwrap();
        // A request whose future is dropped at once: cancelled, and later requests still work.
        let call = client.call_tool("echo", r#"{"message":"dropped"}"#);
        drop(call);
        let slow = client.call_tool("calibrate", "{}");
        let _ = tokio::time::timeout(Duration::from_millis(5), slow).await;
        let echoed = parse(&client.call_tool("echo", r#"{"message":"after"}"#).await.unwrap());
        assert_eq!(echoed["content"][0]["text"], "after");
        client.close().await.unwrap();
    });
}

fn child_exits() {
    runtime().block_on(async {
        let mut client = child::spawn(command("exit-after-two"), config(EraPolicy::Auto), Host::new()).unwrap();
        assert_eq!(client.connect().await.unwrap().version, ProtocolVersion::V2026_07_28);
        let call = client.call_tool("echo", r#"{"message":"x"}"#).await;
        assert_eq!(call, Err(RequestError::Closed));
        for _ in 0..100 {
            if client.try_wait().unwrap().is_some() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert!(client.stderr_tail().contains("exiting on purpose"), "{}", client.stderr_tail());
        let status = client.close().await.unwrap();
        assert_eq!(status.code(), Some(7));
    });
}

fn silent_child() {
    runtime().block_on(async {
        let config = config(EraPolicy::Legacy).with_connect_timeout(mcp_sansio::time::Duration::from_millis(200));
        let client = child::spawn(command("silent"), config, Host::new()).unwrap();
        let connected = client.connect().await;
        assert_eq!(connected, Err(RequestError::Connect(client::ConnectError::TimedOut)));
        client.close().await.unwrap();
    });
}

fn task() {
    runtime().block_on(async {
        let client = child::spawn(command("tasks"), config(EraPolicy::Modern), confirming_host()).unwrap();
        client.connect().await.unwrap();
        let started = std::time::Instant::now();
        let result = client.call_tool("anything", "{}").await;
        check_followed_task(result, started.elapsed());
        client.close().await.unwrap();
    });
}
