//! `mcp-serial` between a test "host" (its stdin/stdout) and a fake device on a TCP port that the
//! test resets at will.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

const TIMEOUT: Duration = Duration::from_secs(10);

struct Host {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    stderr: Receiver<String>,
}

impl Host {
    fn start(port: u16) -> Host {
        let mut child = Command::new(env!("CARGO_BIN_EXE_mcp-serial"))
            .args([&format!("tcp:127.0.0.1:{port}"), "--retry-ms", "20", "--verbose"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn mcp-serial");
        let lines = pipe_lines(child.stdout.take().unwrap());
        let stderr = pipe_lines(child.stderr.take().unwrap());
        Host { stdin: child.stdin.take(), child, lines, stderr }
    }

    fn send(&mut self, message: &Value) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{message}").unwrap();
        stdin.flush().unwrap();
    }

    fn recv(&self) -> Value {
        let line = self.lines.recv_timeout(TIMEOUT).expect("an answer on stdout");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line:?}"))
    }

    fn nothing_more(&self) -> bool {
        self.lines.recv_timeout(Duration::from_millis(300)).is_err()
    }

    fn stderr_text(&self) -> String {
        self.stderr.try_iter().collect::<Vec<_>>().join("\n")
    }
}

impl Drop for Host {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn pipe_lines(stream: impl Read + Send + 'static) -> Receiver<String> {
    let (tx, rx) = channel();
    thread::spawn(move || {
        for line in BufReader::new(stream).lines() {
            let Ok(line) = line else { return };
            if tx.send(line).is_err() {
                return;
            }
        }
    });
    rx
}

/// One connection of the fake device.
struct Device {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
}

impl Device {
    fn accept(listener: &TcpListener) -> Device {
        listener.set_nonblocking(true).unwrap();
        let deadline = Instant::now() + TIMEOUT;
        let stream = loop {
            match listener.accept() {
                Ok((stream, _)) => break stream,
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock && Instant::now() < deadline => {
                    thread::sleep(Duration::from_millis(5))
                }
                Err(e) => panic!("no connection from mcp-serial: {e}"),
            }
        };
        stream.set_nonblocking(false).unwrap();
        stream.set_read_timeout(Some(TIMEOUT)).unwrap();
        Device { reader: BufReader::new(stream.try_clone().unwrap()), writer: stream }
    }

    fn recv_line(&mut self) -> String {
        let mut line = String::new();
        self.reader.read_line(&mut line).expect("a line from mcp-serial");
        assert!(line.ends_with('\n'), "partial line {line:?}");
        line
    }

    fn recv(&mut self) -> Value {
        let line = self.recv_line();
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line:?}"))
    }

    fn send(&mut self, message: &Value) {
        writeln!(self.writer, "{message}").unwrap();
    }

    fn answer(&mut self, request: &Value, result: Value) {
        self.send(&json!({"jsonrpc": "2.0", "id": request["id"], "result": result}));
    }
}

fn listener() -> (TcpListener, u16) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    (listener, port)
}

