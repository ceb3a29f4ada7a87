//! `requestState` sealing (2026-07-28 multi-round-trip requests): the state a handler keeps across
//! rounds travels through the client, which must not be able to forge, alter or replay it.
//!
//! The engine hands the handler's state bytes to a [`StateSealer`] together with a [`StateBinding`]
//! (the request it belongs to and the time), writes the sealed bytes as base64, and on the retry
//! opens them again; state that fails to open is answered with `-32602`. [`HmacSealer`] (feature
//! `hmac`) is a ready sealer: HMAC-SHA-256 over the binding, an expiry and the state. Without a
//! sealer the state travels as plain base64: readable and forgeable by the client, so only for state
//! that would be harmless to receive made up.

use core::fmt;

use crate::time::Instant;

/// Longest state a handler may keep across rounds, in bytes (before sealing).
pub const MAX_REQUEST_STATE: usize = 256;
/// Longest sealed state the engine reads back (after base64 decoding).
pub const MAX_SEALED_STATE: usize = MAX_REQUEST_STATE + 64;

/// What a sealed state is bound to: the request it was made for, and when.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StateBinding<'a> {
    /// The request method (`tools/call`, `prompts/get`, `resources/read`).
    pub method: &'a str,
    /// The tool or prompt name, or the resource URI.
    pub name: &'a str,
    /// The time the engine was given with the request.
    pub now: Instant,
}

/// Why a sealed state was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum SealError {
    /// It was not made by this sealer for this request (tampered, forged, or for another request).
    Invalid,
    /// It was made for this request but has expired.
    Expired,
    /// It does not fit the buffer.
    TooLong,
}

impl fmt::Display for SealError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SealError::Invalid => "the request state failed verification",
            SealError::Expired => "the request state has expired",
            SealError::TooLong => "the request state is too long",
        })
    }
}

impl core::error::Error for SealError {}

/// Seals and opens `requestState`. `Sync`, so a configuration holding one can be shared across
/// threads.
pub trait StateSealer: fmt::Debug + Sync {
    /// Writes the sealed form of `state` for `binding` into `out`; its length, or `None` if it does
    /// not fit.
    fn seal(&self, binding: &StateBinding<'_>, state: &[u8], out: &mut [u8]) -> Option<usize>;

    /// Opens `sealed` for `binding` into `out`: the state, if it was sealed for this binding and is
    /// still valid.
    fn open<'o>(&self, binding: &StateBinding<'_>, sealed: &[u8], out: &'o mut [u8]) -> Result<&'o [u8], SealError>;
}

/// HMAC-SHA-256 (RFC 2104, on the `sha2` crate) sealing: `expiry (8 bytes, big-endian milliseconds) ‖ state ‖ tag (32 bytes)`, the
/// tag over a domain label, the binding's method and name, the expiry and the state. The state is
/// authenticated, not encrypted: do not keep secrets in it. Replays within the lifetime are
/// possible (bind what matters, e.g. a nonce the handler checks, into the state).
#[cfg(feature = "hmac")]
#[derive(Clone)]
pub struct HmacSealer {
    key: [u8; 32],
    lifetime: crate::time::Duration,
}

#[cfg(feature = "hmac")]
impl fmt::Debug for HmacSealer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never print the key.
        f.debug_struct("HmacSealer").field("lifetime", &self.lifetime).finish_non_exhaustive()
    }
}

#[cfg(feature = "hmac")]
impl HmacSealer {
    /// A sealer with a 32-byte secret key (from a CSPRNG; the same on every replica that may
    /// receive the retry) and the lifetime of a sealed state.
    pub const fn new(key: [u8; 32], lifetime: crate::time::Duration) -> Self {
        HmacSealer { key, lifetime }
    }
}

