//! Input from the client in a legacy session over HTTP: the engine sends `elicitation/create` on
//! the tool call's own POST SSE stream, the client answers with a POST of its own (202), and the
//! tool's answer then ends the first stream. Without an input buffer the call gets `-32603`.

use std::net::SocketAddr;
use std::time::Duration;

use mcp_sansio::server::{Config, Handler, InputRequest, Tool, ToolCall, ToolReply};
use mcp_sansio_http::{HttpConfig, McpHttp, serve};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

static TOOLS: [Tool<'static>; 1] = [Tool::new("greet", "Asks the user's name, then greets", r#"{"type":"object"}"#)];

const NAME_FORM: &str = r#"{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}"#;

struct Greeter;

impl Handler for Greeter {
    const TOOLS: &'static [Tool<'static>] = &TOOLS;
    fn call_tool(&mut self, call: ToolCall<'_>, reply: ToolReply<'_>) {
        match call.context.input("name").and_then(|a| a.get("content")).and_then(|c| c.get("name")) {
            Some(name) => match name.as_str() {
                Some(name) => reply.text_fmt(format_args!("Hello, {name}!")).finish(),
                None => reply.finish_error_text("the name is not a string"),
            },
            None => {
                let ask = InputRequest::ElicitForm { message: "What is your name?", requested_schema: NAME_FORM };
                reply.input_required().request("name", ask).finish()
            }
        }
    }
}

async fn start(input_bytes: usize) -> (SocketAddr, tokio::sync::oneshot::Sender<()>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let mut config = HttpConfig::new(Config::new("legacy-input", "1.0.0"), addr);
    config.session_input_bytes = input_bytes;
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(serve(listener, McpHttp::new(Greeter, config), async move {
        let _ = stopped.await;
    }));
    (addr, stop)
}

/// Writes one POST on a new connection and returns the connection.
async fn post(addr: SocketAddr, session: Option<&str>, body: &str) -> TcpStream {
    post_accepting(addr, session, "application/json, text/event-stream", body).await
}

async fn post_accepting(addr: SocketAddr, session: Option<&str>, accept: &str, body: &str) -> TcpStream {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let mut request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\n\
         Accept: {accept}\r\nMCP-Protocol-Version: 2025-11-25\r\nContent-Length: {}\r\n",
        body.len()
    );
    if let Some(session) = session {
        request += &format!("Mcp-Session-Id: {session}\r\n");
    }
    request += "\r\n";
    request += body;
    stream.write_all(request.as_bytes()).await.unwrap();
    stream
}

/// Reads until `events` SSE messages have arrived (for 0: until the response ends); returns the
/// status, the head, and the messages.
async fn read(stream: &mut TcpStream, events: usize) -> (u16, String, Vec<Value>) {
    read_more(stream, &mut Vec::new(), events).await
}

/// [`read`], continuing after what `raw` already holds of the response.
async fn read_more(stream: &mut TcpStream, raw: &mut Vec<u8>, events: usize) -> (u16, String, Vec<Value>) {
    loop {
        if let Some(split) = raw.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&raw[..split]).into_owned();
            let body = String::from_utf8_lossy(&raw[split + 4..]).into_owned();
            let messages: Vec<Value> = body
                .lines()
                .filter_map(|l| l.strip_prefix("data: "))
                .filter(|d| d.starts_with('{'))
                .map(|d| serde_json::from_str(d).unwrap())
                .collect();
            if events > 0 && messages.len() >= events {
                let status = head.split(' ').nth(1).unwrap().parse().unwrap();
                return (status, head, messages);
            }
        }
        let mut buf = [0u8; 4096];
        let n = tokio::time::timeout(Duration::from_secs(5), stream.read(&mut buf))
            .await
            .unwrap_or_else(|_| panic!("nothing in time: {:?}", String::from_utf8_lossy(raw)))
            .unwrap();
        if n == 0 {
            assert_eq!(events, 0, "the stream ended early: {:?}", String::from_utf8_lossy(raw));
            let split = raw.windows(4).position(|w| w == b"\r\n\r\n").expect("a response head");
            let head = String::from_utf8_lossy(&raw[..split]).into_owned();
            let status = head.split(' ').nth(1).unwrap().parse().unwrap();
            return (status, head, Vec::new());
        }
        raw.extend_from_slice(&buf[..n]);
    }
}

