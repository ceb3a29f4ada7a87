//! The `mcp` binary against a real server process: the example device on stdio, which this test
//! binary becomes when `SERVE_ENV` is set (the `mcp` process passes its environment on to the
//! server it spawns). Without the test harness, which would write to the server's stdout.

use std::process::{Command, Output};

use mcp_example_device::{Device, FixedBoard};
use mcp_sansio::mcp::TaskSupport;
use mcp_sansio::server::{Buffers, Config, Handler, InputRequest, Server, Tool, ToolCall, ToolReply};
use serde_json::Value as Json;

const SERVE_ENV: &str = "MCP_CLI_TEST_SERVE";
/// When set, the server exits at once (status 3) unless its arguments, joined with `|`, are this.
const WANT_ARGS_ENV: &str = "MCP_CLI_TEST_WANT_ARGS";

fn main() {
    if std::env::var_os(SERVE_ENV).is_some() {
        if let Some(want) = std::env::var_os(WANT_ARGS_ENV) {
            let got = std::env::args().skip(1).collect::<Vec<_>>().join("|");
            if want.to_str() != Some(got.as_str()) {
                eprintln!("server: got the arguments `{got}`");
                std::process::exit(3);
            }
        }
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let (mut rx, mut tx, mut input) = ([0u8; 8192], [0u8; 8192], [0u8; 8192]);
        let mut server: Server<'_, _> = Server::new(
            Device::new(FixedBoard),
            Config::new("mcp-device", "0.1.0"),
            Buffers { rx: &mut rx, tx: &mut tx },
        );
        // Room for a legacy request to wait for the client's input (sampling, elicitation).
        server.parts_mut().0.set_input_buffer(&mut input);
        let served = runtime.block_on(mcp_sansio_tokio::serve_stdio(&mut server));
        std::process::exit(i32::from(served.is_err()));
    }
    let cases: [(&str, fn()); 9] = [
        ("a server over Streamable HTTP, both eras", over_http),
        ("tools, in both eras, as JSON and as text", tools),
        ("resources (with templates) and prompts, in both eras, as JSON and as text", resources_and_prompts),
        ("call with values typed from the schema; a tool error exits 2", call),
        ("read, ping and the server command after --", read_and_ping),
        ("the server's own arguments after --, right after the subcommand too", server_arguments),
        ("clear errors: unknown tool, missing server, usage", errors),
        ("complete, --log-level, --sampling-reply and --elicit, in both eras", asked_by_the_server),
        ("a call the server runs as a task: followed, its statuses on stderr, --task, Ctrl-C cancels it", task),
    ];
    let mut failed = 0;
    for (name, case) in cases {
        match std::panic::catch_unwind(case) {
            Ok(()) => println!("test mcp cli: {name} ... ok"),
            Err(_) => {
                println!("test mcp cli: {name} ... FAILED");
                failed += 1;
            }
        }
    }
    println!("{} passed, {failed} failed", cases.len() - failed);
    if failed > 0 {
        std::process::exit(1);
    }
}