/// The tag of a sealed state: HMAC-SHA-256 with `key` over a domain label, the binding's method and
/// name, the expiry and the state.
#[cfg(feature = "hmac")]
fn tag(key: &[u8; 32], binding: &StateBinding<'_>, expiry: u64, state: &[u8]) -> [u8; 32] {
    let expiry = expiry.to_be_bytes();
    let parts: [&[u8]; 7] = [
        b"mcp-sansio requestState v1\0",
        binding.method.as_bytes(),
        b"\0",
        binding.name.as_bytes(),
        b"\0",
        &expiry,
        state,
    ];
    hmac_sha256(key, &parts)
}

/// Seals `state` with `key` for `lifetime` (the layout of [`HmacSealer`]).
#[cfg(feature = "hmac")]
fn seal_with(
    key: &[u8; 32],
    lifetime: crate::time::Duration,
    binding: &StateBinding<'_>,
    state: &[u8],
    out: &mut [u8],
) -> Option<usize> {
    let len = 8 + state.len() + 32;
    let out = out.get_mut(..len)?;
    let expiry = (binding.now + lifetime).as_millis();
    out[..8].copy_from_slice(&expiry.to_be_bytes());
    out[8..8 + state.len()].copy_from_slice(state);
    out[8 + state.len()..].copy_from_slice(&tag(key, binding, expiry, state));
    Some(len)
}

/// Opens `sealed` if one of `keys` sealed it for `binding` and it has not expired.
#[cfg(feature = "hmac")]
fn open_with<'o>(
    keys: &[[u8; 32]],
    binding: &StateBinding<'_>,
    sealed: &[u8],
    out: &'o mut [u8],
) -> Result<&'o [u8], SealError> {
    if sealed.len() < 40 {
        return Err(SealError::Invalid);
    }
    let (head, given) = sealed.split_at(sealed.len() - 32);
    let (expiry, state) = head.split_at(8);
    let mut expiry_bytes = [0u8; 8];
    expiry_bytes.copy_from_slice(expiry);
    let expiry = u64::from_be_bytes(expiry_bytes);
    // Constant-time comparison for each key: no early exit on the first differing byte.
    let matches =
        |key: &[u8; 32]| tag(key, binding, expiry, state).iter().zip(given).fold(0u8, |acc, (a, b)| acc | (a ^ b)) == 0;
    if !keys.iter().any(matches) {
        return Err(SealError::Invalid);
    }
    if binding.now.as_millis() > expiry {
        return Err(SealError::Expired);
    }
    let out = out.get_mut(..state.len()).ok_or(SealError::TooLong)?;
    out.copy_from_slice(state);
    Ok(out)
}

/// HMAC-SHA-256 (RFC 2104) of the concatenated `parts`, for a key of at most 64 bytes.
#[cfg(feature = "hmac")]
fn hmac_sha256(key: &[u8], parts: &[&[u8]]) -> [u8; 32] {
    use sha2::{Digest, Sha256};
    let mut inner_pad = [0x36u8; 64];
    let mut outer_pad = [0x5cu8; 64];
    for (i, k) in key.iter().take(64).enumerate() {
        inner_pad[i] ^= k;
        outer_pad[i] ^= k;
    }
    let mut inner = Sha256::new();
    inner.update(inner_pad);
    for part in parts {
        inner.update(part);
    }
    let mut outer = Sha256::new();
    outer.update(outer_pad);
    outer.update(inner.finalize());
    outer.finalize().into()
}

#[cfg(feature = "hmac")]
impl StateSealer for HmacSealer {
    fn seal(&self, binding: &StateBinding<'_>, state: &[u8], out: &mut [u8]) -> Option<usize> {
        seal_with(&self.key, self.lifetime, binding, state, out)
    }

    fn open<'o>(&self, binding: &StateBinding<'_>, sealed: &[u8], out: &'o mut [u8]) -> Result<&'o [u8], SealError> {
        open_with(core::slice::from_ref(&self.key), binding, sealed, out)
    }
}

