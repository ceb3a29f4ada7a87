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
}

fn main() {}
