//! `#[tools]` refuses what it cannot make a tool, prompt or resource of, with errors that point
//! at the user's code; what it accepts is served in both eras.

use std::sync::Arc;

use mcp_sansio::client::{self, EraPolicy};
use mcp_sansio::server::Config;
use mcp_sansio_router::{PromptMessages, ResourceContents, tools};
use mcp_sansio_tokio::host::{self, ClientHandle, Host, RequestError};
use serde_json::Value as Json;

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
