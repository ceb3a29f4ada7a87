//! `rmcp-echo`: the comparison server, an MCP `echo` tool on rmcp over stdio or Streamable HTTP.
//!
//! `--transport stdio` is rmcp's documented default (`rmcp::transport::stdio()`, tokio's stdin and
//! stdout on the blocking thread pool); `--transport pipes` is `stdio_pipes()` (the pipes on the
//! reactor). `--runtime multi` (the default of `#[tokio::main]`) or `current` (one thread).
//!
//! `--transport http --listen ADDR` serves rmcp's `StreamableHttpService` on axum at
//! `http://ADDR/mcp` (port 0: an ephemeral one; the address is printed on stdout as
//! `listening ADDR`). `--tune default` is rmcp's default configuration (legacy sessions in the
//! `LocalSessionManager`, SSE answers) behind a plain `axum::serve`; `--tune nodelay` the same
//! with `TCP_NODELAY` set on accepted sockets; `--tune tuned` sets `TCP_NODELAY`,
//! `legacy_session_mode(false)` (every request served statelessly, `NeverSessionManager`, so
//! legacy clients get no session id) and `json_response(true)`. The runtime is `--runtime`'s.

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

/// The Streamable HTTP configurations compared.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Tune {
    /// rmcp's defaults behind a plain `axum::serve`.
    Default,
    /// The same with `TCP_NODELAY` on accepted sockets.
    Nodelay,
    /// `TCP_NODELAY`, `legacy_session_mode(false)` and `json_response(true)`.
    Tuned,
}

async fn serve_http(listen: &str, tune: Tune) -> Result<(), Box<dyn std::error::Error>> {
    use axum::serve::ListenerExt;
    use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
    use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
    use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

    let listener = tokio::net::TcpListener::bind(listen).await?;
    println!("listening {}", listener.local_addr()?);
    let factory = || Ok(Echo { tool_router: Echo::tool_router() });
    let router = if tune == Tune::Tuned {
        let config = StreamableHttpServerConfig::default().with_legacy_session_mode(false).with_json_response(true);
        let service = StreamableHttpService::new(factory, NeverSessionManager::default().into(), config);
        axum::Router::new().nest_service("/mcp", service)
    } else {
        let config = StreamableHttpServerConfig::default();
        let service = StreamableHttpService::new(factory, LocalSessionManager::default().into(), config);
        axum::Router::new().nest_service("/mcp", service)
    };
    if tune == Tune::Default {
        axum::serve(listener, router).await?;
    } else {
        let listener = listener.tap_io(|tcp| {
            let _ = tcp.set_nodelay(true);
        });
        axum::serve(listener, router).await?;
    }
    Ok(())
}

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |flag: &str, default: &'static str| -> String {
        args.iter().position(|a| a == flag).and_then(|i| args.get(i + 1)).cloned().unwrap_or_else(|| default.into())
    };
    let transport = value("--transport", "stdio");
    let pipes = match transport.as_str() {
        "stdio" | "http" => false,
        "pipes" => true,
        other => {
            eprintln!("rmcp-echo: --transport stdio|pipes|http, not {other}");
            return std::process::ExitCode::from(2);
        }
    };
    let tune = match value("--tune", "default").as_str() {
        "default" => Tune::Default,
        "nodelay" => Tune::Nodelay,
        "tuned" => Tune::Tuned,
        other => {
            eprintln!("rmcp-echo: --tune default|nodelay|tuned, not {other}");
            return std::process::ExitCode::from(2);
        }
    };
    let listen = value("--listen", "127.0.0.1:0");
    let mut builder = match value("--runtime", "multi").as_str() {
        "multi" => tokio::runtime::Builder::new_multi_thread(),
        "current" => tokio::runtime::Builder::new_current_thread(),
        other => {
            eprintln!("rmcp-echo: --runtime multi|current, not {other}");
            return std::process::ExitCode::from(2);
        }
    };
    let runtime = builder.enable_all().build().expect("tokio runtime");
    let served =
        if transport == "http" { runtime.block_on(serve_http(&listen, tune)) } else { runtime.block_on(serve(pipes)) };
    match served {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("rmcp-echo: {error}");
            std::process::ExitCode::FAILURE
        }
    }
}
