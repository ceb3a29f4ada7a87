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
}

fn main() {}
