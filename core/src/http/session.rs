//! Legacy session ids (`Mcp-Session-Id`): the form this crate's servers give them, which a server
//! that mints one and a client that echoes it share (other servers' ids may be any visible ASCII).
//! Minting them is the server's ([`SessionId::from_random`]).

use core::fmt;

/// Random bytes in a session id; the id is their lower-case hex (32 characters).
pub const SESSION_ID_RANDOM_BYTES: usize = 16;

/// A session id this server minted: the hex of [`SESSION_ID_RANDOM_BYTES`] bytes the caller drew
/// from a cryptographically secure generator (the core has none).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SessionId(pub(super) [u8; 2 * SESSION_ID_RANDOM_BYTES]);

impl SessionId {
    /// Reads an `Mcp-Session-Id` value; `None` if it cannot be one this server minted.
    pub fn parse(value: &[u8]) -> Option<Self> {
        let value = super::header::trim_ows(value);
        let text: [u8; 2 * SESSION_ID_RANDOM_BYTES] = value.try_into().ok()?;
        // Every byte checked, without stopping at the first bad one: a fixed-length loop the
        // compiler turns into a few vector compares.
        let hex = text.iter().fold(true, |hex, &b| hex & (b.wrapping_sub(b'0') < 10 || b.wrapping_sub(b'a') < 6));
        hex.then_some(SessionId(text))
    }

    /// The header value.
    pub fn as_str(&self) -> &str {
        // Hex digits only, by construction.
        core::str::from_utf8(&self.0).unwrap_or("")
    }
}

impl fmt::Debug for SessionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // A session id is a bearer secret: only a prefix goes to logs.
        write!(f, "SessionId({}…)", self.as_str().get(..6).unwrap_or(""))
    }
}

impl fmt::Display for SessionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip_and_reject_foreign_values() {
        let id = SessionId::from_random([0xab; 16]);
        assert_eq!(id.as_str(), "ab".repeat(16));
        assert_eq!(SessionId::parse(id.as_str().as_bytes()), Some(id));
        assert_eq!(SessionId::parse(b" abababababababababababababababab "), Some(id));
        assert_eq!(SessionId::parse(b"ABABABABABABABABABABABABABABABAB"), None);
        assert_eq!(SessionId::parse(b"abc"), None);
        assert_eq!(SessionId::parse(&[b'a'; 33]), None);
        assert_eq!(std::format!("{id:?}"), "SessionId(ababab…)", "only a prefix of the secret");
        assert_eq!(std::format!("{id}"), id.as_str());
    }

    #[test]
    fn every_byte_but_lower_case_hex_is_refused_anywhere() {
        for at in 0..2 * SESSION_ID_RANDOM_BYTES {
            for byte in 0..=u8::MAX {
                let mut text = [b'0'; 2 * SESSION_ID_RANDOM_BYTES];
                text[at] = byte;
                let hex = matches!(byte, b'0'..=b'9' | b'a'..=b'f');
                assert_eq!(SessionId::parse(&text).is_some(), hex, "{byte:#x} at {at}");
            }
        }
    }
}
