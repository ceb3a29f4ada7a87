//! Protection against DNS rebinding: the `Host` and `Origin` a request names must be hosts the server
//! answers for.

/// The host names a server bound to a loopback address answers for.
pub const LOOPBACK_HOSTS: &[&str] = &["localhost", "127.0.0.1", "[::1]"];

/// Which `Host` and `Origin` values are accepted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostPolicy<'a> {
    /// Host names (no port; IPv6 in brackets) accepted in `Host` and in the authority of `Origin`,
    /// compared case-insensitively. Empty: any host (a server on a public address that checks
    /// nothing here: put it behind a proxy that does).
    pub hosts: &'a [&'a str],
    /// Whole origins (`https://app.example`) accepted besides those whose host is in `hosts`.
    pub origins: &'a [&'a str],
}

impl HostPolicy<'static> {
    /// Only loopback names: the default for servers bound to 127.0.0.1 or ::1.
    pub const LOOPBACK: HostPolicy<'static> = HostPolicy { hosts: LOOPBACK_HOSTS, origins: &[] };
    /// No checks.
    pub const ANY: HostPolicy<'static> = HostPolicy { hosts: &[], origins: &[] };
}

impl HostPolicy<'_> {
    /// Whether a request with these `Host` and `Origin` values may be served. A missing `Host` is
    /// refused when hosts are checked; a missing `Origin` (no browser) is accepted.
    pub fn allows(&self, host: Option<&[u8]>, origin: Option<&[u8]>) -> bool {
        if self.hosts.is_empty() {
            return true;
        }
        let host_ok = host.and_then(host_name).is_some_and(|h| self.knows(h));
        let origin_ok = match origin {
            None => true,
            Some(origin) => {
                let origin = crate::http::header::trim_ows(origin);
                self.origins.iter().any(|o| o.as_bytes().eq_ignore_ascii_case(origin))
                    || origin_host(origin).is_some_and(|h| self.knows(h))
            }
        };
        host_ok && origin_ok
    }

    fn knows(&self, host: &[u8]) -> bool {
        self.hosts.iter().any(|h| h.as_bytes().eq_ignore_ascii_case(host))
    }
}

/// The host of a `Host` value (`name[:port]`, `[v6][:port]`), without its port.
fn host_name(value: &[u8]) -> Option<&[u8]> {
    let value = crate::http::header::trim_ows(value);
    if value.is_empty() {
        return None;
    }
    let host = if value.first() == Some(&b'[') {
        let close = value.iter().position(|&b| b == b']')?;
        let rest = value.get(close + 1..)?;
        if !(rest.is_empty() || (rest.first() == Some(&b':') && is_port(rest.get(1..)?))) {
            return None;
        }
        value.get(..=close)?
    } else {
        match value.iter().position(|&b| b == b':') {
            Some(colon) => {
                if !is_port(value.get(colon + 1..)?) {
                    return None;
                }
                value.get(..colon)?
            }
            None => value,
        }
    };
    (!host.is_empty()).then_some(host)
}

fn is_port(digits: &[u8]) -> bool {
    !digits.is_empty() && digits.len() <= 5 && digits.iter().all(u8::is_ascii_digit)
}

/// The host of an origin `scheme://host[:port]` (`null` and other forms have none).
fn origin_host(origin: &[u8]) -> Option<&[u8]> {
    let sep = origin.windows(3).position(|w| w == b"://")?;
    let scheme = origin.get(..sep)?;
    if scheme.is_empty() || !scheme.iter().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.')) {
        return None;
    }
    let authority = origin.get(sep + 3..)?;
    if authority.iter().any(|&b| matches!(b, b'/' | b'@' | b'?' | b'#')) {
        return None;
    }
    host_name(authority)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_accepts_local_names_with_ports() {
        let p = HostPolicy::LOOPBACK;
        assert!(p.allows(Some(b"localhost:8080"), None));
        assert!(p.allows(Some(b"127.0.0.1"), Some(b"http://localhost:3000")));
        assert!(p.allows(Some(b"[::1]:80"), Some(b"http://[::1]:80")));
        assert!(p.allows(Some(b"LOCALHOST"), None));
    }

    #[test]
    fn loopback_refuses_rebound_names_and_odd_forms() {
        let p = HostPolicy::LOOPBACK;
        assert!(!p.allows(Some(b"evil.example.com"), Some(b"http://evil.example.com")));
        assert!(!p.allows(Some(b"localhost"), Some(b"http://evil.example.com")));
        assert!(!p.allows(Some(b"evil.example.com"), None));
        assert!(!p.allows(None, None));
        assert!(!p.allows(Some(b"localhost:80x"), None));
        assert!(!p.allows(Some(b"localhost"), Some(b"null")));
        assert!(!p.allows(Some(b"localhost"), Some(b"http://localhost@evil.example.com")));
        assert!(!p.allows(Some(b"[::1]x"), None));
        assert!(!p.allows(Some(b""), None));
        assert!(!p.allows(Some(b"[::1]:80x"), None));
        // An origin needs a scheme of URI scheme characters.
        assert!(!p.allows(Some(b"localhost"), Some(b"://localhost")));
        assert!(!p.allows(Some(b"localhost"), Some(b"ht tp://localhost")));
        assert!(p.allows(Some(b"localhost"), Some(b"vscode-webview+x.1://localhost")));
    }

    #[test]
    fn extra_origins_and_the_open_policy() {
        let p = HostPolicy { hosts: &["mcp.example"], origins: &["https://app.example"] };
        assert!(p.allows(Some(b"mcp.example"), Some(b"https://app.example")));
        assert!(p.allows(Some(b"mcp.example:443"), Some(b"https://mcp.example")));
        assert!(!p.allows(Some(b"mcp.example"), Some(b"https://other.example")));
        assert!(HostPolicy::ANY.allows(None, Some(b"http://evil.example.com")));
    }
}
