//! `rmcp-echo`: the comparison server, an MCP `echo` tool on rmcp over stdio.
//!
//! `--transport stdio` is rmcp's documented default (`rmcp::transport::stdio()`, tokio's stdin and
//! stdout on the blocking thread pool); `--transport pipes` is `stdio_pipes()` (the pipes on the
//! reactor). `--runtime multi` (the default of `#[tokio::main]`) or `current` (one thread).

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{ServerCapabilities, ServerConfig};
use rmcp::{ServerHandler, ServiceExt, schemars, tool, tool_handler, tool_router};

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct EchoRequest {
    /// The text to send back.
    message: String,
}

#[derive(Debug, Clone)]
struct Echo {
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl Echo {
    #[tool(description = "Sends the message back unchanged")]
    fn echo(&self, Parameters(EchoRequest { message }): Parameters<EchoRequest>) -> String {
        message
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Echo {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

async fn serve(pipes: bool) -> Result<(), Box<dyn std::error::Error>> {
    let echo = Echo { tool_router: Echo::tool_router() };
    let running = if pipes {
        echo.serve(rmcp::transport::stdio_pipes()).await?
    } else {
        echo.serve(rmcp::transport::stdio()).await?
    };
    running.waiting().await?;
    Ok(())
}

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |flag: &str, default: &'static str| -> String {
        args.iter().position(|a| a == flag).and_then(|i| args.get(i + 1)).cloned().unwrap_or_else(|| default.into())
    };
    let pipes = match value("--transport", "stdio").as_str() {
        "stdio" => false,
        "pipes" => true,
        other => {
            eprintln!("rmcp-echo: --transport stdio|pipes, not {other}");
            return std::process::ExitCode::from(2);
        }
    };
    let mut builder = match value("--runtime", "multi").as_str() {
        "multi" => tokio::runtime::Builder::new_multi_thread(),
        "current" => tokio::runtime::Builder::new_current_thread(),
        other => {
            eprintln!("rmcp-echo: --runtime multi|current, not {other}");
            return std::process::ExitCode::from(2);
        }
    };
    let runtime = builder.enable_all().build().expect("tokio runtime");
    match runtime.block_on(serve(pipes)) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("rmcp-echo: {error}");
            std::process::ExitCode::FAILURE
        }
    }
}
