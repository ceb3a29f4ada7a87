//! The same driver on tokio, through `embedded_io_adapters::tokio_1::FromTokio`: the tokio and
//! async-std adapters can share this one loop.

#[path = "../../driver/tests/support/mod.rs"]
mod support;

use embedded_io_adapters::tokio_1::FromTokio;
use mcp_sansio::time::Instant;
use mcp_sansio_embedded::{Clock, run};
use support::*;
use tokio::io::{AsyncReadExt, AsyncWriteExt, duplex};

/// Milliseconds since the clock was created, on tokio's clock.
struct TokioClock(tokio::time::Instant);

impl Clock for TokioClock {
    fn now(&self) -> Instant {
        Instant::from_std(self.0.into_std(), tokio::time::Instant::now().into_std())
    }

    async fn wait_until(&mut self, deadline: Instant) {
        tokio::time::sleep_until(self.0 + std::time::Duration::from_millis(deadline.as_millis())).await
    }
}

#[tokio::test]
async fn serves_the_device_over_tokio_streams() {
    let input =
        lines(&[INITIALIZE, INITIALIZED, &echo(2, "over tokio"), r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#]);
    let (mut client_in, server_in) = duplex(16);
    let (server_out, mut client_out) = duplex(16);
    let send = async move {
        for chunk in input.chunks(5) {
            client_in.write_all(chunk).await.unwrap();
            tokio::task::yield_now().await;
        }
        client_in.shutdown().await.unwrap();
    };
    let receive = async move {
        let mut output = Vec::new();
        client_out.read_to_end(&mut output).await.unwrap();
        output
    };
    let mut rx = vec![0u8; 1024];
    let mut tx = vec![0u8; 2048];
    let mut server: DeviceServer<'_> = mcp_sansio::server::Server::new(
        mcp_example_device::Device::new(FakeBoard { led: false }),
        mcp_sansio::server::Config::new("mcp-device", "0.1.0"),
        mcp_sansio::server::Buffers { rx: &mut rx, tx: &mut tx },
    );
    let serve = async {
        let mut reader = FromTokio::new(server_in);
        let mut writer = FromTokio::new(server_out);
        let result = run(&mut server, &mut reader, &mut writer, &mut TokioClock(tokio::time::Instant::now())).await;
        drop(writer); // EOF for the client
        result
    };
    let (result, (), output) = tokio::join!(serve, send, receive);
    result.unwrap();
    let answers = messages(&output);
    assert_eq!(answers.len(), 3);
    assert_eq!(answers[1]["result"]["content"][0]["text"], "over tokio");
    assert_eq!(answers[2]["id"], 3);
}