fn request(id: Value, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

#[test]
fn a_legacy_session_survives_a_device_reset() {
    let (listener, port) = listener();
    let mut host = Host::start(port);
    let mut device = Device::accept(&listener);

    let initialize = request(
        json!(1),
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "host", "version": "1"}}),
    );
    host.send(&initialize);
    let got = device.recv();
    assert_eq!(got, initialize);
    device.answer(&got, json!({"protocolVersion": "2025-11-25", "serverInfo": {"name": "fake", "version": "1"}}));
    assert_eq!(host.recv()["result"]["protocolVersion"], "2025-11-25");
    host.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    assert_eq!(device.recv()["method"], "notifications/initialized");

    // A request the device never finishes answering: half a line, then a reset.
    host.send(&request(json!("slow"), "tools/call", json!({"name": "slow"})));
    assert_eq!(device.recv()["id"], "slow");
    device.writer.write_all(br#"{"jsonrpc":"2.0","id":"slow","result":{"content":[{"type":"te"#).unwrap();
    device.writer.flush().unwrap();
    thread::sleep(Duration::from_millis(50));
    drop(device);
    let lost = host.recv();
    assert_eq!(lost["id"], "slow", "the lost request is answered, not the half line: {lost}");
    assert_eq!(lost["error"]["code"], -32000);

    // A request while the device is away waits for it.
    host.send(&request(json!(3), "ping", json!({})));
    let mut device = Device::accept(&listener);
    let replayed = device.recv();
    assert_eq!(replayed["method"], "initialize");
    assert_eq!(replayed["params"], initialize["params"]);
    assert!(replayed["id"].as_str().is_some_and(|id| id.starts_with("mcp-serial/replay/")), "{replayed}");
    device.answer(&replayed, json!({"protocolVersion": "2025-11-25", "serverInfo": {"name": "fake", "version": "1"}}));
    assert_eq!(device.recv()["method"], "notifications/initialized");
    let ping = device.recv();
    assert_eq!(ping["id"], 3);
    device.answer(&ping, json!({}));
    assert_eq!(host.recv(), json!({"jsonrpc": "2.0", "id": 3, "result": {}}), "the replay's answer is swallowed");

    // Long lines pass whole in both directions, whatever the chunking.
    let message = "x".repeat(200_000);
    host.send(&request(json!(4), "tools/call", json!({"name": "echo", "arguments": {"message": message}})));
    let call = device.recv();
    assert_eq!(call["params"]["arguments"]["message"].as_str().map(str::len), Some(200_000));
    let answer =
        format!("{}\n", json!({"jsonrpc": "2.0", "id": 4, "result": {"content": [{"type": "text", "text": message}]}}));
    for chunk in answer.as_bytes().chunks(7_000) {
        device.writer.write_all(chunk).unwrap();
        device.writer.flush().unwrap();
        thread::sleep(Duration::from_millis(2));
    }
    let echoed = host.recv();
    assert_eq!(echoed["result"]["content"][0]["text"].as_str().map(str::len), Some(200_000));
    assert!(host.nothing_more());

    // The host closes stdin: the bridge exits.
    drop(host.stdin.take());
    let deadline = Instant::now() + TIMEOUT;
    while host.child.try_wait().unwrap().is_none() {
        assert!(Instant::now() < deadline, "mcp-serial did not exit after stdin closed");
        thread::sleep(Duration::from_millis(10));
    }
    assert!(host.child.try_wait().unwrap().unwrap().success());
    let stderr = host.stderr_text();
    assert!(stderr.contains("replaying the host's initialize"), "{stderr}");
    assert!(stderr.contains("lost the device"), "{stderr}");
}

#[test]
fn a_modern_session_needs_no_replay_and_held_requests_go_first() {
    let (listener, port) = listener();
    let mut host = Host::start(port);
    let mut device = Device::accept(&listener);
    let meta = json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}});
    host.send(&request(json!(1), "server/discover", meta.clone()));
    let discover = device.recv();
    device.answer(&discover, json!({"supportedVersions": ["2026-07-28"]}));
    assert_eq!(host.recv()["id"], 1);

    drop(device);
    thread::sleep(Duration::from_millis(100));
    host.send(&request(json!(2), "tools/list", meta.clone()));
    host.send(&json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 99}}));
    let mut device = Device::accept(&listener);
    let first = device.recv();
    assert_eq!(first["id"], 2, "no initialize is replayed in the modern era: {first}");
    assert_eq!(device.recv()["method"], "notifications/cancelled");
    device.answer(&first, json!({"tools": []}));
    assert_eq!(host.recv(), json!({"jsonrpc": "2.0", "id": 2, "result": {"tools": []}}));
    assert!(host.nothing_more(), "no error answers when nothing was lost");
}

#[test]
fn stdout_carries_only_whole_json_rpc_lines_when_the_device_sends_garbage_and_dies() {
    let (listener, port) = listener();
    let mut host = Host::start(port);
    let mut device = Device::accept(&listener);
    host.send(&request(json!(7), "ping", json!({})));
    assert_eq!(device.recv()["id"], 7);
    // A whole (if odd) line passes through; the trailing partial one is dropped at the reset.
    device.writer.write_all(b"{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}\n{\"jsonrpc\":\"2.0\",\"id\":8,").unwrap();
    device.writer.flush().unwrap();
    assert_eq!(host.recv(), json!({"jsonrpc": "2.0", "id": 7, "result": {}}));
    drop(device);
    let _device = Device::accept(&listener);
    assert!(host.nothing_more(), "the partial line must not reach the host, and nothing was lost");
}
