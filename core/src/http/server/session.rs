//! Minting legacy session ids: opening a legacy session is the server's.

use crate::http::session::{SESSION_ID_RANDOM_BYTES, SessionId};

/// Longest `Mcp-Session-Id` read from a request; longer ones name no session (404).
pub const MAX_SESSION_ID_LEN: usize = 64;

impl SessionId {
    /// The id for `random` (which must come from a CSPRNG: the id is the session's only secret).
    pub fn from_random(random: [u8; SESSION_ID_RANDOM_BYTES]) -> Self {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let mut text = [0u8; 2 * SESSION_ID_RANDOM_BYTES];
        for (i, b) in random.iter().enumerate() {
            text[2 * i] = HEX[usize::from(b >> 4)];
            text[2 * i + 1] = HEX[usize::from(b & 0xf)];
        }
        SessionId(text)
    }
}
