use mcp_sansio_router::tools;

struct Server;

/// Arguments without `JsonSchema`.
#[derive(serde::Deserialize)]
struct Plain {
    text: String,
}

#[tools]
impl Server {
    /// Arguments that have no schema.
    #[prompt]
    async fn echo(&self, plain: Plain) -> Result<mcp_sansio_router::PromptMessages, String> {
        Err(plain.text)
    }

    /// Not messages.
    #[prompt]
    async fn text(&self) -> String {
        "hello".into()
    }
}

fn main() {}
