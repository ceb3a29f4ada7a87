//! `floor-http`: the least a Streamable HTTP server can do per message, as a lower bound for
//! `mcp-bench-http`, as `floor` is for `mcp-bench`.
//!
//! It accepts connections on `--listen ADDR` and, on each kept-alive connection, reads a request
//! head (only `Content-Length` is looked at), reads the body, parses it with serde_json into a
//! borrowed struct (the `id` and the `message` argument kept, the rest checked and skipped) and
//! writes one JSON answer with that id in one write: an `initialize` result for `initialize`, a
//! text content holding the message for anything else, `202 Accepted` for a notification. No
//! header is checked, no session is minted, nothing is validated beyond JSON: the harness serves
//! it statelessly in both eras, as it does rmcp tuned.
//!
//! ```text
//! floor-http --listen 127.0.0.1:PORT [--threads N] [--hyper]
//! ```
//! One `current_thread` tokio runtime (as `mcp-device --http`), or tokio's multi-threaded runtime
//! with N workers. `--hyper` serves the same answers through hyper's HTTP/1.1 server (its default
//! configuration, one `service_fn`, the body collected whole) instead of the loop here: the floor of
//! a server built on hyper, as `mcp-device --http` is.

use std::io;

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::value::RawValue;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use mcp_sansio_bench::measure::{push_decimal, read_room};

#[derive(Deserialize)]
struct Request<'a> {
    #[serde(borrow)]
    id: Option<&'a RawValue>,
    #[serde(borrow)]
    method: &'a str,
    #[serde(borrow)]
    params: Option<Params<'a>>,
}

#[derive(Deserialize)]
struct Params<'a> {
    #[serde(borrow)]
    arguments: Option<Arguments<'a>>,
    #[allow(dead_code)] // parsed and checked, then dropped
    #[serde(rename = "_meta")]
    meta: Option<IgnoredAny>,
}

#[derive(Deserialize)]
struct Arguments<'a> {
    #[serde(borrow)]
    message: Option<&'a RawValue>,
}

const INITIALIZE: &[u8] =
    br#"{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"floor-http","version":"0"}}"#;

/// Writes the JSON body answering the request `body` to `json` (cleared first); its status.
fn answer(body: &[u8], json: &mut Vec<u8>) -> u16 {
    json.clear();
    match serde_json::from_slice::<Request<'_>>(body) {
        Err(_) => {
            json.extend_from_slice(br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}"#);
            400
        }
        Ok(Request { id: None, .. }) => 202,
        Ok(Request { id: Some(id), method, params }) => {
            json.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
            json.extend_from_slice(id.get().as_bytes());
            json.extend_from_slice(br#","result":"#);
            if method == "initialize" {
                json.extend_from_slice(INITIALIZE);
            } else {
                let message = params.and_then(|p| p.arguments).and_then(|a| a.message);
                json.extend_from_slice(br#"{"content":[{"type":"text","text":"#);
                json.extend_from_slice(message.map_or("\"\"", |m| m.get()).as_bytes());
                json.extend_from_slice(b"}]}");
            }
            json.push(b'}');
            200
        }
    }
}

/// Appends the HTTP answer to the request `body` to `out`; `json` is scratch space for its body.
fn write_answer(body: &[u8], json: &mut Vec<u8>, out: &mut Vec<u8>) {
    out.extend_from_slice(match answer(body, json) {
        200 => b"HTTP/1.1 200 OK",
        202 => b"HTTP/1.1 202 Accepted",
        _ => b"HTTP/1.1 400 Bad Request",
    });
    out.extend_from_slice(b"\r\ncontent-type: application/json\r\ncontent-length: ");
    push_decimal(out, json.len() as u64);
    out.extend_from_slice(b"\r\n\r\n");
    out.extend_from_slice(json);
}

/// The `Content-Length` of a request head (0 if there is none).
fn content_length(head: &[u8]) -> Option<usize> {
    for line in head.split(|&b| b == b'\n') {
        let Some(colon) = memchr::memchr(b':', line) else { continue };
        if line[..colon].eq_ignore_ascii_case(b"content-length") {
            return std::str::from_utf8(line[colon + 1..].trim_ascii()).ok()?.parse().ok();
        }
    }
    Some(0)
}

async fn serve(mut stream: TcpStream) -> io::Result<()> {
    stream.set_nodelay(true)?;
    let mut buf = vec![0u8; 64 * 1024];
    let (mut start, mut end) = (0, 0);
    let (mut json, mut out) = (Vec::with_capacity(1024), Vec::with_capacity(4096));
    loop {
        // Every request whole in the buffer is answered; the answers of one read go out in one write.
        loop {
            let unread = &buf[start..end];
            let Some(head_len) = memchr::memmem::find(unread, b"\r\n\r\n") else { break };
            let Some(length) = content_length(&unread[..head_len]) else {
                return Err(io::Error::new(io::ErrorKind::InvalidData, "bad content-length"));
            };
            let whole = head_len + 4 + length;
            if unread.len() < whole {
                break;
            }
            write_answer(&unread[head_len + 4..whole], &mut json, &mut out);
            start += whole;
        }
        if !out.is_empty() {
            stream.write_all(&out).await?;
            out.clear();
        }
        let n = stream.read(read_room(&mut buf, &mut start, &mut end)).await?;
        if n == 0 {
            return Ok(());
        }
        end += n;
    }
}

/// The same answers through hyper.
async fn serve_hyper(stream: TcpStream) -> io::Result<()> {
    use http_body_util::{BodyExt, Full};
    use hyper::body::{Bytes, Incoming};

    stream.set_nodelay(true)?;
    let service = hyper::service::service_fn(|request: hyper::Request<Incoming>| async move {
        let body = request.into_body().collect().await?.to_bytes();
        let mut json = Vec::with_capacity(256);
        let status = answer(&body, &mut json);
        let mut response = hyper::Response::new(Full::new(Bytes::from(json)));
        *response.status_mut() = hyper::StatusCode::from_u16(status).unwrap_or(hyper::StatusCode::OK);
        response.headers_mut().insert("content-type", hyper::header::HeaderValue::from_static("application/json"));
        Ok::<_, hyper::Error>(response)
    });
    hyper::server::conn::http1::Builder::new()
        .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
        .await
        .map_err(io::Error::other)
}

async fn accept(listener: TcpListener, hyper: bool) -> io::Result<()> {
    loop {
        let (stream, _) = listener.accept().await?;
        tokio::spawn(async move {
            let _ = if hyper { serve_hyper(stream).await } else { serve(stream).await };
        });
    }
}

fn main() -> io::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let value = |flag: &str| args.iter().position(|a| a == flag).and_then(|i| args.get(i + 1)).cloned();
    let listen = value("--listen").unwrap_or_else(|| "127.0.0.1:0".into());
    let threads: usize = value("--threads").map_or(0, |v| v.parse().expect("--threads takes a number"));
    let hyper = args.iter().any(|a| a == "--hyper");
    let runtime = if threads == 0 {
        tokio::runtime::Builder::new_current_thread().enable_io().build()?
    } else {
        tokio::runtime::Builder::new_multi_thread().worker_threads(threads).enable_io().build()?
    };
    runtime.block_on(async {
        let listener = TcpListener::bind(&listen).await?;
        eprintln!("floor-http: listening on {}", listener.local_addr()?);
        accept(listener, hyper).await
    })
}
