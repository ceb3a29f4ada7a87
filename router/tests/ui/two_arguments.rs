use mcp_sansio_router::tools;

struct Server;

#[tools]
impl Server {
    /// Two arguments types.
    #[tool]
    async fn add(&self, a: i64, b: i64) -> String {
        (a + b).to_string()
    }
}

fn main() {}
