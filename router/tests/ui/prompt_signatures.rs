use mcp_sansio_router::tools;

struct Server;

#[tools]
impl Server {
    /// Two arguments types.
    #[prompt]
    async fn two(&self, a: String, b: String) -> mcp_sansio_router::PromptMessages {
        mcp_sansio_router::PromptMessages::new().user(a + &b)
    }

    #[prompt]
    async fn undocumented(&self) -> mcp_sansio_router::PromptMessages {
        mcp_sansio_router::PromptMessages::new()
    }

    /// Not async.
    #[prompt]
    fn blocking(&self) -> mcp_sansio_router::PromptMessages {
        mcp_sansio_router::PromptMessages::new()
    }

    /// An unknown key.
    #[prompt(title = "Greeting")]
    async fn titled(&self) -> mcp_sansio_router::PromptMessages {
        mcp_sansio_router::PromptMessages::new()
    }

    /// The context before the arguments.
    #[prompt]
    async fn context_first(
        &self,
        context: mcp_sansio_router::Context,
        text: String,
    ) -> mcp_sansio_router::PromptMessages {
        mcp_sansio_router::PromptMessages::new().user(text)
    }

    /// Two arguments types and the context.
    #[prompt]
    async fn two_then_context(
        &self,
        a: String,
        b: String,
        context: mcp_sansio_router::Context,
    ) -> mcp_sansio_router::PromptMessages {
        mcp_sansio_router::PromptMessages::new().user(a + &b)
    }
}

fn main() {}
