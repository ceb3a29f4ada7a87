//! A host with one client per server, as in the MCP architecture: each server given on the
//! command line (one quoted command each) runs as a child process, all are connected at once, and
//! their tools are listed together, each under its server's name.
//!
//! ```text
//! cargo run -p mcp-sansio-tokio --example host -- target/release/mcp-device "python server.py"
//! ```

use mcp_sansio::client::Config;
use mcp_sansio::json;
use mcp_sansio::mcp::view::ToolView;
use mcp_sansio_tokio::child::{self, ChildClient};
use mcp_sansio_tokio::host::Host;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let servers: Vec<String> = std::env::args().skip(1).collect();
    if servers.is_empty() {
        eprintln!("usage: host SERVER_COMMAND...");
        std::process::exit(2);
    }
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    runtime.block_on(async {
        // One client per server, connected concurrently.
        let mut clients: Vec<(String, ChildClient)> = Vec::new();
        for line in &servers {
            let mut words = line.split_whitespace();
            let mut command = tokio::process::Command::new(words.next().ok_or("empty command")?);
            command.args(words);
            clients.push((line.clone(), child::spawn(command, Config::new("example-host", "0.1.0"), Host::new())?));
        }
        let connected = futures_join(clients.iter().map(|(_, client)| client.connect())).await;
        // Every server's tools, together: what a host offers its model.
        for ((line, client), connected) in clients.iter().zip(connected) {
            let name = match connected {
                Ok(connected) => connected.server_name.unwrap_or_else(|| line.clone()),
                Err(error) => {
                    eprintln!("{line}: {error}");
                    continue;
                }
            };
            for tool in client.list_tools().await? {
                // The core's borrowed view of a tool (its strings may hold escapes).
                let view = json::parse(&tool, json::MAX_DEPTH_LIMIT).ok().and_then(ToolView::from_value);
                let tool_name: String = view.map(|view| view.name.chars().collect()).unwrap_or_default();
                println!("{name}/{tool_name}");
            }
        }
        for (_, client) in clients {
            client.close().await?;
        }
        Ok(())
    })
}

/// Awaits every future concurrently and returns their outputs in order (a join without a futures
/// crate).
async fn futures_join<F, T>(futures: impl Iterator<Item = F>) -> Vec<T>
where
    F: std::future::Future<Output = T>,
{
    // The futures borrow their clients, so they are polled here together rather than spawned.
    let mut pending: Vec<_> = futures.map(|f| Some(Box::pin(f))).collect();
    let mut results: Vec<Option<T>> = pending.iter().map(|_| None).collect();
    std::future::poll_fn(|cx| {
        let mut all = true;
        for (slot, result) in pending.iter_mut().zip(results.iter_mut()) {
            if let Some(future) = slot {
                match future.as_mut().poll(cx) {
                    std::task::Poll::Ready(value) => {
                        *result = Some(value);
                        *slot = None;
                    }
                    std::task::Poll::Pending => all = false,
                }
            }
        }
        if all { std::task::Poll::Ready(()) } else { std::task::Poll::Pending }
    })
    .await;
    results.into_iter().flatten().collect()
}