/// [`HmacSealer`] with several keys: the first seals, every one opens. Replicas share the ring
/// (each configured with it), so that a retry sealed by one opens on another, and it rotates
/// without refusing a retry in flight, in three rollouts: add the new key last (every replica
/// opens what it seals), then make it first (it seals), then, once the old key's last state has
/// expired (the lifetime), drop the old key.
#[cfg(feature = "hmac")]
pub struct HmacKeyRing<'k> {
    keys: &'k [[u8; 32]],
    lifetime: crate::time::Duration,
}

#[cfg(feature = "hmac")]
impl fmt::Debug for HmacKeyRing<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never print the keys.
        f.debug_struct("HmacKeyRing").field("keys", &self.keys.len()).field("lifetime", &self.lifetime).finish()
    }
}

#[cfg(feature = "hmac")]
impl<'k> HmacKeyRing<'k> {
    /// A ring of `keys` (32 bytes each, from a CSPRNG; the first seals; none: nothing seals or
    /// opens) and the lifetime of a sealed state.
    pub const fn new(keys: &'k [[u8; 32]], lifetime: crate::time::Duration) -> Self {
        HmacKeyRing { keys, lifetime }
    }
}

#[cfg(feature = "hmac")]
impl StateSealer for HmacKeyRing<'_> {
    fn seal(&self, binding: &StateBinding<'_>, state: &[u8], out: &mut [u8]) -> Option<usize> {
        seal_with(self.keys.first()?, self.lifetime, binding, state, out)
    }

    fn open<'o>(&self, binding: &StateBinding<'_>, sealed: &[u8], out: &'o mut [u8]) -> Result<&'o [u8], SealError> {
        open_with(self.keys, binding, sealed, out)
    }
}

/// Decodes standard or URL-safe base64, padded or not, into `out`: [`SealError::Invalid`] if `text`
/// is not base64, [`SealError::TooLong`] if it does not fit.
#[cfg(feature = "input")]
pub(crate) fn decode_base64<'o>(text: &[u8], out: &'o mut [u8]) -> Result<&'o [u8], SealError> {
    let text = match text {
        [rest @ .., b'=', b'='] | [rest @ .., b'='] => rest,
        _ => text,
    };
    if text.len() % 4 == 1 {
        return Err(SealError::Invalid);
    }
    let mut len = 0;
    let mut acc = 0u32;
    let mut bits = 0;
    for &c in text {
        let value = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return Err(SealError::Invalid),
        };
        acc = (acc << 6) | u32::from(value);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            *out.get_mut(len).ok_or(SealError::TooLong)? = (acc >> bits) as u8;
            len += 1;
        }
    }
    Ok(&out[..len])
}

#[cfg(all(test, any(feature = "input", feature = "hmac")))]
mod tests {
    use super::*;

    #[cfg(feature = "input")]
    #[test]
    fn base64_decodes_what_the_writer_encodes() {
        let mut out = [0u8; 16];
        for (text, bytes) in [
            (&b""[..], &b""[..]),
            (b"Zg==", b"f"),
            (b"Zm8=", b"fo"),
            (b"Zm9v", b"foo"),
            (b"Zm9vYg", b"foob"),
            (b"_-8", &[0xff, 0xef][..]),
        ] {
            assert_eq!(decode_base64(text, &mut out), Ok(bytes), "{text:?}");
        }
        assert_eq!(decode_base64(b"Zm9v!", &mut out), Err(SealError::Invalid));
        assert_eq!(decode_base64(b"Z", &mut out), Err(SealError::Invalid));
        assert_eq!(decode_base64(b"Zm9vYmFyYmF6cXV4cXV1eHh4eHh4", &mut [0u8; 4]), Err(SealError::TooLong));
    }

