//! A raw HTTP/1.1 client for the endpoint's tests: one request per connection, the response
//! parsed (chunked bodies joined, SSE events split).
#![allow(dead_code, reason = "each test crate uses a part")]

pub mod replicated;

use std::net::SocketAddr;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// A parsed response: status, lower-case headers, de-chunked body.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| panic!("{e}: {:?}", String::from_utf8_lossy(&self.body)))
    }
    /// The `data` of each SSE event that has some.
    pub fn events(&self) -> Vec<Value> {
        sse_data(&self.body).into_iter().map(|d| serde_json::from_str(&d).unwrap()).collect()
    }
}

pub fn sse_data(body: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(body)
        .split("\n\n")
        .filter_map(|event| event.lines().find_map(|l| l.strip_prefix("data: ")).map(str::to_owned))
        .filter(|d| !d.is_empty())
        .collect()
}

pub fn sse_ids(body: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(body)
        .split("\n\n")
        .filter_map(|event| event.lines().find_map(|l| l.strip_prefix("id: ")).map(str::to_owned))
        .collect()
}

pub fn parse(raw: &[u8]) -> Reply {
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n").expect("a complete head");
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut lines = head.split("\r\n");
    let status = lines.next().unwrap().split(' ').nth(1).unwrap().parse().unwrap();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let mut body = raw[split + 4..].to_vec();
    if headers.iter().any(|(n, v)| n == "transfer-encoding" && v == "chunked") {
        body = dechunk(&body);
    }
    Reply { status, headers, body }
}

pub fn dechunk(mut data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(eol) = data.windows(2).position(|w| w == b"\r\n") {
        let size = usize::from_str_radix(std::str::from_utf8(&data[..eol]).unwrap().trim(), 16).unwrap();
        let start = eol + 2;
        if size == 0 || data.len() < start + size {
            out.extend_from_slice(&data[start..data.len().min(start + size)]);
            break;
        }
        out.extend_from_slice(&data[start..start + size]);
        data = &data[(start + size + 2).min(data.len())..];
    }
    out
}

/// Sends one request (closing the connection after it) and reads the whole response.
pub async fn send(addr: SocketAddr, method: &str, headers: &[(&str, &str)], body: &str) -> Reply {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let mut request = format!("{method} /mcp HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    for (name, value) in headers {
        request += &format!("{name}: {value}\r\n");
    }
    if !body.is_empty() || method == "POST" {
        request += &format!("Content-Length: {}\r\n", body.len());
    }
    request += "\r\n";
    request += body;
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    tokio::time::timeout(Duration::from_secs(5), stream.read_to_end(&mut raw))
        .await
        .expect("response in time")
        .unwrap();
    parse(&raw)
}

pub const JSON: (&str, &str) = ("Content-Type", "application/json");
pub const BOTH: (&str, &str) = ("Accept", "application/json, text/event-stream");

pub fn initialize() -> String {
    json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},
        "clientInfo":{"name":"t","version":"1"}}})
    .to_string()
}

/// Opens a legacy session; returns its id.
pub async fn open_session(addr: SocketAddr) -> String {
    let reply = send(addr, "POST", &[JSON, BOTH], &initialize()).await;
    assert_eq!(reply.status, 200);
    assert_eq!(
        reply.events()[0]["result"]["protocolVersion"],
        "2025-11-25",
        "{:?}",
        String::from_utf8_lossy(&reply.body)
    );
    reply.header("mcp-session-id").expect("a session id").to_owned()
}

/// Reads from a response kept open until its body holds `events` SSE messages (0: until its last
/// event ended); returns the de-chunked body.
pub async fn read_events(stream: &mut TcpStream, raw: &mut Vec<u8>, events: usize) -> Vec<u8> {
    loop {
        if let Some(split) = raw.windows(4).position(|w| w == b"\r\n\r\n") {
            let body = dechunk(&raw[split + 4..]);
            if sse_data(&body).len() >= events && (events > 0 || body.ends_with(b"\n\n")) {
                return body;
            }
        }
        let mut buf = [0u8; 4096];
        let n = match tokio::time::timeout(Duration::from_secs(5), stream.read(&mut buf)).await {
            Ok(n) => n.unwrap(),
            Err(_) => panic!("no events in time: {:?}", String::from_utf8_lossy(raw)),
        };
        assert!(n > 0, "stream ended early: {:?}", String::from_utf8_lossy(raw));
        raw.extend_from_slice(&buf[..n]);
    }
}

/// Writes a POST on a new connection, kept open, and returns the connection.
pub async fn post_kept_open(addr: SocketAddr, headers: &[(&str, &str)], body: &str) -> TcpStream {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let mut request = format!("POST /mcp HTTP/1.1\r\nHost: {addr}\r\n");
    for (name, value) in headers {
        request += &format!("{name}: {value}\r\n");
    }
    request += &format!("Content-Length: {}\r\n\r\n{body}", body.len());
    stream.write_all(request.as_bytes()).await.unwrap();
    stream
}

/// Writes a GET on a new connection, kept open (a session's standalone stream), and returns the
/// connection.
pub async fn get_kept_open(addr: SocketAddr, headers: &[(&str, &str)]) -> TcpStream {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let mut request = format!("GET /mcp HTTP/1.1\r\nHost: {addr}\r\n");
    for (name, value) in headers {
        request += &format!("{name}: {value}\r\n");
    }
    request += "\r\n";
    stream.write_all(request.as_bytes()).await.unwrap();
    stream
}

/// Reads a tool call's stream up to its first message, a question to the client: the question and
/// its event id.
pub async fn question_and_its_id(stream: &mut TcpStream) -> (Value, String) {
    let mut raw = Vec::new();
    let body = read_events(stream, &mut raw, 1).await;
    let question: Value = serde_json::from_str(&sse_data(&body)[0]).unwrap();
    let id = sse_ids(&body).into_iter().rev().find(|id| !id.ends_with("-0")).expect("an event id");
    (question, id)
}

/// Opens a legacy session (2025-11-25) whose client takes elicitation; returns its id.
pub async fn open_asking_session(addr: SocketAddr) -> String {
    let init = json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25",
        "capabilities":{"elicitation":{}},"clientInfo":{"name":"t","version":"1"}}});
    let opened = send(addr, "POST", &[JSON, BOTH], &init.to_string()).await;
    opened.header("mcp-session-id").expect("a session").to_owned()
}

/// A 2026-07-28 request (the tasks extension declared in its client capabilities).
pub fn task_request(id: u32, method: &str, mut params: Value) -> Value {
    params["_meta"] = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}}});
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// Sends a 2026-07-28 request (its `Mcp-Method` and `Mcp-Name` headers from it); its answer.
pub async fn modern(addr: SocketAddr, message: &Value) -> Value {
    let method = message["method"].as_str().unwrap();
    let name = message["params"]["name"].as_str().or(message["params"]["taskId"].as_str()).unwrap_or_default();
    let headers = [JSON, BOTH, ("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", method), ("Mcp-Name", name)];
    let reply = send(addr, "POST", &headers, &message.to_string()).await;
    serde_json::from_slice(&reply.body).unwrap_or_else(|_| reply.events().pop().expect("an answer"))
}
