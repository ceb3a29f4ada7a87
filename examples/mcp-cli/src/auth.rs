//! OAuth for servers given as an `https://` (or `http://`) URL: the authorization flow of
//! `mcp-sansio-http` (`client::oauth`) when the server answers 401, with the system browser and a
//! loopback redirect (or `--headless-auth`), and the tokens and registrations kept in a
//! credentials file, so `mcp login <URL>` once lets later commands call the server.

use std::path::PathBuf;
use std::sync::Arc;

use mcp_sansio_http::client::oauth::{Browser, FileStore, Headless, OAuth, OAuthConfig};

use crate::Cli;

/// The credentials file: `--credentials`, else `$MCP_CREDENTIALS`, else
/// `$XDG_CONFIG_HOME/mcp-sansio/credentials.json` (`~/.config/…` without it).
pub fn credentials_path(cli: &Cli) -> Option<PathBuf> {
    if let Some(path) = &cli.credentials {
        return Some(path.clone());
    }
    if let Some(path) = std::env::var_os("MCP_CREDENTIALS") {
        return Some(PathBuf::from(path));
    }
    let config = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".config")))?;
    Some(config.join("mcp-sansio").join("credentials.json"))
}

/// The OAuth of this invocation.
pub async fn oauth(cli: &Cli) -> Result<Arc<OAuth>, String> {
    let path = credentials_path(cli).ok_or("no place for the credentials file: set --credentials or HOME")?;
    let store = FileStore::open(&path).map_err(|error| format!("cannot read {}: {error}", path.display()))?;
    let configure = |redirect_uri: &str| {
        let mut config = OAuthConfig::new("mcp (mcp-sansio)", redirect_uri);
        if let Some(id) = &cli.client_id {
            config = config.with_client(id, cli.client_secret.clone());
        }
        config
    };
    let oauth = if cli.headless_auth {
        OAuth::new(configure("http://127.0.0.1/callback")).with_user_agent(Headless)
    } else {
        let browser =
            Browser::bind().await.map_err(|error| format!("cannot listen for the sign-in redirect: {error}"))?;
        let browser = browser.with_opener(|url| {
            eprintln!("mcp: sign in at {url}");
            let _ = open_browser(url);
            Ok(())
        });
        OAuth::new(configure(browser.redirect_uri())).with_user_agent(browser)
    };
    Ok(Arc::new(oauth.with_store(store)))
}

/// Opens `url` in the system browser (the URL is printed too, for a terminal without one).
fn open_browser(url: &str) -> std::io::Result<()> {
    let program = if cfg!(target_os = "macos") { "open" } else { "xdg-open" };
    std::process::Command::new(program)
        .arg(url)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .map(drop)
}
