use mcp_sansio_router::tools;

struct Server;

/// Variables that cannot be read.
struct Opaque;

#[derive(serde::Deserialize)]
struct Path {
    path: String,
}

#[tools]
impl Server {
    /// Not contents.
    #[resource(uri = "file:///a")]
    async fn a(&self) -> u32 {
        7
    }

    /// Variables without `Deserialize`.
    #[resource(template = "file:///{path}")]
    async fn b(&self, _variables: Opaque) -> String {
        String::new()
    }

    /// The URI read is a `String`.
    #[resource(template = "file:///{+path}")]
    async fn c(&self, uri: u64, path: Path) -> String {
        format!("{uri}{}", path.path)
    }
}

fn main() {}
