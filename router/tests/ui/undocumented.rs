use mcp_sansio_router::tools;

struct Server;

#[tools]
impl Server {
    #[tool]
    async fn ping(&self) -> &'static str {
        "pong"
    }
}

fn main() {}
