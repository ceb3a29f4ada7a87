use mcp_sansio_router::tools;

struct Server;

#[tools]
impl Server {
    /// A task support that does not exist.
    #[tool(task = "sometimes")]
    async fn sometimes(&self) -> &'static str {
        "maybe"
    }

    /// Not a string.
    #[tool(task = required)]
    async fn unquoted(&self) -> &'static str {
        "required"
    }

    /// An unknown key.
    #[tool(long_running)]
    async fn long(&self) -> &'static str {
        "long"
    }
}

fn main() {}