/// Opens a session whose client declares form elicitation; returns its id.
async fn open_session(addr: SocketAddr) -> String {
    let init = json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25",
        "capabilities":{"elicitation":{"form":{}}},"clientInfo":{"name":"t","version":"1"}}});
    let mut stream = post(addr, None, &init.to_string()).await;
    let (status, head, messages) = read(&mut stream, 1).await;
    assert_eq!(status, 200);
    assert_eq!(messages[0]["result"]["protocolVersion"], "2025-11-25");
    let session = head
        .lines()
        .find_map(|l| l.split_once(':').filter(|(n, _)| n.eq_ignore_ascii_case("mcp-session-id")))
        .map(|(_, v)| v.trim().to_owned())
        .expect("a session id");
    let initialized = json!({"jsonrpc":"2.0","method":"notifications/initialized"}).to_string();
    let (status, _, _) = read(&mut post(addr, Some(&session), &initialized).await, 0).await;
    assert_eq!(status, 202);
    session
}

fn call(id: u32) -> String {
    json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{"name":"greet","arguments":{}}}).to_string()
}

#[tokio::test]
async fn a_legacy_elicitation_goes_on_the_calls_stream_and_its_answer_resumes_the_tool() {
    let (addr, _stop) = start(32 * 1024).await;
    let session = open_session(addr).await;
    let mut call_stream = post(addr, Some(&session), &call(7)).await;
    let mut raw = Vec::new();
    let (status, _, messages) = read_more(&mut call_stream, &mut raw, 1).await;
    assert_eq!(status, 200);
    let ask = &messages[0];
    assert_eq!(ask["method"], "elicitation/create", "{ask}");
    assert_eq!(ask["params"]["message"], "What is your name?");
    assert_eq!(ask["params"]["requestedSchema"]["required"][0], "name");
    let answer = json!({"jsonrpc":"2.0","id":ask["id"],"result":{"action":"accept","content":{"name":"Ada"}}});
    let (status, _, _) = read(&mut post(addr, Some(&session), &answer.to_string()).await, 0).await;
    assert_eq!(status, 202);
    // The tool, served again with the answer, ends the call's stream with its result.
    let (_, _, messages) = read_more(&mut call_stream, &mut raw, 2).await;
    assert_eq!(messages[1]["id"], 7, "{messages:?}");
    assert_eq!(messages[1]["result"]["content"][0]["text"], "Hello, Ada!");
}

#[tokio::test]
async fn a_call_answered_as_json_gets_its_elicitation_on_the_standalone_stream() {
    let (addr, _stop) = start(32 * 1024).await;
    let session = open_session(addr).await;
    let mut get = TcpStream::connect(addr).await.unwrap();
    let open = format!(
        "GET /mcp HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream\r\nMcp-Session-Id: {session}\r\n\
         MCP-Protocol-Version: 2025-11-25\r\n\r\n"
    );
    get.write_all(open.as_bytes()).await.unwrap();
    tokio::time::sleep(Duration::from_millis(50)).await;
    // The client takes only JSON: its body is the answer, and nothing else.
    let mut call_stream = post_accepting(addr, Some(&session), "application/json", &call(9)).await;
    let (status, _, messages) = read(&mut get, 1).await;
    assert_eq!(status, 200);
    let ask = &messages[0];
    assert_eq!(ask["method"], "elicitation/create", "{ask}");
    let answer = json!({"jsonrpc":"2.0","id":ask["id"],"result":{"action":"accept","content":{"name":"Bob"}}});
    let (status, _, _) = read(&mut post(addr, Some(&session), &answer.to_string()).await, 0).await;
    assert_eq!(status, 202);
    let mut raw = Vec::new();
    tokio::time::timeout(Duration::from_secs(5), call_stream.read_to_end(&mut raw)).await.unwrap().unwrap();
    let raw = String::from_utf8_lossy(&raw);
    let (head, body) = raw.split_once("\r\n\r\n").unwrap();
    assert!(head.to_ascii_lowercase().contains("content-type: application/json"), "{head}");
    let result: Value = serde_json::from_str(body).unwrap();
    assert_eq!(result["id"], 9, "{result}");
    assert_eq!(result["result"]["content"][0]["text"], "Hello, Bob!");
}

#[tokio::test]
async fn without_an_input_buffer_a_legacy_call_needing_input_gets_an_internal_error() {
    let (addr, _stop) = start(0).await;
    let session = open_session(addr).await;
    let (_, _, messages) = read(&mut post(addr, Some(&session), &call(8)).await, 1).await;
    assert_eq!(messages[0]["id"], 8);
    assert_eq!(messages[0]["error"]["code"], -32603, "{messages:?}");
}
