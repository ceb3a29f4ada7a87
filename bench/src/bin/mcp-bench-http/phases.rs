//! The measured phases: MCP clients of either era calling `echo`, one at a time or many at once,
//! and idle legacy sessions.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use mcp_sansio_bench::measure::{cpu_seconds, percentile, push_decimal, status_kib};

use crate::client::{Connection, message};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Era {
    /// Protocol 2025-11-25 in a session opened by `initialize` (`Mcp-Session-Id`).
    Legacy,
    /// Protocol 2026-07-28: no `initialize`, `_meta` and the standard headers on every request.
    Stateless,
}

const INITIALIZE: &[u8] = br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"mcp-bench-http","version":"0.0.0"}}}"#;
const INITIALIZED: &[u8] = br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
const MODERN_META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"mcp-bench-http","version":"0.0.0"},"io.modelcontextprotocol/clientCapabilities":{}}"#;

fn invalid(what: String) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, what)
}

/// One MCP client on its own connection (and, in the legacy era, its own session).
pub struct Client {
    connection: Connection,
    era: Era,
    /// The headers of each call (version, session, or method and name).
    headers: Vec<u8>,
    suffix: Vec<u8>,
    message: Arc<str>,
    next_id: u64,
    body: Vec<u8>,
    /// The legacy session's id (`None` for 2026-07-28, and for a server that minted none).
    pub session: Option<String>,
}

/// Opens a legacy session on `connection`: `initialize`, then `notifications/initialized`.
async fn open_session(connection: &mut Connection) -> std::io::Result<Option<String>> {
    let answer = connection.post(b"", INITIALIZE, true).await?;
    let text = message(&connection.body, answer.sse);
    if answer.status != 200 || memchr::memmem::find(text, br#""protocolVersion":"2025-11-25""#).is_none() {
        return Err(invalid(format!("initialize: {} {}", answer.status, String::from_utf8_lossy(&connection.body))));
    }
    let session = answer.session;
    let mut headers = b"MCP-Protocol-Version: 2025-11-25\r\n".to_vec();
    if let Some(id) = &session {
        headers.extend_from_slice(format!("Mcp-Session-Id: {id}\r\n").as_bytes());
    }
    let answer = connection.post(&headers, INITIALIZED, false).await?;
    if answer.status != 202 {
        return Err(invalid(format!("notifications/initialized: {}", answer.status)));
    }
    Ok(session)
}

impl Client {
    pub async fn open(addr: SocketAddr, era: Era, message: Arc<str>) -> std::io::Result<Client> {
        let mut connection = Connection::open(addr).await?;
        let (headers, meta, session) = match era {
            Era::Legacy => {
                let session = open_session(&mut connection).await?;
                let mut headers = b"MCP-Protocol-Version: 2025-11-25\r\n".to_vec();
                if let Some(id) = &session {
                    headers.extend_from_slice(format!("Mcp-Session-Id: {id}\r\n").as_bytes());
                }
                (headers, String::new(), session)
            }
            Era::Stateless => (
                b"MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: echo\r\n".to_vec(),
                format!(",{MODERN_META}"),
                None,
            ),
        };
        let suffix = format!(
            r#","method":"tools/call","params":{{"name":"echo","arguments":{{"message":"{message}"}}{meta}}}}}"#
        )
        .into_bytes();
        let mut client =
            Client { connection, era, headers, suffix, message, next_id: 1, body: Vec::with_capacity(512), session };
        client.checked_call().await?;
        Ok(client)
    }

    async fn post_call(&mut self) -> std::io::Result<(u64, bool)> {
        let id = self.next_id;
        self.next_id += 1;
        self.body.clear();
        self.body.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
        push_decimal(&mut self.body, id);
        self.body.extend_from_slice(&self.suffix);
        let answer = self.connection.post(&self.headers, &self.body, false).await?;
        if answer.status != 200 {
            return Err(invalid(format!(
                "{:?} tools/call: {} {}",
                self.era,
                answer.status,
                String::from_utf8_lossy(&self.connection.body)
            )));
        }
        Ok((id, answer.sse))
    }

    /// One call whose answer is parsed whole: the id, and the message as the text content.
    pub async fn checked_call(&mut self) -> std::io::Result<()> {
        let (id, sse) = self.post_call().await?;
        let text = message(&self.connection.body, sse);
        let parsed: serde_json::Value = serde_json::from_slice(text).map_err(|e| {
            invalid(format!("echo answer is not JSON ({e}): {}", String::from_utf8_lossy(&self.connection.body)))
        })?;
        let echoed = parsed.pointer("/result/content/0/text").and_then(|t| t.as_str());
        if parsed["id"] != id
            || echoed != Some(&*self.message)
            || parsed.pointer("/result/isError") == Some(&true.into())
        {
            return Err(invalid(format!("bad echo answer: {}", String::from_utf8_lossy(text))));
        }
        Ok(())
    }

