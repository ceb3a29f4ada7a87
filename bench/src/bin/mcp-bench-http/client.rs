//! A small HTTP/1.1 client for MCP POSTs on one kept-alive connection: the request is written in one
//! `write`, the answer's head parsed, its body read by `Content-Length` or de-chunked, and the
//! JSON-RPC message taken from a JSON body or from the SSE events of a `text/event-stream` body.

use std::net::SocketAddr;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use mcp_sansio_bench::measure::{push_decimal, read_room};

/// What an answer was, as far as the harness needs it.
pub struct Answer {
    pub status: u16,
    /// `Content-Type: text/event-stream`.
    pub sse: bool,
    /// The `Mcp-Session-Id` header, when asked for (`want_session`).
    pub session: Option<String>,
}

pub struct Connection {
    stream: TcpStream,
    /// `Host: …\r\n` and the headers every request carries.
    common: Vec<u8>,
    request: Vec<u8>,
    /// Bytes read and not yet consumed: `buf[start..end]`.
    buf: Vec<u8>,
    start: usize,
    end: usize,
    /// The last answer's body (de-chunked).
    pub body: Vec<u8>,
}

fn error(what: impl Into<String>) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, what.into())
}

impl Connection {
    pub async fn open(addr: SocketAddr) -> std::io::Result<Self> {
        let stream = TcpStream::connect(addr).await?;
        stream.set_nodelay(true)?;
        let common = format!(
            "Host: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
        )
        .into_bytes();
        Ok(Connection {
            stream,
            common,
            request: Vec::with_capacity(1024),
            buf: vec![0; 64 * 1024],
            start: 0,
            end: 0,
            body: Vec::with_capacity(4096),
        })
    }

    /// POSTs `body` to `/mcp` with the extra `headers` (each `Name: value\r\n`) and reads the
    /// answer; its body is left in `self.body`.
    pub async fn post(&mut self, headers: &[u8], body: &[u8], want_session: bool) -> std::io::Result<Answer> {
        self.request.clear();
        self.request.extend_from_slice(b"POST /mcp HTTP/1.1\r\n");
        self.request.extend_from_slice(&self.common);
        self.request.extend_from_slice(headers);
        self.request.extend_from_slice(b"Content-Length: ");
        push_decimal(&mut self.request, body.len() as u64);
        self.request.extend_from_slice(b"\r\n\r\n");
        self.request.extend_from_slice(body);
        self.stream.write_all(&self.request).await?;
        self.read_answer(want_session).await
    }

    async fn fill(&mut self) -> std::io::Result<()> {
        let n = self.stream.read(read_room(&mut self.buf, &mut self.start, &mut self.end)).await?;
        if n == 0 {
            return Err(std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "the server closed the connection"));
        }
        self.end += n;
        Ok(())
    }

    /// The position (relative to `start`) of `needle` in the unread bytes, reading until it comes.
    async fn find(&mut self, needle: &[u8]) -> std::io::Result<usize> {
        loop {
            if let Some(at) = memchr::memmem::find(&self.buf[self.start..self.end], needle) {
                return Ok(at);
            }
            self.fill().await?;
        }
    }

    async fn read_answer(&mut self, want_session: bool) -> std::io::Result<Answer> {
        let head_len = self.find(b"\r\n\r\n").await?;
        let head = &self.buf[self.start..self.start + head_len];
        let mut lines = head.split(|&b| b == b'\n').map(|l| l.strip_suffix(b"\r").unwrap_or(l));
        let status_line = lines.next().unwrap_or_default();
        let status = status_line
            .split(|&b| b == b' ')
            .nth(1)
            .and_then(|s| std::str::from_utf8(s).ok())
            .and_then(|s| s.parse::<u16>().ok())
            .ok_or_else(|| error(format!("bad status line {:?}", String::from_utf8_lossy(status_line))))?;
        let (mut length, mut chunked, mut sse, mut session, mut close) = (None, false, false, None, false);
        for line in lines {
            let Some(colon) = memchr::memchr(b':', line) else { continue };
            let (name, value) = (&line[..colon], line[colon + 1..].trim_ascii());
            if name.eq_ignore_ascii_case(b"content-length") {
                length = std::str::from_utf8(value).ok().and_then(|v| v.parse::<usize>().ok());
            } else if name.eq_ignore_ascii_case(b"transfer-encoding") {
                chunked = value.eq_ignore_ascii_case(b"chunked");
            } else if name.eq_ignore_ascii_case(b"content-type") {
                sse = value.starts_with(b"text/event-stream");
            } else if name.eq_ignore_ascii_case(b"connection") {
                close = value.eq_ignore_ascii_case(b"close");
            } else if want_session && name.eq_ignore_ascii_case(b"mcp-session-id") {
                session = Some(String::from_utf8_lossy(value).into_owned());
            }
        }
        self.start += head_len + 4;
        self.body.clear();
        if chunked {
            self.read_chunked().await?;
        } else if let Some(length) = length {
            while self.end - self.start < length {
                self.fill().await?;
            }
            self.body.extend_from_slice(&self.buf[self.start..self.start + length]);
            self.start += length;
        } else if close {
            return Err(error("an answer delimited by closing the connection"));
        }
        Ok(Answer { status, sse, session })
    }

    async fn read_chunked(&mut self) -> std::io::Result<()> {
        loop {
            let line_len = self.find(b"\r\n").await?;
            let line = &self.buf[self.start..self.start + line_len];
            let digits = line.split(|&b| b == b';').next().unwrap_or_default().trim_ascii();
            let size = std::str::from_utf8(digits)
                .ok()
                .and_then(|d| usize::from_str_radix(d, 16).ok())
                .ok_or_else(|| error(format!("bad chunk size {:?}", String::from_utf8_lossy(line))))?;
            self.start += line_len + 2;
            if size == 0 {
                // No trailers are expected: the blank line that ends the body.
                while self.end - self.start < 2 {
                    self.fill().await?;
                }
                self.start += 2;
                return Ok(());
            }
            while self.end - self.start < size + 2 {
                self.fill().await?;
            }
            self.body.extend_from_slice(&self.buf[self.start..self.start + size]);
            self.start += size + 2;
        }
    }
}

/// The JSON-RPC message of an answer's body: the body itself, or the `data` of the last SSE event
/// that has any (the answer ends the stream; earlier events are priming events or notifications).
pub fn message(body: &[u8], sse: bool) -> &[u8] {
    if !sse {
        return body;
    }
    let mut found: &[u8] = &[];
    for line in body.split(|&b| b == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if let Some(data) = line.strip_prefix(b"data:") {
            let data = data.strip_prefix(b" ").unwrap_or(data);
            if !data.is_empty() {
                found = data;
            }
        }
    }
    found
}