    #[cfg(feature = "hmac")]
    #[test]
    fn hmac_matches_rfc_4231() {
        let hex = |s: &str| {
            (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect::<std::vec::Vec<_>>()
        };
        // Test cases 1 and 2.
        assert_eq!(
            hmac_sha256(&[0x0b; 20], &[b"Hi There"]).to_vec(),
            hex("b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        );
        assert_eq!(
            hmac_sha256(b"Jefe", &[b"what do ya want ", b"for nothing?"]).to_vec(),
            hex("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        );
    }

    #[cfg(feature = "hmac")]
    #[test]
    fn hmac_sealed_state_opens_only_for_its_request_and_lifetime() {
        use crate::time::Duration;
        let sealer = HmacSealer::new([7; 32], Duration::from_secs(60));
        let at = |ms| StateBinding { method: "tools/call", name: "reset", now: Instant::from_millis(ms) };
        let mut sealed = [0u8; 128];
        let n = sealer.seal(&at(1_000), b"round-1", &mut sealed).unwrap();
        let mut out = [0u8; 64];
        assert_eq!(sealer.open(&at(2_000), &sealed[..n], &mut out), Ok(&b"round-1"[..]));
        assert_eq!(sealer.open(&at(61_001), &sealed[..n], &mut out), Err(SealError::Expired));
        let other = StateBinding { name: "other", ..at(2_000) };
        assert_eq!(sealer.open(&other, &sealed[..n], &mut out), Err(SealError::Invalid));
        for i in 0..n {
            let mut tampered = sealed;
            tampered[i] ^= 1;
            assert_eq!(sealer.open(&at(2_000), &tampered[..n], &mut out), Err(SealError::Invalid), "byte {i}");
        }
        assert_eq!(sealer.open(&at(2_000), &sealed[..n - 1], &mut out), Err(SealError::Invalid));
        let wrong_key = HmacSealer::new([8; 32], Duration::from_secs(60));
        assert_eq!(wrong_key.open(&at(2_000), &sealed[..n], &mut out), Err(SealError::Invalid));
        assert!(!std::format!("{sealer:?}").contains('7'));
    }

    #[cfg(feature = "hmac")]
    #[test]
    fn a_key_ring_seals_with_its_first_key_and_opens_with_any_so_it_rotates_in_three_rollouts() {
        use crate::time::Duration;
        let (old, new) = ([1u8; 32], [2u8; 32]);
        let life = Duration::from_secs(60);
        let at = StateBinding { method: "tools/call", name: "reset", now: Instant::from_millis(1_000) };
        let seal = |sealer: &dyn StateSealer| {
            let mut sealed = [0u8; 128];
            let n = sealer.seal(&at, b"round-1", &mut sealed).unwrap();
            sealed[..n].to_vec()
        };
        let opens = |sealer: &dyn StateSealer, sealed: &[u8]| sealer.open(&at, sealed, &mut [0u8; 64]).is_ok();
        let (before, added, current, after) = ([old], [old, new], [new, old], [new]);
        let rings = [&before[..], &added[..], &current[..], &after[..]].map(|keys| HmacKeyRing::new(keys, life));
        // The first key seals, as HmacSealer with that key does.
        assert_eq!(seal(&rings[1]), seal(&HmacSealer::new(old, life)));
        assert_eq!(seal(&rings[2]), seal(&HmacSealer::new(new, life)));
        // During each rollout, replicas of the two stages next to each other open what the other seals.
        for pair in rings.windows(2) {
            assert!(opens(&pair[1], &seal(&pair[0])) && opens(&pair[0], &seal(&pair[1])));
        }
        // Not across two rollouts: the old key is gone, or the new one not yet known.
        assert!(!opens(&rings[3], &seal(&rings[0])) && !opens(&rings[0], &seal(&rings[3])));
        assert_eq!(HmacKeyRing::new(&[], life).seal(&at, b"x", &mut [0u8; 64]), None, "no key: nothing sealed");
        assert!(!opens(&HmacKeyRing::new(&[], life), &seal(&rings[0])));
    }
}