    /// One call, its answer checked to be a result carrying the message back.
    pub async fn call(&mut self) -> std::io::Result<()> {
        let (_, sse) = self.post_call().await?;
        let text = message(&self.connection.body, sse);
        let ok = memchr::memmem::find(text, br#""result""#).is_some()
            && memchr::memmem::find(text, br#""isError":true"#).is_none()
            && memchr::memmem::find(text, self.message.as_bytes()).is_some();
        if !ok {
            return Err(invalid(format!("bad echo answer: {}", String::from_utf8_lossy(&self.connection.body))));
        }
        Ok(())
    }
}

/// What a phase of calls measured.
pub struct Calls {
    pub p50_us: f64,
    pub p99_us: f64,
    pub calls_per_s: f64,
    pub cpu_us_per_call: f64,
    /// The load generator's own CPU per call (this process), for telling whether it was the limit.
    pub client_cpu_us_per_call: f64,
    /// Whether the legacy clients got sessions (`Mcp-Session-Id`).
    pub sessions: bool,
}

/// `clients` clients, each on its own connection (and session), calling one at a time for
/// `duration` after up to `warmup` calls each; the server's CPU is taken over the measured part.
pub async fn calls(
    addr: SocketAddr,
    pid: u32,
    era: Era,
    message: Arc<str>,
    clients: usize,
    duration: Duration,
    warmup: usize,
) -> std::io::Result<Calls> {
    let mut opened = Vec::with_capacity(clients);
    for _ in 0..clients {
        let message = message.clone();
        opened.push(tokio::spawn(async move {
            let mut client = Client::open(addr, era, message).await?;
            // Warm-up: `warmup` calls, or fewer if they take more than 250 ms (a slow server).
            let until = Instant::now() + Duration::from_millis(250);
            for _ in 0..warmup {
                if Instant::now() > until {
                    break;
                }
                client.call().await?;
            }
            Ok::<_, std::io::Error>(client)
        }));
    }
    let mut ready = Vec::with_capacity(clients);
    for task in opened {
        ready.push(task.await.expect("client task")?);
    }
    let sessions = ready.iter().all(|c| c.session.is_some());
    let cpu_before = cpu_seconds(pid);
    let own_before = cpu_seconds(std::process::id());
    let started = Instant::now();
    let deadline = started + duration;
    let tasks: Vec<_> = ready
        .into_iter()
        .map(|mut client| {
            tokio::spawn(async move {
                let mut latencies = Vec::with_capacity(1 << 14);
                while Instant::now() < deadline {
                    let sent = Instant::now();
                    client.call().await?;
                    latencies.push(sent.elapsed().as_secs_f64() * 1e6);
                }
                Ok::<_, std::io::Error>(latencies)
            })
        })
        .collect();
    let mut latencies = Vec::new();
    for task in tasks {
        latencies.extend(task.await.expect("client task")?);
    }
    let elapsed = started.elapsed().as_secs_f64();
    let cpu = cpu_seconds(pid) - cpu_before;
    let own = cpu_seconds(std::process::id()) - own_before;
    latencies.sort_by(f64::total_cmp);
    let n = latencies.len() as f64;
    Ok(Calls {
        p50_us: percentile(&latencies, 50.0),
        p99_us: percentile(&latencies, 99.0),
        calls_per_s: n / elapsed,
        cpu_us_per_call: cpu * 1e6 / n,
        client_cpu_us_per_call: own * 1e6 / n,
        sessions,
    })
}

/// Opens `count` legacy sessions (`initialize` and `notifications/initialized`, over `parallel`
/// connections, closed afterwards) and leaves them idle; the server's resident memory growth per
/// session, after `settle`. `None` when the server mints no session ids. The first and the last
/// session are then checked to still answer.
pub async fn idle_sessions(
    addr: SocketAddr,
    pid: u32,
    message: Arc<str>,
    count: usize,
    parallel: usize,
    settle: Duration,
) -> std::io::Result<Option<f64>> {
    let before_kib = status_kib(pid, "VmRSS");
    let next = Arc::new(AtomicUsize::new(0));
    let tasks: Vec<_> = (0..parallel.max(1))
        .map(|_| {
            let next = next.clone();
            tokio::spawn(async move {
                let mut connection = Connection::open(addr).await?;
                let mut ids = Vec::new();
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    if index >= count {
                        break;
                    }
                    match open_session(&mut connection).await? {
                        Some(id) => ids.push((index, id)),
                        None => return Ok(None),
                    }
                }
                Ok::<_, std::io::Error>(Some(ids))
            })
        })
        .collect();
    let mut ids = Vec::with_capacity(count);
    for task in tasks {
        match task.await.expect("session task")? {
            Some(some) => ids.extend(some),
            None => return Ok(None),
        }
    }
    tokio::time::sleep(settle).await;
    let after_kib = status_kib(pid, "VmRSS");
    let mut unique: Vec<&str> = ids.iter().map(|(_, id)| id.as_str()).collect();
    unique.sort_unstable();
    unique.dedup();
    if unique.len() != count {
        return Err(invalid(format!("{} distinct session ids for {count} sessions", unique.len())));
    }
    // The oldest and the newest session still serve a call.
    ids.sort_unstable_by_key(|(order, _)| *order);
    for (_, id) in [ids.first(), ids.last()].into_iter().flatten() {
        let mut connection = Connection::open(addr).await?;
        let headers = format!("MCP-Protocol-Version: 2025-11-25\r\nMcp-Session-Id: {id}\r\n");
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"echo","arguments":{{"message":"{message}"}}}}}}"#
        );
        let answer = connection.post(headers.as_bytes(), body.as_bytes(), false).await?;
        let text = message_of(&connection, answer.sse);
        if answer.status != 200 || memchr::memmem::find(&text, message.as_bytes()).is_none() {
            return Err(invalid(format!("idle session {id}: {} {}", answer.status, String::from_utf8_lossy(&text))));
        }
    }
    Ok(Some(after_kib.saturating_sub(before_kib) as f64 * 1024.0 / count as f64))
}

fn message_of(connection: &Connection, sse: bool) -> Vec<u8> {
    message(&connection.body, sse).to_vec()
}
