//! `RedisSessions` against a real redis-server (started here on a free loopback port): three
//! endpoints share sessions through it, and it stops and comes back while they serve. Ignored by
//! `cargo test` (it needs `redis-server`): `scripts/test-replicas` installs it and runs these with
//! `--ignored`.

use std::net::SocketAddr;
use std::process::Stdio;
use std::time::{Duration, Instant};

use mcp_sansio::server::Config;
use mcp_sansio_http::{HttpConfig, McpHttp, serve};
use mcp_sansio_redis::RedisSessions;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::process::{Child, Command};

#[path = "../../http/tests/support/mod.rs"]
mod support;
use support::replicated::Replicated;
use support::{BOTH, JSON, Reply, modern, open_session, post_kept_open, read_events, send, task_request};

/// A redis-server on `port`, ended when dropped.
struct Redis {
    child: Child,
    port: u16,
}

impl Redis {
    async fn start(port: u16) -> Redis {
        let child = Command::new(std::env::var("REDIS_SERVER").unwrap_or_else(|_| "redis-server".into()))
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
            .stdout(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("redis-server (scripts/test-replicas installs it)");
        let redis = Redis { child, port };
        let deadline = Instant::now() + Duration::from_secs(10);
        while !redis.answers_ping().await {
            assert!(Instant::now() < deadline, "redis-server did not start");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        redis
    }

    async fn answers_ping(&self) -> bool {
        let Ok(mut stream) = tokio::net::TcpStream::connect(("127.0.0.1", self.port)).await else { return false };
        let mut reply = [0u8; 7];
        stream.write_all(b"PING\r\n").await.is_ok()
            && stream.read_exact(&mut reply).await.is_ok()
            && &reply == b"+PONG\r\n"
    }

    /// The value of a raw command's integer reply (`PTTL key`, `EXISTS key`).
    async fn integer(&self, command: &str) -> i64 {
        let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", self.port)).await.unwrap();
        stream.write_all(format!("{command}\r\n").as_bytes()).await.unwrap();
        let mut reply = [0u8; 64];
        let n = stream.read(&mut reply).await.unwrap();
        let text = std::str::from_utf8(&reply[..n]).unwrap();
        text.trim().strip_prefix(':').unwrap_or_else(|| panic!("{text:?}")).parse().unwrap()
    }

    /// How many connections subscribe to `channel` (`PUBSUB NUMSUB`).
    async fn subscribers(&self, channel: &str) -> i64 {
        let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", self.port)).await.unwrap();
        stream.write_all(format!("PUBSUB NUMSUB {channel}\r\n").as_bytes()).await.unwrap();
        let mut reply = [0u8; 128];
        let n = stream.read(&mut reply).await.unwrap();
        // *2, $len, the channel, :count
        let text = std::str::from_utf8(&reply[..n]).unwrap();
        text.lines().find_map(|l| l.strip_prefix(':')).and_then(|c| c.trim().parse().ok()).unwrap_or(0)
    }

    async fn stop(mut self) {
        self.child.kill().await.unwrap();
    }

    fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

async fn replica(number: u8, url: &str) -> SocketAddr {
    stoppable_replica(number, url).await.0
}

/// A replica whose serving the test can stop (abort the task: its endpoint goes with it).
async fn stoppable_replica(number: u8, url: &str) -> (SocketAddr, tokio::task::JoinHandle<()>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let mut config = HttpConfig::new(Config::new("replica", "1.0.0"), addr);
    config.replica = number;
    config.session_idle_timeout = Duration::from_secs(600);
    config.store_timeout = Duration::from_millis(1500);
    // Every request reads Redis: what these tests check of it.
    config.shared_state_fresh = Duration::ZERO;
    let sessions = RedisSessions::open(url).unwrap().with_prefix("test:");
    config.tasks = Some(mcp_sansio_http::TaskLimits::default());
    let endpoint = McpHttp::new(Replicated, config).with_shared_sessions(sessions);
    let served = tokio::spawn(async move {
        let _ = serve(listener, endpoint, std::future::pending::<()>()).await;
    });
    (addr, served)
}

async fn echo(addr: SocketAddr, sid: &str, id: u32, text: &str) -> Reply {
    let body =
        json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{"name":"echo","arguments":{"text":text}}});
    let headers = [JSON, BOTH, ("Mcp-Session-Id", sid), ("MCP-Protocol-Version", "2025-11-25")];
    send(addr, "POST", &headers, &body.to_string()).await
}

fn answer(reply: &Reply) -> Value {
    assert_eq!(reply.status, 200, "{:?}", String::from_utf8_lossy(&reply.body));
    reply.events().pop().expect("an answer")["result"]["content"][0]["text"].clone()
}

#[tokio::test]
#[ignore = "needs redis-server: scripts/test-replicas"]
async fn sessions_started_on_one_replica_are_served_by_the_others_through_redis() {
    let redis = Redis::start(free_port()).await;
    let replicas = [replica(1, &redis.url()).await, replica(2, &redis.url()).await, replica(3, &redis.url()).await];
    let sid = open_session(replicas[0]).await;
    let key = format!("test:session:{sid}");
    let ttl = redis.integer(&format!("PTTL {key}")).await;
    assert!((590_000..=600_000).contains(&ttl), "kept for the idle timeout: {ttl} ms");
    for (i, addr) in replicas.iter().cycle().skip(1).take(6).enumerate() {
        assert_eq!(answer(&echo(*addr, &sid, i as u32 + 1, &format!("call {i}")).await), format!("call {i}"));
    }
    assert_eq!(send(replicas[2], "DELETE", &[("Mcp-Session-Id", &sid)], "").await.status, 204);
    assert_eq!(redis.integer(&format!("EXISTS {key}")).await, 0);
    assert_eq!(echo(replicas[0], &sid, 9, "gone").await.status, 404);
    redis.stop().await;
}

#[tokio::test]
#[ignore = "needs redis-server: scripts/test-replicas"]
async fn while_redis_is_down_for_10_s_requests_fail_clearly_in_bounded_time_and_the_replicas_recover() {
    let port = free_port();
    let redis = Redis::start(port).await;
    let (one, two) = (replica(1, &redis.url()).await, replica(2, &redis.url()).await);
    let sid = open_session(one).await;
    assert_eq!(answer(&echo(two, &sid, 1, "up").await), "up");
    redis.stop().await;
    // Redis stays down for 10 s: every request that needs it meanwhile gets a clear 503 in bounded
    // time, on either replica.
    let down = Instant::now();
    let mut tried = 0;
    while down.elapsed() < Duration::from_secs(10) {
        let addr = [one, two][tried % 2];
        let started = Instant::now();
        let reply = echo(addr, &sid, 2 + tried as u32, "down").await;
        assert_eq!(reply.status, 503, "{:?}", String::from_utf8_lossy(&reply.body));
        assert_eq!(reply.json()["error"]["message"], "Service Unavailable: the session store is unavailable");
        assert!(
            started.elapsed() < Duration::from_secs(3),
            "no longer than the store timeout: {:?}",
            started.elapsed()
        );
        let refused = send(addr, "POST", &[JSON, BOTH], &support::initialize()).await;
        assert_eq!(refused.status, 503, "a new session needs the store too");
        tried += 1;
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    assert!(tried >= 4, "{tried} rounds in 10 s");
    // Back, empty (no persistence): the old session is unknown, new ones work on every replica.
    let redis = Redis::start(port).await;
    let deadline = Instant::now() + Duration::from_secs(10);
    let sid2 = loop {
        let reply = send(one, "POST", &[JSON, BOTH], &support::initialize()).await;
        if reply.status == 200 {
            break reply.header("mcp-session-id").expect("a session").to_owned();
        }
        assert!(Instant::now() < deadline, "the replica did not recover: {}", reply.status);
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(echo(two, &sid, 5, "old").await.status, 404);
    assert_eq!(answer(&echo(two, &sid2, 6, "recovered").await), "recovered");
    redis.stop().await;
}

#[tokio::test]
#[ignore = "needs redis-server: scripts/test-replicas"]
async fn an_answer_reaching_another_replica_is_relayed_through_redis_to_the_waiting_request() {
    let redis = Redis::start(free_port()).await;
    let replicas = [replica(1, &redis.url()).await, replica(2, &redis.url()).await];
    let sid = support::open_asking_session(replicas[0]).await;
    let session = [JSON, BOTH, ("Mcp-Session-Id", sid.as_str()), ("MCP-Protocol-Version", "2025-11-25")];
    // Both replicas listen from their start; wait until Redis has both subscriptions.
    let deadline = Instant::now() + Duration::from_secs(10);
    while redis.subscribers("test:bus").await < 2 {
        assert!(Instant::now() < deadline, "the replicas did not subscribe");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let greet = json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"greet"}});
    let mut stream = post_kept_open(replicas[0], &session, &greet.to_string()).await;
    let mut raw = Vec::new();
    let body = read_events(&mut stream, &mut raw, 1).await;
    let question: Value = serde_json::from_str(&support::sse_data(&body)[0]).unwrap();
    assert_eq!(question["method"], "elicitation/create");
    let reply = json!({"jsonrpc":"2.0","id":question["id"],"result":{"action":"accept","content":{"name":"Grace"}}});
    assert_eq!(send(replicas[1], "POST", &session, &reply.to_string()).await.status, 202);
    let body = read_events(&mut stream, &mut raw, 2).await;
    let result: Value = serde_json::from_str(&support::sse_data(&body)[1]).unwrap();
    assert_eq!(result["result"]["content"][0]["text"], "Grace");
    redis.stop().await;
}

#[tokio::test]
#[ignore = "needs redis-server: scripts/test-replicas"]
async fn a_stream_resumes_on_another_replica_from_redis_with_what_was_missed_and_what_comes_later() {
    let redis = Redis::start(free_port()).await;
    let replicas = [replica(1, &redis.url()).await, replica(2, &redis.url()).await, replica(3, &redis.url()).await];
    let deadline = Instant::now() + Duration::from_secs(10);
    while redis.subscribers("test:bus").await < 3 {
        assert!(Instant::now() < deadline, "the replicas did not subscribe");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let sid = support::open_asking_session(replicas[0]).await;
    let session = [JSON, BOTH, ("Mcp-Session-Id", sid.as_str()), ("MCP-Protocol-Version", "2025-11-25")];
    for (n, name, resume_first) in [(1, "Ada", false), (2, "Grace", true)] {
        let greet = json!({"jsonrpc":"2.0","id":n,"method":"tools/call","params":{"name":"greet"}});
        let mut call = post_kept_open(replicas[0], &session, &greet.to_string()).await;
        let (question, last) = support::question_and_its_id(&mut call).await;
        drop(call);
        let headers =
            [("Accept", "text/event-stream"), ("Mcp-Session-Id", sid.as_str()), ("Last-Event-ID", last.as_str())];
        let answer = json!({"jsonrpc":"2.0","id":question["id"],"result":{"action":"accept","content":{"name":name}}});
        let mut resumed = if resume_first {
            // Resumed before the answer: the result comes through Redis as it is written.
            let resumed = support::get_kept_open(replicas[2], &headers).await;
            tokio::time::sleep(Duration::from_millis(200)).await;
            assert_eq!(send(replicas[1], "POST", &session, &answer.to_string()).await.status, 202);
            resumed
        } else {
            assert_eq!(send(replicas[1], "POST", &session, &answer.to_string()).await.status, 202);
            tokio::time::sleep(Duration::from_millis(200)).await;
            support::get_kept_open(replicas[2], &headers).await
        };
        let mut raw = Vec::new();
        let deadline = Instant::now() + Duration::from_secs(10);
        let text = loop {
            let mut buf = [0u8; 4096];
            let n =
                tokio::time::timeout(Duration::from_secs(10), resumed.read(&mut buf)).await.expect("in time").unwrap();
            raw.extend_from_slice(&buf[..n]);
            let text = String::from_utf8_lossy(&raw).into_owned();
            if text.contains(name) || n == 0 || Instant::now() > deadline {
                break text;
            }
        };
        assert!(text.contains(&format!(r#""id":{n},"result""#)) && text.contains(name), "{text}");
    }
    redis.stop().await;
}

#[tokio::test]
#[ignore = "needs redis-server: scripts/test-replicas"]
async fn a_task_whose_replica_stopped_ends_failed_through_redis_within_seconds() {
    let redis = Redis::start(free_port()).await;
    let (worker, served) = stoppable_replica(1, &redis.url()).await;
    let other = replica(2, &redis.url()).await;
    let created = modern(worker, &task_request(1, "tools/call", json!({"name": "linger"}))).await;
    let task = created["result"]["taskId"].as_str().unwrap_or_else(|| panic!("a task: {created}")).to_owned();
    let got = modern(other, &task_request(2, "tasks/get", json!({"taskId": task}))).await;
    assert_eq!(got["result"]["status"], "working", "{got}");
    let ttl = redis.integer(&format!("PTTL test:task:{task}")).await;
    assert!(ttl > 3_000_000, "recorded for the task's time to live (1 h): {ttl} ms");

    served.abort();
    let started = Instant::now();
    loop {
        let got = modern(other, &task_request(3, "tasks/get", json!({"taskId": task}))).await;
        match got["result"]["status"].as_str() {
            Some("failed") => break,
            Some("working") => {}
            _ => panic!("working, then failed, never unknown: {got}"),
        }
        assert!(started.elapsed() < Duration::from_secs(10), "failed within seconds: {got}");
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    redis.stop().await;
}

#[tokio::test]
#[ignore = "needs redis-server: scripts/test-replicas"]
async fn a_key_is_claimed_once_by_all_replicas_for_its_time() {
    use mcp_sansio_http::SharedSessions;
    let redis = Redis::start(free_port()).await;
    let one = RedisSessions::open(&redis.url()).unwrap().with_prefix("test:");
    let other = RedisSessions::open(&redis.url()).unwrap().with_prefix("test:");
    let ttl = Duration::from_secs(120);
    assert!(one.claim_once("dpop:key:j1".into(), ttl).await.unwrap(), "the first claim");
    assert!(!other.claim_once("dpop:key:j1".into(), ttl).await.unwrap(), "another replica's claim of the same key");
    assert!(!one.claim_once("dpop:key:j1".into(), ttl).await.unwrap(), "the same replica's, again");
    assert!(other.claim_once("dpop:key:j2".into(), ttl).await.unwrap(), "another key");
    let kept = redis.integer("PTTL test:dpop:key:j1").await;
    assert!((110_000..=120_000).contains(&kept), "kept for its time: {kept} ms");
    // Many replicas claiming one key at once: exactly one gets it.
    let claims = (0..16).map(|_| {
        let store = RedisSessions::open(&redis.url()).unwrap().with_prefix("test:");
        tokio::spawn(async move { store.claim_once("dpop:key:race".into(), ttl).await.unwrap() })
    });
    let mut won = 0;
    for claim in claims.collect::<Vec<_>>() {
        won += usize::from(claim.await.unwrap());
    }
    assert_eq!(won, 1);
    redis.stop().await;
}
