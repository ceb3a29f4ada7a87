//! A real `Server` whose handler defers a request, finishes it from another task through a
//! `Completer`, and sees a second deferred request cancelled: the whole "answer later" path on tokio.

use std::time::Duration;

use mcp_sansio::server::{Buffers, Config, Deferred, Handler, Server, Tool, ToolCall, ToolReply};
use mcp_sansio_tokio::{Completer, completion_channel, run_with_completions};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, duplex};

type SlowServer = Server<'static, Slow>;

static TOOLS: [Tool<'static>; 1] = [Tool::new("slow", "Answers after a delay", r#"{"type":"object"}"#)];

struct Slow {
    completer: Completer<SlowServer>,
}

impl Handler for Slow {
    fn tool(&self, index: usize) -> Option<Tool<'_>> {
        TOOLS.get(index).copied()
    }

    fn call_tool(&mut self, call: ToolCall<'_>, reply: ToolReply<'_>) {
        let delay = call.argument("ms").and_then(|v| v.as_u64()).unwrap_or(0);
        let Ok(deferred) = reply.defer() else { return };
        let completer = self.completer.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(delay)).await;
            let _ = completer.complete(move |server: &mut SlowServer, _now| answer(server, &deferred, delay));
        });
    }
}

fn answer(server: &mut SlowServer, deferred: &Deferred, delay: u64) {
    // A cancelled request is refused here and never answered.
    if let Ok(reply) = server.reply_tool(deferred) {
        reply.text_fmt(format_args!("slept {delay} ms")).finish();
    }
}

fn request(id: u32, ms: u64) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"slow","arguments":{{"ms":{ms}}},"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#
    ) + "\n"
}

#[tokio::test(start_paused = true)]
async fn deferred_answers_arrive_from_other_tasks_and_cancellation_suppresses_them() {
    let (completer, completions) = completion_channel::<SlowServer>();
    let rx = vec![0u8; 4096].leak();
    let tx = vec![0u8; 4096].leak();
    let mut server: SlowServer = Server::new(Slow { completer }, Config::new("slow", "1"), Buffers { rx, tx });
    let (mut client, server_io) = duplex(4096);
    let (server_in, server_out) = tokio::io::split(server_io);

    let client_side = async move {
        client.write_all(request(1, 50).as_bytes()).await.unwrap();
        client.write_all(request(2, 10).as_bytes()).await.unwrap();
        client.write_all(request(3, 30).as_bytes()).await.unwrap();
        client
            .write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":3}}\n")
            .await
            .unwrap();
        let (read_half, mut write_half) = tokio::io::split(client);
        let mut lines = BufReader::new(read_half).lines();
        let first = lines.next_line().await.unwrap().unwrap();
        let second = lines.next_line().await.unwrap().unwrap();
        write_half.shutdown().await.unwrap();
        let rest = lines.next_line().await.unwrap();
        (first, second, rest)
    };
    let (result, (first, second, rest)) =
        tokio::join!(run_with_completions(&mut server, server_in, server_out, completions), client_side);
    result.unwrap();
    let first: serde_json::Value = serde_json::from_str(&first).unwrap();
    let second: serde_json::Value = serde_json::from_str(&second).unwrap();
    assert_eq!(first["id"], 2, "the shorter sleep answers first");
    assert_eq!(first["result"]["content"][0]["text"], "slept 10 ms");
    assert_eq!(second["id"], 1);
    assert_eq!(rest, None, "the cancelled request 3 is never answered");
    assert_eq!(server.in_flight(), 0);
}
