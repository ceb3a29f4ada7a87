use mcp_sansio_router::tools;

struct Server;

#[tools]
impl Server {
    /// Takes `&mut self`.
    #[tool]
    async fn ping(&mut self) -> &'static str {
        "pong"
    }

    /// Takes no `self`.
    #[tool]
    async fn pong() -> &'static str {
        "ping"
    }
}

fn main() {}
