use mcp_sansio_router::tools;

struct Server;

#[derive(serde::Deserialize)]
struct Path {
    path: String,
}

#[tools]
impl Server {
    /// A static resource takes no arguments.
    #[resource(uri = "file:///a")]
    async fn a(&self, path: Path) -> String {
        path.path
    }

    /// Neither a URI nor a template.
    #[resource]
    async fn b(&self) -> String {
        String::new()
    }

    /// Both.
    #[resource(uri = "file:///c", template = "file:///{path}")]
    async fn c(&self) -> String {
        String::new()
    }

    /// A template without its variables.
    #[resource(template = "file:///{path}")]
    async fn d(&self) -> String {
        String::new()
    }

    /// The context is last.
    #[resource(uri = "file:///e")]
    async fn e(&self, context: mcp_sansio_router::Context, path: Path) -> String {
        path.path
    }

    /// A static resource takes the context only.
    #[resource(uri = "file:///f")]
    async fn f(&self, path: Path, context: mcp_sansio_router::Context) -> String {
        path.path
    }

    /// A template without its variables takes the context.
    #[resource(template = "file:///{path}")]
    async fn g(&self, context: mcp_sansio_router::Context) -> String {
        String::new()
    }

    /// A template's context is last.
    #[resource(template = "file:///{path}")]
    async fn h(&self, uri: String, context: mcp_sansio_router::Context, path: Path) -> String {
        uri + &path.path
    }
}

fn main() {}
