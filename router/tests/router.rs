//! The router on tokio, over an in-memory pipe, called by this project's client in both eras:
//! generated schemas, typed arguments, structured output, errors, concurrency and cancellation.

use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use mcp_sansio::client::{self, EraPolicy, Notification};
use mcp_sansio::mcp::LoggingLevel;
use mcp_sansio::server::Config;
use mcp_sansio_router::{Context, NoArguments, Router, Structured};
use mcp_sansio_tokio::host::{self, CancelHandle, ClientHandle, Host, RequestError};
use serde_json::Value as Json;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Add {
    /// The first number.
    a: i64,
    b: i64,
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Sum {
    sum: i64,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Sleep {
    ms: u64,
}

/// Sets its flag when dropped: the future that holds it was dropped.
struct DropFlag(Arc<AtomicBool>);

impl Drop for DropFlag {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

fn router(dropped: Arc<AtomicBool>) -> Router {
    Router::new()
        .tool("add", "Adds two numbers", |Add { a, b }| async move { Structured(Sum { sum: a + b }) })
        .tool("sleep", "Sleeps", |Sleep { ms }| async move {
            tokio::time::sleep(Duration::from_millis(ms)).await;
            format!("slept {ms} ms")
        })
        .tool("divide", "Divides by zero", |_: NoArguments| async { Err::<&str, _>("division by zero") })
        .tool("block", "Never ends", move |_: NoArguments| {
            let flag = DropFlag(dropped.clone());
            async move {
                let _flag = flag;
                std::future::pending::<()>().await
            }
        })
}

/// A client connected to the test router's server in `era`.
async fn connect(era: EraPolicy, dropped: Arc<AtomicBool>) -> ClientHandle {
    serve(router(dropped), era).await
}

/// A client connected to `router`'s server in `era`.
async fn serve(router: Router, era: EraPolicy) -> ClientHandle {
    let config = client::Config::new("router-test-client", "1.0.0").with_era(era);
    serve_with(router, config, Host::new()).await
}

/// A client with `config` and `host` connected to `router`'s server.
async fn serve_with(router: Router, config: client::Config<'static>, host: Host) -> ClientHandle {
    let (server_io, client_io) = tokio::io::duplex(1 << 16);
    let (mut server, jobs) = router.into_server(Config::new("router-test", "1.0.0"), |future| {
        tokio::spawn(future);
    });
    let (server_in, server_out) = tokio::io::split(server_io);
    tokio::spawn(async move { mcp_sansio_tokio::run_with_jobs(&mut server, server_in, server_out, jobs).await });
    let (handle, mut conn, jobs) = host::connection(config, host, 1 << 16, 1 << 16);
    let (client_in, client_out) = tokio::io::split(client_io);
    tokio::spawn(async move { mcp_sansio_tokio::run_with_jobs(&mut conn, client_in, client_out, jobs).await });
    handle.connect().await.unwrap();
    handle
}

fn parse(bytes: &[u8]) -> Json {
    serde_json::from_slice(bytes).unwrap()
}

#[tokio::test]
async fn typed_tools_answer_in_both_eras() {
    for era in [EraPolicy::Legacy, EraPolicy::Modern] {
        let client = connect(era, Arc::default()).await;
        let tools: Vec<Json> = client.list_tools().await.unwrap().iter().map(|t| parse(t)).collect();
        let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
        assert_eq!(names, ["add", "sleep", "divide", "block"]);
        let add = &tools[0];
        assert_eq!(add["inputSchema"]["type"], "object", "{add}");
        assert_eq!(add["inputSchema"]["properties"]["a"]["type"], "integer");
        assert_eq!(add["inputSchema"]["properties"]["a"]["description"], "The first number.");
        assert_eq!(add["inputSchema"]["required"], serde_json::json!(["a", "b"]));
        assert_eq!(add["outputSchema"]["properties"]["sum"]["type"], "integer", "{add}");
        assert!(tools[1].get("outputSchema").is_none(), "text output has no schema");

        let sum = parse(&client.call_tool("add", r#"{"a":2,"b":40}"#).await.unwrap());
        assert_eq!(sum["structuredContent"]["sum"], 42, "{era:?}");
        assert_eq!(sum["content"][0]["text"], r#"{"sum":42}"#);
        let bad = parse(&client.call_tool("add", r#"{"a":2,"b":"forty"}"#).await.unwrap());
        assert_eq!(bad["isError"], true);
        assert_eq!(bad["content"][0]["text"], "Invalid arguments: b: invalid type: string \"forty\", expected i64");
        let divided = parse(&client.call_tool("divide", "{}").await.unwrap());
        assert_eq!(
            (divided["isError"].as_bool(), divided["content"][0]["text"].as_str()),
            (Some(true), Some("division by zero"))
        );
    }
}

#[tokio::test(start_paused = true)]
async fn calls_run_concurrently() {
    for era in [EraPolicy::Legacy, EraPolicy::Modern] {
        let client = connect(era, Arc::default()).await;
        let slow = client.call_tool("sleep", r#"{"ms":500}"#);
        let fast = async {
            let answer = client.call_tool("add", r#"{"a":1,"b":1}"#).await.unwrap();
            (answer, tokio::time::Instant::now())
        };
        let started = tokio::time::Instant::now();
        let (slow, (fast, fast_at)) = tokio::join!(slow, fast);
        assert_eq!(parse(&slow.unwrap())["content"][0]["text"], "slept 500 ms");
        assert_eq!(parse(&fast)["structuredContent"]["sum"], 2);
        assert!(fast_at - started < Duration::from_millis(500), "the fast call did not wait for the slow one");
        assert!(tokio::time::Instant::now() - started >= Duration::from_millis(500));
    }
}

#[tokio::test]
async fn a_cancelled_call_drops_its_future() {
    for era in [EraPolicy::Legacy, EraPolicy::Modern] {
        let dropped = Arc::new(AtomicBool::new(false));
        let client = connect(era, dropped.clone()).await;
        let cancel = CancelHandle::new();
        let cancellable = client.with_cancel(&cancel);
        let call = cancellable.call_tool("block", "{}");
        let canceller = async {
            tokio::time::sleep(Duration::from_millis(50)).await;
            cancel.cancel();
        };
        let (result, ()) = tokio::join!(call, canceller);
        assert!(matches!(result, Err(RequestError::Cancelled)), "{result:?}");
        for _ in 0..100 {
            if dropped.load(Ordering::SeqCst) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert!(dropped.load(Ordering::SeqCst), "{era:?}: the future was not dropped");
        // The connection goes on.
        assert_eq!(parse(&client.call_tool("add", r#"{"a":1,"b":2}"#).await.unwrap())["structuredContent"]["sum"], 3);
    }
}

#[path = "../examples/structured_output.rs"]
mod structured_output;

#[tokio::test]
async fn rmcps_structured_output_tools_answer_in_both_eras() {
    for era in [EraPolicy::Legacy, EraPolicy::Modern] {
        let client = serve(structured_output::router(), era).await;
        let tools: Vec<Json> = client.list_tools().await.unwrap().iter().map(|t| parse(t)).collect();
        assert_eq!(
            tools.iter().map(|t| t["name"].as_str().unwrap()).collect::<Vec<_>>(),
            ["get_weather", "calculate", "get_info"]
        );
        assert_eq!(tools[0]["outputSchema"]["properties"]["humidity"]["maximum"], 255, "{}", tools[0]);
        let weather = parse(&client.call_tool("get_weather", r#"{"city":"Oslo","units":"fahrenheit"}"#).await.unwrap());
        assert_eq!(weather["structuredContent"]["temperature"], 72.5, "{era:?}");
        let average =
            parse(&client.call_tool("calculate", r#"{"numbers":[1,2,3,4],"operation":"average"}"#).await.unwrap());
        assert_eq!(average["structuredContent"]["result"], 2.5);
        let unknown = parse(&client.call_tool("calculate", r#"{"numbers":[1],"operation":"modulo"}"#).await.unwrap());
        assert_eq!(
            (unknown["isError"].as_bool(), unknown["content"][0]["text"].as_str()),
            (Some(true), Some("Unknown operation: modulo"))
        );
        let info = parse(&client.call_tool("get_info", "{}").await.unwrap());
        assert_eq!(info["content"][0]["text"], "Structured Output Example Server v1.0");
    }
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Count {
    n: u64,
}

#[tokio::test]
async fn a_context_reports_progress_and_logs_before_the_answer() {
    let counting = || {
        Router::new().tool_with_context(
            "count",
            "Counts, reporting each step",
            |Count { n }, ctx: Context| async move {
                for i in 1..=n {
                    ctx.progress(i, Some(n), Some("counting"));
                    ctx.log(LoggingLevel::Info, format_args!("at {i}"));
                    tokio::time::sleep(Duration::from_millis(1)).await;
                }
                format!("counted to {n}")
            },
        )
    };
    for era in [EraPolicy::Legacy, EraPolicy::Modern] {
        let logs = Arc::new(Mutex::new(Vec::new()));
        let seen = logs.clone();
        let host = Host::new().with_notifications(Box::new(move |notification| {
            if let Notification::Log { data: Some(data), .. } = notification {
                seen.lock().unwrap().push(String::from_utf8_lossy(data.as_bytes()).into_owned());
            }
        }));
        // 2026-07-28: the level goes with each request; a legacy session logs everything until
        // `logging/setLevel`.
        let config =
            client::Config::new("router-test-client", "1.0.0").with_era(era).with_log_level(Some(LoggingLevel::Debug));
        let client = serve_with(counting(), config, host).await;
        let progress = Arc::new(Mutex::new(Vec::new()));
        let reported = progress.clone();
        let answer = client
            .call_tool_with_progress(
                "count",
                r#"{"n":3}"#,
                Box::new(move |p, total, message| {
                    reported.lock().unwrap().push((p, total, message.map(str::to_owned)));
                }),
            )
            .await
            .unwrap();
        assert_eq!(parse(&answer)["content"][0]["text"], "counted to 3", "{era:?}");
        let progress = progress.lock().unwrap().clone();
        assert_eq!(progress.iter().map(|(p, ..)| *p).collect::<Vec<_>>(), [1.0, 2.0, 3.0], "{era:?}");
        assert!(
            progress.iter().all(|(_, total, message)| *total == Some(3.0) && message.as_deref() == Some("counting"))
        );
        assert_eq!(*logs.lock().unwrap(), [r#""at 1""#, r#""at 2""#, r#""at 3""#], "{era:?}");
    }
    // A 2026-07-28 request without a log level gets no log messages.
    let logs = Arc::new(Mutex::new(0));
    let seen = logs.clone();
    let host = Host::new().with_notifications(Box::new(move |notification| {
        if let Notification::Log { .. } = notification {
            *seen.lock().unwrap() += 1;
        }
    }));
    let config = client::Config::new("router-test-client", "1.0.0").with_era(EraPolicy::Modern);
    let client = serve_with(counting(), config, host).await;
    assert_eq!(parse(&client.call_tool("count", r#"{"n":2}"#).await.unwrap())["content"][0]["text"], "counted to 2");
    assert_eq!(*logs.lock().unwrap(), 0);
}

#[tokio::test]
async fn resources_and_prompts_go_on_the_same_registry() {
    use mcp_sansio::server::{PromptInfo, ResourceInfo, Role};
    let mut router = Router::new().tool("add", "Adds", |Add { a, b }| async move { Structured(Sum { sum: a + b }) });
    router
        .registry()
        .add_resource(ResourceInfo::new("memo://today", "today"), |read, reply| {
            reply.text(read.uri, Some("text/plain"), "nothing planned").finish()
        })
        .add_prompt(PromptInfo::new("greet", "Greets").argument("name", "Who", true), |get, reply| {
            let name = get.argument("name").map(|n| n.to_string()).unwrap_or_default();
            reply.text_fmt(Role::User, format_args!("Say hello to {name}")).finish()
        });
    let client = serve(router, EraPolicy::Modern).await;
    let memo = parse(&client.read_resource("memo://today").await.unwrap());
    assert_eq!(memo["contents"][0]["text"], "nothing planned");
    let greeting = parse(&client.get_prompt("greet", Some(r#"{"name":"Ada"}"#)).await.unwrap());
    assert_eq!(greeting["messages"][0]["content"]["text"], "Say hello to Ada");
    assert_eq!(parse(&client.call_tool("add", r#"{"a":1,"b":1}"#).await.unwrap())["structuredContent"]["sum"], 2);
}

#[derive(serde::Deserialize)]
struct Greet {
    name: String,
    style: Option<String>,
}

#[tokio::test]
async fn prompts_are_async_functions_of_typed_arguments() {
    use mcp_sansio::server::PromptInfo;
    use mcp_sansio_router::PromptMessages;
    let greeter = || {
        let info =
            PromptInfo::new("greet", "Greets someone").argument("name", "Who", true).argument("style", "How", false);
        Router::new().prompt(info, |Greet { name, style }| async move {
            tokio::time::sleep(Duration::from_millis(5)).await;
            if name == "nobody" {
                return Err("nobody to greet");
            }
            let style = style.unwrap_or_else(|| "warmly".into());
            Ok(PromptMessages::new()
                .description("A greeting")
                .user(format!("Greet {name} {style}"))
                .assistant("Hello!"))
        })
    };
    for era in [EraPolicy::Legacy, EraPolicy::Modern] {
        let client = serve(greeter(), era).await;
        let prompts: Vec<Json> = client.list_prompts().await.unwrap().iter().map(|p| parse(p)).collect();
        assert_eq!(prompts[0]["name"], "greet");
        assert_eq!(prompts[0]["arguments"][0]["required"], true, "{era:?}");
        let got = parse(&client.get_prompt("greet", Some(r#"{"name":"Ada"}"#)).await.unwrap());
        assert_eq!(got["description"], "A greeting");
        assert_eq!(got["messages"][0]["content"]["text"], "Greet Ada warmly", "{era:?}: {got}");
        assert_eq!(
            (got["messages"][1]["role"].as_str(), got["messages"][1]["content"]["text"].as_str()),
            (Some("assistant"), Some("Hello!"))
        );
        match client.get_prompt("greet", Some(r#"{"style":"loudly"}"#)).await {
            Err(RequestError::Server { code, message, .. }) => {
                // The engine checks the listed required arguments before the function runs.
                assert_eq!(code, -32602, "{era:?}");
                assert!(message.contains("\"name\""), "{message}");
            }
            other => panic!("{era:?}: {other:?}"),
        }
        match client.get_prompt("greet", Some(r#"{"name":"nobody"}"#)).await {
            Err(RequestError::Server { code, message, .. }) => {
                assert_eq!((code, message.as_str()), (-32603, "nobody to greet"), "{era:?}");
            }
            other => panic!("{era:?}: {other:?}"),
        }
    }
}

#[derive(serde::Deserialize)]
struct Note {
    key: String,
}

/// A router of a resource, a template (whose `missing` key fails, whose `wait` key never ends)
/// and a completion.
fn library(dropped: Arc<AtomicBool>) -> Router {
    use mcp_sansio::server::{ResourceInfo, TemplateInfo};
    use mcp_sansio_router::{CompletionQuery, Completions, Reference, ResourceContents};
    let readme =
        ResourceInfo { mime_type: Some("text/markdown".into()), ..ResourceInfo::new("docs://readme", "readme") };
    Router::new()
        .resource(readme, || async {
            tokio::time::sleep(Duration::from_millis(5)).await;
            "# Read me"
        })
        .resource(ResourceInfo::new("docs://logo", "logo"), || async {
            ResourceContents::blob(*b"PNG").mime_type("image/png").and_text("a logo")
        })
        .resource_template(TemplateInfo::new("notes://{key}", "notes"), move |uri: String, Note { key }| {
            let flag = DropFlag(dropped.clone());
            async move {
                let _flag = flag;
                match key.as_str() {
                    "missing" => return Err(format!("no note {key}")),
                    "wait" => std::future::pending::<()>().await,
                    _ => {}
                }
                Ok(ResourceContents::text(format!("note {key} at {uri}")).text_at("notes://index", "index"))
            }
        })
        .completion(|query: CompletionQuery| async move {
            tokio::time::sleep(Duration::from_millis(5)).await;
            match (query.reference, query.argument.as_str()) {
                (Reference::ResourceTemplate(template), "key") if template == "notes://{key}" => {
                    if query.value == "boom" {
                        return Err("no completions today");
                    }
                    let keys = ["alpha", "alps", "beta"].into_iter().filter(|k| k.starts_with(&query.value));
                    Ok(Completions::new(keys).total(7).has_more(true))
                }
                _ => Ok(Completions::default()),
            }
        })
}

fn server_error(result: Result<Vec<u8>, RequestError>) -> (i64, String) {
    match result {
        Err(RequestError::Server { code, message, .. }) => (code, message),
        other => panic!("not a server error: {other:?}"),
    }
}

#[tokio::test]
async fn resources_templates_and_completions_are_async_functions() {
    for era in [EraPolicy::Legacy, EraPolicy::Modern] {
        let client = serve(library(Arc::default()), era).await;
        let listed: Vec<Json> = client.list_resources().await.unwrap().iter().map(|r| parse(r)).collect();
        assert_eq!(listed[0], serde_json::json!({"uri":"docs://readme","name":"readme","mimeType":"text/markdown"}));
        let templates = parse(&client.request("resources/templates/list", None).await.unwrap());
        assert_eq!(templates["resourceTemplates"][0]["uriTemplate"], "notes://{key}", "{era:?}");

        let readme = parse(&client.read_resource("docs://readme").await.unwrap());
        assert_eq!(
            readme["contents"],
            serde_json::json!([{"uri":"docs://readme","mimeType":"text/markdown","text":"# Read me"}]),
            "{era:?}"
        );
        let logo = parse(&client.read_resource("docs://logo").await.unwrap());
        assert_eq!(
            logo["contents"],
            serde_json::json!([
                {"uri":"docs://logo","mimeType":"image/png","blob":"UE5H"},
                {"uri":"docs://logo","text":"a logo"}
            ])
        );
        let note = parse(&client.read_resource("notes://a%20b").await.unwrap());
        assert_eq!(note["contents"][0]["text"], "note a b at notes://a%20b", "{era:?}: {note}");
        assert_eq!(note["contents"][1], serde_json::json!({"uri":"notes://index","text":"index"}));

        let (code, message) = server_error(client.read_resource("notes://missing").await);
        assert_eq!((code, message.as_str()), (-32603, "no note missing"), "{era:?}");
        let (code, _) = server_error(client.read_resource("other://x").await);
        let not_found = match era {
            EraPolicy::Legacy => -32002,
            _ => -32602,
        };
        assert_eq!(code, not_found, "{era:?}");

        let template = r#"{"type":"ref/resource","uri":"notes://{key}"}"#;
        let completed = parse(&client.complete(template, "key", "al").await.unwrap());
        assert_eq!(
            completed["completion"],
            serde_json::json!({"values":["alpha","alps"],"total":7,"hasMore":true}),
            "{era:?}"
        );
        let (code, message) = server_error(client.complete(template, "key", "boom").await);
        assert_eq!((code, message.as_str()), (-32603, "no completions today"), "{era:?}");
        let unknown = r#"{"type":"ref/resource","uri":"nowhere://{x}"}"#;
        assert_eq!(server_error(client.complete(unknown, "x", "").await).0, -32602, "{era:?}");
    }
}

#[tokio::test]
async fn a_cancelled_read_drops_its_future() {
    for era in [EraPolicy::Legacy, EraPolicy::Modern] {
        let dropped = Arc::new(AtomicBool::new(false));
        let client = serve(library(dropped.clone()), era).await;
        let cancel = CancelHandle::new();
        let cancellable = client.with_cancel(&cancel);
        let read = cancellable.read_resource("notes://wait");
        let canceller = async {
            tokio::time::sleep(Duration::from_millis(50)).await;
            cancel.cancel();
        };
        let (result, ()) = tokio::join!(read, canceller);
        assert!(matches!(result, Err(RequestError::Cancelled)), "{result:?}");
        for _ in 0..100 {
            if dropped.load(Ordering::SeqCst) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert!(dropped.load(Ordering::SeqCst), "{era:?}: the future was not dropped");
        let readme = parse(&client.read_resource("docs://readme").await.unwrap());
        assert_eq!(readme["contents"][0]["text"], "# Read me");
    }
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Review {
    /// The code to review.
    code: String,
    /// What to look for.
    focus: Option<String>,
}

#[tokio::test]
async fn a_typed_prompt_lists_its_arguments_from_the_schema() {
    use mcp_sansio_router::PromptMessages;
    let reviewer = || {
        Router::new().typed_prompt("review", "Reviews code", |Review { code, focus }| async move {
            PromptMessages::new().user(format!("Look for {} in {code}", focus.as_deref().unwrap_or("bugs")))
        })
    };
    for era in [EraPolicy::Legacy, EraPolicy::Modern] {
        let client = serve(reviewer(), era).await;
        let prompts: Vec<Json> = client.list_prompts().await.unwrap().iter().map(|p| parse(p)).collect();
        assert_eq!(
            prompts[0]["arguments"],
            serde_json::json!([
                {"name":"code","description":"The code to review.","required":true},
                {"name":"focus","description":"What to look for.","required":false}
            ]),
            "{era:?}"
        );
        let got = parse(&client.get_prompt("review", Some(r#"{"code":"x = 1"}"#)).await.unwrap());
        assert_eq!(got["messages"][0]["content"]["text"], "Look for bugs in x = 1", "{era:?}");
        assert_eq!(server_error(client.get_prompt("review", Some("{}")).await).0, -32602, "{era:?}");
    }
}
