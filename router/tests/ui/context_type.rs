use mcp_sansio_router::tools;

struct Server;

/// Not the router's `Context`, though named so.
struct Context;

#[derive(serde::Deserialize)]
struct Path {
    path: String,
}

#[tools]
impl Server {
    /// A tool with another `Context`.
    #[tool]
    async fn tool(&self, _context: Context) -> String {
        String::new()
    }

    /// A prompt with another `Context`.
    #[prompt]
    async fn prompt(&self, _context: Context) -> mcp_sansio_router::PromptMessages {
        mcp_sansio_router::PromptMessages::new()
    }

    /// A resource with another `Context`.
    #[resource(uri = "file:///a")]
    async fn resource(&self, _context: Context) -> String {
        String::new()
    }

    /// A template with another `Context`.
    #[resource(template = "file:///{path}")]
    async fn template(&self, path: Path, _context: Context) -> String {
        path.path
    }
}

fn main() {}
