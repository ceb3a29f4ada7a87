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
    #[tool]
    async fn echo(&self, plain: Plain) -> String {
        plain.text
    }

    /// A result that is not a tool output.
    #[tool]
    async fn number(&self) -> u32 {
        7
    }
}

fn main() {}
