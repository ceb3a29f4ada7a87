//! The user-agent step of the authorization code flow: [`Headless`] for tests and CI, [`Browser`]
//! for a person (the system browser, and the redirect received on a loopback port, RFC 8252).

use std::io;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

use super::{AuthorizeFuture, UserAgent, fetch};

/// A user agent without a user: `GET`s the authorization URL and takes the redirect from its
/// `Location` (an authorization server that approves at once: tests, CI, the conformance suite).
#[derive(Clone, Copy, Debug, Default)]
pub struct Headless;

impl UserAgent for Headless {
    fn authorize<'a>(&'a self, url: &'a str) -> AuthorizeFuture<'a> {
        Box::pin(async move {
            let response = fetch::get(url).await?;
            response.location.ok_or_else(|| {
                io::Error::other(format!("the authorization endpoint did not redirect (HTTP {})", response.status))
            })
        })
    }
}

/// How long [`Browser`] waits for the user to finish at the authorization server.
pub const BROWSER_TIMEOUT: Duration = Duration::from_secs(300);
/// Longest redirect request the loopback receiver reads.
const MAX_REDIRECT_REQUEST: usize = 16 * 1024;

/// The system browser (or any `open` function) for the authorization page, and the redirect
/// received on a loopback port: bind it first ([`Browser::bind`]) and use its
/// [`redirect_uri`](Browser::redirect_uri) in the [`OAuthConfig`](super::OAuthConfig).
pub struct Browser {
    listener: tokio::sync::Mutex<TcpListener>,
    redirect_uri: String,
    open: Box<Opener>,
}

/// What takes the user to a page.
type Opener = dyn Fn(&str) -> io::Result<()> + Send + Sync;

impl std::fmt::Debug for Browser {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Browser").field("redirect_uri", &self.redirect_uri).finish_non_exhaustive()
    }
}

impl Browser {
    /// Listens on a free loopback port for the redirect (`http://127.0.0.1:<port>/callback`);
    /// opens pages with the system browser (`xdg-open`, `open`, or `start`).
    pub async fn bind() -> io::Result<Browser> {
        let listener = TcpListener::bind(("127.0.0.1", 0)).await?;
        let redirect_uri = format!("http://127.0.0.1:{}/callback", listener.local_addr()?.port());
        Ok(Browser { listener: tokio::sync::Mutex::new(listener), redirect_uri, open: Box::new(open_system_browser) })
    }

    /// With `open` instead of the system browser (it must take the user to the URL).
    #[must_use]
    pub fn with_opener(mut self, open: impl Fn(&str) -> io::Result<()> + Send + Sync + 'static) -> Self {
        self.open = Box::new(open);
        self
    }

    /// Where the authorization server must send the user back.
    pub fn redirect_uri(&self) -> &str {
        &self.redirect_uri
    }
}

impl UserAgent for Browser {
    fn authorize<'a>(&'a self, url: &'a str) -> AuthorizeFuture<'a> {
        Box::pin(async move {
            let listener = self.listener.lock().await;
            (self.open)(url)?;
            tokio::time::timeout(BROWSER_TIMEOUT, receive_redirect(&listener, &self.redirect_uri))
                .await
                .map_err(|_| io::Error::new(io::ErrorKind::TimedOut, "no redirect from the browser in time"))?
        })
    }
}

/// Accepts connections until one asks for the callback path; the full redirect URL.
async fn receive_redirect(listener: &TcpListener, redirect_uri: &str) -> io::Result<String> {
    let (origin, path) = super::form::split_url(redirect_uri).unwrap_or((redirect_uri, "/"));
    loop {
        let (mut stream, _) = listener.accept().await?;
        let mut request = Vec::new();
        let mut buf = [0u8; 2048];
        while !request.windows(4).any(|w| w == b"\r\n\r\n") && request.len() < MAX_REDIRECT_REQUEST {
            let n = stream.read(&mut buf).await?;
            if n == 0 {
                break;
            }
            request.extend_from_slice(&buf[..n]);
        }
        let line = String::from_utf8_lossy(&request);
        let target = line.lines().next().and_then(|l| l.split(' ').nth(1)).unwrap_or_default().to_owned();
        if target.split('?').next() != Some(path) {
            let _ = stream.write_all(b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n").await;
            continue;
        }
        let page = "<!doctype html><title>Signed in</title><p>You can close this window and return to the application.";
        let response = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: text/html; charset=utf-8\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{page}",
            page.len()
        );
        let _ = stream.write_all(response.as_bytes()).await;
        return Ok(format!("{origin}{target}"));
    }
}

/// Opens `url` in the system browser.
fn open_system_browser(url: &str) -> io::Result<()> {
    let mut command = if cfg!(target_os = "macos") {
        std::process::Command::new("open")
    } else if cfg!(windows) {
        let mut start = std::process::Command::new("cmd");
        start.args(["/C", "start", ""]);
        start
    } else {
        std::process::Command::new("xdg-open")
    };
    command.arg(url).stdout(std::process::Stdio::null()).stderr(std::process::Stdio::null()).spawn().map(drop)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_browser_receives_the_redirect_on_its_loopback_port() {
        let browser = Browser::bind().await.unwrap();
        let redirect = browser.redirect_uri().to_owned();
        // A "browser" that follows the authorization server's redirect to the callback, after a
        // stray request for another path.
        let browser = browser.with_opener(move |url| {
            assert_eq!(url, "http://as.example/authorize?x=1");
            let redirect = redirect.clone();
            tokio::spawn(async move {
                let _ = fetch::get(&redirect.replace("/callback", "/favicon.ico")).await;
                let got = fetch::get(&format!("{redirect}?code=c1&state=s1")).await.unwrap();
                assert_eq!(got.status, 200);
            });
            Ok(())
        });
        let url = browser.authorize("http://as.example/authorize?x=1").await.unwrap();
        assert_eq!(url, format!("{}?code=c1&state=s1", browser.redirect_uri()));
    }
}
