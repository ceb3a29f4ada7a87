use mcp_sansio_router::tools;

struct Server;

#[tools]
impl Server {
    /// Not async.
    #[tool]
    fn ping(&self) -> &'static str {
        "pong"
    }
}

fn main() {}
