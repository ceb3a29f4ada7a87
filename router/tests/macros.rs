//! `#[tools]` refuses what it cannot make a tool, prompt or resource of, with errors that point
//! at the user's code; what it accepts is served in both eras, a prompt's or resource's `Context`
//! included (progress and logs read off the wire, questions answered through the client).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use mcp_sansio::client::{self, EraPolicy};
use mcp_sansio::server::Config;
use mcp_sansio_router::{Context, InputError, PromptMessages, ResourceContents, tools};
use mcp_sansio_tokio::host::{self, ClientHandle, Host, RequestError};
use serde_json::{Value as Json, json};

mod common;

use common::{Wire, confirmed, report};

#[test]
fn wrong_signatures_are_compile_errors_at_the_users_code() {
    trybuild::TestCases::new().compile_fail("tests/ui/*.rs");
}

struct Library {
    motto: &'static str,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Greeting {
    /// Who to greet.
    name: String,
}

#[derive(serde::Deserialize)]
struct Book {
    title: String,
}

#[tools]
impl Library {
    /// Says the motto.
    #[tool]
    async fn motto(&self) -> String {
        self.motto.to_owned()
    }

    /// Greets someone.
    #[prompt]
    async fn greet(&self, Greeting { name }: Greeting) -> Result<PromptMessages, String> {
        if name.is_empty() {
            return Err("greet whom?".into());
        }
        Ok(PromptMessages::new().user(format!("Greet {name}: {}", self.motto)))
    }

    #[prompt(name = "quiet", description = "Says nothing")]
    async fn say_nothing(&self) -> PromptMessages {
        PromptMessages::new().assistant("…")
    }

    /// The library's motto.
    #[resource(uri = "library://motto", mime_type = "text/plain")]
    async fn motto_resource(&self) -> &'static str {
        self.motto
    }

    /// One book.
    #[resource(template = "library://books/{title}", name = "books")]
    async fn book(&self, uri: String, Book { title }: Book) -> Result<ResourceContents, String> {
        match title.as_str() {
            "lost" => Err(format!("{uri} is lost")),
            _ => Ok(ResourceContents::text(format!("the book {title}"))),
        }
    }

    #[resource(template = "library://shelves/{shelf}")]
    async fn shelf(&self, variables: std::collections::HashMap<String, String>) -> String {
        format!("shelf {}", variables["shelf"])
    }
}

async fn serve(era: EraPolicy) -> ClientHandle {
    let router = Arc::new(Library { motto: "read more" }).router();
    let (server_io, client_io) = tokio::io::duplex(1 << 16);
    let (mut server, jobs) = router.into_server(Config::new("macros-test", "1.0.0"), |future| {
        tokio::spawn(future);
    });
    let (server_in, server_out) = tokio::io::split(server_io);
    tokio::spawn(async move { mcp_sansio_tokio::run_with_jobs(&mut server, server_in, server_out, jobs).await });
    let config = client::Config::new("macros-test-client", "1.0.0").with_era(era);
    let (handle, mut conn, jobs) = host::connection(config, Host::new(), 1 << 16, 1 << 16);
    let (client_in, client_out) = tokio::io::split(client_io);
    tokio::spawn(async move { mcp_sansio_tokio::run_with_jobs(&mut conn, client_in, client_out, jobs).await });
    handle.connect().await.unwrap();
    handle
}

fn parse(bytes: &[u8]) -> Json {
    serde_json::from_slice(bytes).unwrap()
}

