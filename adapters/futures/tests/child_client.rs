//! `child::spawn` on smol and async-std: the client engine, through the host API, calling a real
//! child process that serves the example device on its stdio, in both eras.
//!
//! Built without the test harness: run normally, this binary spawns itself as the server child
//! (`CHILD_ENV` set).

#[path = "../../driver/tests/support/scripted_tasks.rs"]
mod scripted_tasks;

use std::process::Command;

use mcp_example_device::{Device, FixedBoard};
use mcp_sansio::client::{self, EraPolicy, InputAnswer};
use mcp_sansio::mcp::ClientCapabilities;
use mcp_sansio::mcp::input::ReceivedInput;
use mcp_sansio::server::{Buffers, Config, Server};
use mcp_sansio::version::ProtocolVersion;
use mcp_sansio_futures::child;
use mcp_sansio_futures::host::{Host, RequestError};
use scripted_tasks::{check_followed_task, serve_scripted_tasks};
use serde_json::Value as Json;

const CHILD_ENV: &str = "MCP_SANSIO_FUTURES_CLIENT_CHILD";

fn main() {
    if std::env::var_os(CHILD_ENV).is_some_and(|mode| mode == "tasks") {
        serve_scripted_tasks();
    }
    if std::env::var_os(CHILD_ENV).is_some() {
        let (mut rx, mut tx, mut input) = ([0u8; 8192], [0u8; 8192], [0u8; 4096]);
        let config = Config::new("mcp-device", "0.1.0");
        let mut server: Server<'_, _> =
            Server::new(Device::new(FixedBoard), config, Buffers { rx: &mut rx, tx: &mut tx });
        server.set_input_buffer(&mut input);
        let served = smol::block_on(mcp_sansio_futures::serve_stdio(&mut server));
        std::process::exit(i32::from(served.is_err()));
    }
    let cases: [(&str, fn()); 3] = [
        ("smol: both eras, tools and elicitation, close", on_smol),
        ("async-std: auto finds the modern era; a closed client ends its requests", on_async_std),
        ("smol: a call made a task is polled, answered and followed to its result", task_on_smol),
    ];
    let mut failed = 0;
    for (name, case) in cases {
        match std::panic::catch_unwind(case) {
            Ok(()) => println!("test futures child client: {name} ... ok"),
            Err(_) => {
                println!("test futures child client: {name} ... FAILED");
                failed += 1;
            }
        }
    }
    println!("{} passed, {failed} failed", cases.len() - failed);
    if failed > 0 {
        std::process::exit(1);
    }
}

fn command() -> Command {
    let mut command = Command::new(std::env::current_exe().unwrap());
    command.env(CHILD_ENV, "1");
    command
}

fn config(era: EraPolicy) -> client::Config<'static> {
    client::Config::new("futures-client-test", "1.0.0")
        .with_era(era)
        .with_capabilities(ClientCapabilities::NONE.with_elicitation_form())
}

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

fn on_smol() {
    smol::block_on(async {
        for (era, version) in
            [(EraPolicy::Legacy, ProtocolVersion::V2025_11_25), (EraPolicy::Modern, ProtocolVersion::V2026_07_28)]
        {
            let (client, driver) = child::spawn(command(), config(era), confirming_host()).unwrap();
            let driver = smol::spawn(driver);
            assert_eq!(client.connect().await.unwrap().version, version);
            let tools = client.list_tools().await.unwrap();
            assert!(tools.iter().any(|t| parse(t)["name"] == "echo"));
            let echoed = parse(&client.call_tool("echo", r#"{"message":"smol"}"#).await.unwrap());
            assert_eq!(echoed["content"][0]["text"], "smol");
            let reset = parse(&client.call_tool("factory_reset", "{}").await.unwrap());
            assert_eq!(reset["content"][0]["text"], "factory settings restored", "{era:?}");
            let status = client.close().await.unwrap();
            assert!(status.success(), "{status:?}");
            driver.await.unwrap();
        }
    });
}

fn on_async_std() {
    async_std::task::block_on(async {
        let (client, driver) = child::spawn(command(), config(EraPolicy::Auto), Host::new()).unwrap();
        let driver = async_std::task::spawn(driver);
        assert_eq!(client.connect().await.unwrap().version, ProtocolVersion::V2026_07_28);
        client.ping().await.unwrap();
        let handle = (*client).clone();
        let status = client.close().await.unwrap();
        assert!(status.success());
        driver.await.unwrap();
        assert_eq!(handle.ping().await, Err(RequestError::Closed), "the driver is gone");
    });
}

fn task_on_smol() {
    smol::block_on(async {
        let mut command = Command::new(std::env::current_exe().unwrap());
        command.env(CHILD_ENV, "tasks");
        let (client, driver) = child::spawn(command, config(EraPolicy::Modern), confirming_host()).unwrap();
        let driver = smol::spawn(driver);
        client.connect().await.unwrap();
        let started = std::time::Instant::now();
        let result = client.call_tool("anything", "{}").await;
        check_followed_task(result, started.elapsed());
        assert!(client.close().await.unwrap().success());
        driver.await.unwrap();
    });
}