/// Runs `mcp ARGS... -- <this binary as the server>`.
fn mcp(args: &[&str]) -> Output {
    let server = std::env::current_exe().unwrap();
    Command::new(env!("CARGO_BIN_EXE_mcp")).args(args).arg("--").arg(server).env(SERVE_ENV, "1").output().unwrap()
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn tools() {
    for era in ["auto", "legacy", "modern"] {
        let output = mcp(&["--json", "--era", era, "tools"]);
        assert!(output.status.success(), "{era}: {}", stderr(&output));
        let tools: Json = serde_json::from_str(stdout(&output).trim()).unwrap();
        let names: Vec<&str> = tools.as_array().unwrap().iter().filter_map(|t| t["name"].as_str()).collect();
        assert!(names.contains(&"echo") && names.contains(&"set_led"), "{era}: {names:?}");
    }
    let text = stdout(&mcp(&["tools"]));
    assert!(text.lines().any(|l| l == "echo message:string"), "{text}");
}

fn resources_and_prompts() {
    for era in ["legacy", "modern"] {
        let output = mcp(&["--json", "--era", era, "resources"]);
        assert!(output.status.success(), "{era}: {}", stderr(&output));
        let listed: Json = serde_json::from_str(stdout(&output).trim()).unwrap();
        let uris: Vec<&str> =
            listed["resources"].as_array().unwrap().iter().filter_map(|r| r["uri"].as_str()).collect();
        assert_eq!(uris, ["device://status", "device://calibration"], "{era}: {listed}");
        assert_eq!(listed["resourceTemplates"][0]["uriTemplate"], "device://sensor/{name}", "{era}: {listed}");
        let output = mcp(&["--json", "--era", era, "prompts"]);
        assert!(output.status.success(), "{era}: {}", stderr(&output));
        let prompts: Json = serde_json::from_str(stdout(&output).trim()).unwrap();
        assert_eq!(prompts[0]["name"], "diagnose", "{era}: {prompts}");
    }
    let text = stdout(&mcp(&["resources"]));
    let lines: Vec<&str> = text.lines().filter(|l| !l.starts_with("    ")).collect();
    assert_eq!(
        lines,
        [
            "device://status Board status (application/json)",
            "device://calibration Calibration data (application/octet-stream)",
            "device://sensor/{name} Sensor reading (application/json)"
        ],
        "{text}"
    );
    let text = stdout(&mcp(&["prompts"]));
    assert_eq!(text.lines().next(), Some("diagnose symptom"), "{text}");
}

fn call() {
    let output = mcp(&["call", "echo", "message=42"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(stdout(&output), "42\n", "a string property keeps `42` a string");
    let output = mcp(&["--json", "--era", "legacy", "call", "set_led", "on=true"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let result: Json = serde_json::from_str(stdout(&output).trim()).unwrap();
    assert_ne!(result["isError"], true, "{result}");
    let output = mcp(&["call", "set_led", "on=maybe"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("`on` must be a boolean"), "{}", stderr(&output));
    let output = mcp(&["call", "read_temperature", "sensor=moon"]);
    assert_eq!(output.status.code(), Some(2), "an isError result: {}", stdout(&output));
}

fn read_and_ping() {
    let output = mcp(&["--json", "read", "device://status"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let result: Json = serde_json::from_str(stdout(&output).trim()).unwrap();
    assert_eq!(result["contents"][0]["uri"], "device://status");
    let output = mcp(&["--era", "modern", "ping"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(stdout(&output).starts_with("the server answers"));
}

fn asked_by_the_server() {
    for era in ["legacy", "modern"] {
        let output = mcp(&["--era", era, "complete", "prompt:diagnose", "symptom", "o"]);
        assert_eq!(stdout(&output), "overheating\n", "{era}: {}", stderr(&output));
        let output = mcp(&["--era", era, "--json", "complete", "resource:device://sensor/{name}", "name"]);
        let result: Json = serde_json::from_str(stdout(&output).trim()).unwrap();
        assert_eq!(result["completion"]["values"], serde_json::json!(["board", "cpu"]), "{era}");
        let output = mcp(&["--era", era, "--sampling-reply", "fine", "call", "explain_status"]);
        assert_eq!(stdout(&output), "the model says: fine\n", "{era}: {}", stderr(&output));
        assert!(stderr(&output).starts_with("[sampling] user: In one sentence"), "{era}: {}", stderr(&output));
        let output = mcp(&["--era", era, "--elicit", r#"accept:{"confirm":true}"#, "call", "factory_reset"]);
        assert_eq!(stdout(&output), "factory settings restored\n", "{era}: {}", stderr(&output));
        let output = mcp(&["--era", era, "--elicit", "decline", "call", "factory_reset"]);
        assert_eq!(stdout(&output), "factory reset cancelled; nothing changed\n", "{era}: {}", stderr(&output));
    }
    let output = mcp(&["--era", "legacy", "--log-level", "info", "call", "read_temperature", "sensor=cpu"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let log = stderr(&output);
    assert!(
        log.starts_with("[info] sensors: cpu sensor read: ") && log.ends_with(" °C\n") && log.lines().count() == 1,
        "{log}"
    );
    let output = mcp(&["--era", "legacy", "--log-level", "error", "call", "read_temperature", "sensor=cpu"]);
    assert_eq!(stderr(&output), "", "below the level asked for");
    let output = mcp(&["--log-level", "loud", "ping"]);
    assert_eq!(output.status.code(), Some(2), "a usage error (clap)");
    assert!(stderr(&output).contains("`loud` is not a log level"), "{}", stderr(&output));
    let output = mcp(&["--elicit", "yes", "ping"]);
    assert!(stderr(&output).contains("expected accept:<JSON object>, decline or cancel"), "{}", stderr(&output));
    let output = mcp(&["complete", "tool:echo", "message"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("expected prompt:<NAME> or resource:<URI-TEMPLATE>"), "{}", stderr(&output));
}

/// Serves the device over Streamable HTTP on a free loopback port, on a thread of its own.
fn http_server() -> String {
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            let config = mcp_sansio_http::HttpConfig::new(Config::new("mcp-device", "0.1.0"), addr);
            let endpoint = mcp_sansio_http::McpHttp::new(Device::new(FixedBoard), config);
            sender.send(format!("http://{addr}/mcp")).unwrap();
            let _ = mcp_sansio_http::serve(listener, endpoint, std::future::pending()).await;
        });
    });
    receiver.recv().unwrap()
}

fn over_http() {
    let url = http_server();
    for era in ["auto", "legacy", "modern"] {
        let output = Command::new(env!("CARGO_BIN_EXE_mcp"))
            .args(["--era", era, "call", &url, "echo", "message=web"])
            .output()
            .unwrap();
        assert!(output.status.success(), "{era}: {}", stderr(&output));
        assert_eq!(stdout(&output), "web\n", "{era}");
    }
    let output = Command::new(env!("CARGO_BIN_EXE_mcp")).args(["tools", "http://127.0.0.1:1/mcp"]).output().unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("cannot reach the server over HTTP"), "{}", stderr(&output));
}

fn errors() {
    let output = mcp(&["call", "nosuch"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("unknown tool `nosuch`; the server has: echo,"), "{}", stderr(&output));
    let output = Command::new(env!("CARGO_BIN_EXE_mcp")).args(["tools", "no-such-server-binary"]).output().unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("cannot start `no-such-server-binary`: not found"), "{}", stderr(&output));
    let output = mcp(&["read"]);
    assert!(stderr(&output).contains("which URI?"), "{}", stderr(&output));
}

/// Regression: clap took a `--` right after the subcommand (`mcp tools -- ./server --flag`) as its
/// own and dropped it, so `./server` was started without its arguments (`python server.py` became
/// a bare `python` reading its script from the pipe, and the handshake timed out).
fn server_arguments() {
    let server = std::env::current_exe().unwrap();
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_mcp"))
            .args(args)
            .arg("--")
            .arg(&server)
            .args(["--flag", "two words", "--"])
            .env(SERVE_ENV, "1")
            .env(WANT_ARGS_ENV, "--flag|two words|--")
            .output()
            .unwrap()
    };
    for args in [&["--json", "tools"][..], &["ping"], &["--era", "legacy", "call", "echo", "message=hi"]] {
        let output = run(args);
        assert!(output.status.success(), "{args:?}: {}", stderr(&output));
    }
    assert_eq!(stdout(&run(&["call", "echo", "message=hi"])), "hi\n");
}

static TASK_TOOLS: [Tool<'static>; 3] = [
    Tool::new("confirm", "Asks, then answers, as a task", r#"{"type":"object"}"#)
        .with_task_support(TaskSupport::Required),
    Tool::new("hang", "A task that never ends", r#"{"type":"object"}"#).with_task_support(TaskSupport::Required),
    Tool::new("quick", "Answers at once, as a task when asked", r#"{"type":"object"}"#)
        .with_task_support(TaskSupport::Optional),
];

/// Runs calls as tasks: `confirm` asks for a confirmation first; `hang` never answers; `quick`
/// answers at once, plainly unless asked for a task.
struct Tasks;

impl Handler for Tasks {
    const TOOLS: &'static [Tool<'static>] = &TASK_TOOLS;

    fn call_tool(&mut self, call: ToolCall<'_>, mut reply: ToolReply<'_>) {
        let as_task = reply.run_as_task().is_ok();
        if call.name == "quick" {
            return reply.text(if as_task { "quick, as a task" } else { "quick" }).finish();
        }
        if !as_task {
            return reply.missing_tasks();
        }
        if call.name == "hang" {
            // Answered never: the task stays working until it is cancelled.
            let _ = reply.defer();
            return;
        }
        match call.context.input("ok") {
            Some(_) => reply.text("confirmed").finish(),
            None => {
                let form = r#"{"type":"object","properties":{"ok":{"type":"boolean"}}}"#;
                let ask = InputRequest::ElicitForm { message: "Sure?", requested_schema: form };
                reply.input_required().request("ok", ask).finish()
            }
        }
    }
}

/// Serves [`Tasks`] over Streamable HTTP, with a task table, on a free loopback port.
fn task_server() -> String {
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            let mut config = mcp_sansio_http::HttpConfig::new(Config::new("tasks", "0.1.0"), addr);
            let mut limits = mcp_sansio_http::TaskLimits::default();
            limits.poll_interval = std::time::Duration::from_millis(100);
            config.tasks = Some(limits);
            let endpoint = mcp_sansio_http::McpHttp::new(Tasks, config);
            sender.send(format!("http://{addr}/mcp")).unwrap();
            let _ = mcp_sansio_http::serve(listener, endpoint, std::future::pending()).await;
        });
    });
    receiver.recv().unwrap()
}

fn task() {
    let url = task_server();
    let mcp = |args: &[&str]| Command::new(env!("CARGO_BIN_EXE_mcp")).args(args).output().unwrap();
    // A server without resources says so (-32601), and `mcp` exits 1 with its answer.
    let output = mcp(&["resources", &url]);
    assert_eq!(output.status.code(), Some(1), "{}", stdout(&output));
    assert!(stderr(&output).contains("-32601"), "{}", stderr(&output));
    let output = mcp(&["--era", "modern", "--elicit", r#"accept:{"ok":true}"#, "call", &url, "confirm"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(stdout(&output), "confirmed\n");
    let log = stderr(&output);
    let lines: Vec<&str> = log.lines().collect();
    assert!(lines.first().is_some_and(|l| l.starts_with("[task] ") && l.ends_with(": input_required")), "{log}");
    assert!(lines.contains(&"[elicitation] Sure? -> accept"), "{log}");
    assert!(lines.last().is_some_and(|l| l.starts_with("[task] ") && l.ends_with(": completed")), "{log}");
    let output = mcp(&["--json", "--era", "modern", "--elicit", "accept", "call", &url, "confirm"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let last: Json = serde_json::from_str(stderr(&output).lines().last().unwrap()).unwrap();
    assert_eq!(last["task"]["status"], "completed", "{}", stderr(&output));
    // Without elicitation declared, the server fails the task: its error is the call's.
    let output = mcp(&["--era", "modern", "call", &url, "confirm"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains(": failed") && stderr(&output).contains("-32021"), "{}", stderr(&output));
    // --task asks for a task for a tool that may run as one (2025-11-25); without it, a plain call.
    let output = mcp(&["--era", "legacy", "call", &url, "quick"]);
    assert_eq!((stdout(&output).as_str(), stderr(&output).as_str()), ("quick\n", ""));
    let output = mcp(&["--era", "legacy", "call", "--task", &url, "quick"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(stdout(&output), "quick, as a task\n");
    let log = stderr(&output);
    assert!(log.lines().last().is_some_and(|l| l.starts_with("[task] ") && l.ends_with(": completed")), "{log}");
    // Ctrl-C while a task runs, over Streamable HTTP in both eras: `tasks/cancel`, and the status
    // the server then gives the task (in the answer; 2026-07-28 with one more tasks/get) on stderr.
    for era in ["legacy", "modern"] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_mcp"))
            .args(["--json", "--era", era, "call", &url, "hang"])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut lines = std::io::BufRead::lines(std::io::BufReader::new(child.stderr.take().unwrap()));
        let first = lines.next().unwrap().unwrap();
        assert!(first.contains(r#""status":"working""#), "{era}: {first}");
        let interrupted = Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
        assert!(interrupted.success());
        let rest: Vec<String> = lines.map(Result::unwrap).collect();
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(130), "{era}: {rest:?}");
        let last: Json = serde_json::from_str(rest.last().unwrap()).unwrap();
        assert_eq!(last["task"]["status"], "cancelled", "{era}: {rest:?}");
        let first: Json = serde_json::from_str(&first).unwrap();
        assert_eq!(last["task"]["id"], first["task"]["id"], "{era}: {rest:?}");
    }
}