#[tokio::test]
async fn prompts_and_resources_are_methods_too() {
    for era in [EraPolicy::Legacy, EraPolicy::Modern] {
        let client = serve(era).await;
        assert_eq!(parse(&client.call_tool("motto", "{}").await.unwrap())["content"][0]["text"], "read more");

        let prompts: Vec<Json> = client.list_prompts().await.unwrap().iter().map(|p| parse(p)).collect();
        assert_eq!(prompts[0]["description"], "Greets someone.", "{era:?}");
        assert_eq!(
            prompts[0]["arguments"],
            serde_json::json!([{"name":"name","description":"Who to greet.","required":true}])
        );
        assert_eq!(
            (prompts[1]["name"].as_str(), prompts[1]["description"].as_str()),
            (Some("quiet"), Some("Says nothing"))
        );
        let greeting = parse(&client.get_prompt("greet", Some(r#"{"name":"Ada"}"#)).await.unwrap());
        assert_eq!(greeting["messages"][0]["content"]["text"], "Greet Ada: read more", "{era:?}");
        match client.get_prompt("greet", Some(r#"{"name":""}"#)).await {
            Err(RequestError::Server { code, message, .. }) => {
                assert_eq!((code, message.as_str()), (-32603, "greet whom?"))
            }
            other => panic!("{era:?}: {other:?}"),
        }
        let quiet = parse(&client.get_prompt("quiet", None).await.unwrap());
        assert_eq!(quiet["messages"][0]["role"], "assistant");

        let resources: Vec<Json> = client.list_resources().await.unwrap().iter().map(|r| parse(r)).collect();
        assert_eq!(
            resources[0],
            serde_json::json!({"uri":"library://motto","name":"motto_resource","description":"The library's motto.","mimeType":"text/plain"})
        );
        let templates = parse(&client.request("resources/templates/list", None).await.unwrap());
        assert_eq!(
            templates["resourceTemplates"],
            serde_json::json!([
                {"uriTemplate":"library://books/{title}","name":"books","description":"One book."},
                {"uriTemplate":"library://shelves/{shelf}","name":"shelf"}
            ]),
            "{era:?}"
        );
        let motto = parse(&client.read_resource("library://motto").await.unwrap());
        assert_eq!(
            motto["contents"][0],
            serde_json::json!({"uri":"library://motto","mimeType":"text/plain","text":"read more"})
        );
        let book = parse(&client.read_resource("library://books/dune").await.unwrap());
        assert_eq!(book["contents"][0]["text"], "the book dune", "{era:?}");
        match client.read_resource("library://books/lost").await {
            Err(RequestError::Server { code, message, .. }) => {
                assert_eq!((code, message.as_str()), (-32603, "library://books/lost is lost"))
            }
            other => panic!("{era:?}: {other:?}"),
        }
        let shelf = parse(&client.read_resource("library://shelves/7").await.unwrap());
        assert_eq!(shelf["contents"][0]["text"], "shelf 7");
    }
}

/// Prompts, resources and templates that take the request's `Context`: the first three report
/// progress and log, the others ask the user to confirm (`runs` counts how often `drawer`
/// started).
#[derive(Default)]
struct Desk {
    runs: AtomicUsize,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Letter {
    /// To whom.
    to: String,
}

#[derive(serde::Deserialize)]
struct Note {
    key: String,
}

#[derive(serde::Deserialize)]
struct Lock {
    lock: String,
}

#[tools]
impl Desk {
    /// Drafts a letter.
    #[prompt]
    async fn draft(&self, Letter { to }: Letter, context: Context) -> PromptMessages {
        report(&context, "drafting").await;
        PromptMessages::new().user(format!("Dear {to},"))
    }

    /// The desk's steps.
    #[resource(uri = "desk://steps")]
    async fn steps(&self, context: mcp_sansio_router::Context) -> &'static str {
        report(&context, "stepping").await;
        "stepped"
    }

    /// A note.
    #[resource(template = "desk://notes/{key}")]
    async fn note(&self, uri: String, Note { key }: Note, ctx: Context) -> String {
        report(&ctx, "noting").await;
        format!("note {key} at {uri}")
    }

    /// Signs, if the user confirms.
    #[prompt(name = "sign")]
    async fn sign_here(&self, context: Context) -> Result<PromptMessages, InputError> {
        let signed = confirmed(&context, "Sign it?").await?;
        Ok(PromptMessages::new().assistant(format!("signed: {signed}")))
    }

    #[resource(uri = "desk://drawer")]
    async fn drawer(&self, context: Context) -> Result<&'static str, InputError> {
        self.runs.fetch_add(1, Ordering::SeqCst);
        match confirmed(&context, "Open the drawer?").await? {
            true => Ok("a pen"),
            false => Ok("closed"),
        }
    }

    #[resource(template = "desk://locks/{lock}")]
    async fn lock(&self, Lock { lock }: Lock, context: Context) -> Result<String, InputError> {
        let open = confirmed(&context, &format!("Open {lock}?")).await?;
        Ok(format!("{lock} open: {open}"))
    }
}

#[tokio::test]
async fn prompt_and_resource_methods_report_progress_and_logs_in_both_eras() {
    for era in [EraPolicy::Legacy, EraPolicy::Modern] {
        let mut wire = Wire::start(Arc::new(Desk::default()).router(), era).await;
        let draft = json!({"name":"draft","arguments":{"to":"Ada"}});
        let answer = wire.reported(1, "prompts/get", draft, "drafting").await;
        assert_eq!(answer["messages"][0]["content"]["text"], "Dear Ada,", "{era:?}: {answer}");
        let answer = wire.reported(2, "resources/read", json!({"uri":"desk://steps"}), "stepping").await;
        assert_eq!(answer["contents"][0]["text"], "stepped", "{era:?}: {answer}");
        let answer = wire.reported(3, "resources/read", json!({"uri":"desk://notes/today"}), "noting").await;
        assert_eq!(answer["contents"][0]["text"], "note today at desk://notes/today", "{era:?}: {answer}");
    }
}

#[tokio::test]
async fn prompt_and_resource_methods_ask_the_client_in_both_eras() {
    for era in [EraPolicy::Legacy, EraPolicy::Modern] {
        let desk = Arc::new(Desk::default());
        let asked = Arc::new(AtomicUsize::new(0));
        let client = common::client(desk.clone().router(), era, asked.clone()).await;
        let prompts: Vec<Json> = client.list_prompts().await.unwrap().iter().map(|p| parse(p)).collect();
        assert_eq!(
            prompts[0]["arguments"],
            json!([{"name":"to","description":"To whom.","required":true}]),
            "{era:?}: the context is no argument"
        );
        assert_eq!(prompts[1]["arguments"], json!([]), "{era:?}");
        let signed = parse(&client.get_prompt("sign", None).await.unwrap());
        assert_eq!(signed["messages"][0]["content"]["text"], "signed: true", "{era:?}: {signed}");
        let drawer = parse(&client.read_resource("desk://drawer").await.unwrap());
        assert_eq!(drawer["contents"][0]["text"], "a pen", "{era:?}: {drawer}");
        let lock = parse(&client.read_resource("desk://locks/front").await.unwrap());
        assert_eq!(lock["contents"][0]["text"], "front open: true", "{era:?}: {lock}");
        assert_eq!(asked.load(Ordering::SeqCst), 3, "{era:?}");
        // 2026-07-28: the read was answered `input_required`, and its retry ran the method again.
        let runs = if era == EraPolicy::Legacy { 1 } else { 2 };
        assert_eq!(desk.runs.load(Ordering::SeqCst), runs, "{era:?}");
    }
}
