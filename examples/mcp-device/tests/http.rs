//! `mcp-device --http`: the real binary on an ephemeral loopback port, one legacy and one
//! 2026-07-28 request, then SIGTERM ends it cleanly.

#![cfg(unix)]
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

fn post(addr: &str, headers: &[(&str, &str)], body: &str) -> (u16, String, String) {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let mut request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        request += &format!("{name}: {value}\r\n");
    }
    request += "\r\n";
    request += body;
    stream.write_all(request.as_bytes()).unwrap();
    let mut raw = String::new();
    stream.read_to_string(&mut raw).unwrap();
    let (head, body) = raw.split_once("\r\n\r\n").unwrap();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    (status, head.to_ascii_lowercase(), body.to_owned())
}

#[test]
fn serves_both_eras_over_http_and_stops_on_sigterm() {
    serve_both_eras(&[]);
}

#[test]
fn serves_both_eras_on_two_threads_and_stops_on_sigterm() {
    serve_both_eras(&["--threads", "2"]);
}

fn serve_both_eras(extra: &[&str]) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_mcp-device"))
        .args(["--http", "127.0.0.1:0"])
        .args(extra)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    stderr.read_line(&mut line).unwrap();
    let url = line.split_whitespace().find(|w| w.starts_with("http://")).expect("the URL on stderr").to_owned();
    let addr = url.trim_start_matches("http://").trim_end_matches("/mcp").to_owned();
    let mut config = String::new();
    stderr.read_line(&mut config).unwrap();
    stderr.read_line(&mut config).unwrap();
    assert!(config.contains(&format!(r#""url": "{url}""#)), "{config}");

    let modern = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"over http"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    let headers = [
        ("Accept", "application/json, text/event-stream"),
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", "echo"),
    ];
    // Eight clients at once, each on its own connection.
    std::thread::scope(|scope| {
        let posts: Vec<_> = (0..8).map(|_| scope.spawn(|| post(&addr, &headers, modern))).collect();
        for posted in posts {
            let (status, _, body) = posted.join().unwrap();
            assert_eq!(status, 200);
            let answer: Value = serde_json::from_str(&body).unwrap();
            assert_eq!(answer["result"]["content"][0]["text"], "over http");
        }
    });

    let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    let (status, head, _) = post(&addr, &[("Accept", "application/json")], init);
    assert_eq!(status, 200);
    assert!(head.contains("mcp-session-id: "), "{head}");

    // SIGTERM: a graceful stop, exit status 0.
    let killed = Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    assert!(killed.success());
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            assert!(status.success(), "{status}");
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(20), "still running after SIGTERM");
        std::thread::sleep(Duration::from_millis(20));
    }
}
