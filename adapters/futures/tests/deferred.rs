//! A real `Server` whose handler defers tool calls and finishes them from tasks spawned on the
//! runtime's executor (other threads) through a `JobSender`, under async-std and under smol:
//! answers in completion order, and cancellation. (`pipes.rs` has the answer that meets a full
//! transmit buffer.)

#[macro_use]
mod support;

use mcp_sansio_futures::serve_tcp_with_jobs;
use support::Runtime;
use support::slow::{request, slow_server};

on_both_runtimes!(deferred_answers_arrive_in_completion_order_and_cancellation_suppresses_them);

async fn deferred_answers_arrive_in_completion_order_and_cancellation_suppresses_them(runtime: Runtime) {
    let (mut server, jobs, _) = slow_server(runtime, 4096);
    let (mut client, stream) = runtime.tcp_pair().await;
    let client_side = async move {
        client.send(&request(1, 300)).await;
        client.send(&request(2, 10)).await;
        client.send(&request(3, 150)).await;
        client
            .send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":3}}\n")
            .await;
        let first = client.next().await.unwrap();
        let second = client.next().await.unwrap();
        client.end_input();
        (first, second, client.next().await)
    };
    let (served, (first, second, rest)) =
        smol::future::zip(serve_tcp_with_jobs(&mut server, stream, jobs), client_side).await;
    served.unwrap();
    assert_eq!(first["id"], 2, "the shorter sleep answers first: {first}");
    assert_eq!(first["result"]["content"][0]["text"], "slept 10 ms");
    assert_eq!(second["id"], 1, "{second}");
    assert_eq!(rest, None, "the cancelled request 3 is never answered");
    assert_eq!(server.in_flight(), 0);
}
