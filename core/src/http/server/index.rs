//! An index of the header fields the server's rules read, for servers that parse a request's
//! header list once and look its fields up many times.

use crate::http::name;

/// The header fields the HTTP rules read ([`name`]: `Host`, `Accept`, the `Mcp-*` headers…), found
/// in one pass over a request's header list, so that each of the rules' lookups of them costs a
/// comparison instead of a search: a [`Headers`] implementation fills one per request
/// ([`HeaderIndex::insert`] each field) and answers the names it holds from it
/// ([`HeaderIndex::lookup`]), others (`Mcp-Param-*`) as before. Names are compared
/// ASCII-case-insensitively; the first field of a name is its value, as [`Headers::get`]'s.
///
/// [`Headers`]: crate::http::Headers
/// [`Headers::get`]: crate::http::Headers::get
#[derive(Clone, Copy, Debug, Default)]
pub struct HeaderIndex<'a> {
    values: [Option<&'a [u8]>; INDEXED.len()],
    counts: [u32; INDEXED.len()],
}

/// The names a [`HeaderIndex`] holds; [`indexed_slot`] finds them.
const INDEXED: [&str; 11] = [
    name::HOST,
    name::ORIGIN,
    name::ACCEPT,
    name::CONTENT_TYPE,
    name::CONTENT_LENGTH,
    name::TRANSFER_ENCODING,
    name::SESSION_ID,
    name::LAST_EVENT_ID,
    name::PROTOCOL_VERSION,
    name::METHOD,
    name::NAME,
];

/// The slot of an indexed name in [`INDEXED`], compared ASCII-case-insensitively: picked by length
/// (and a first letter where two names share one), then compared once.
#[inline]
fn indexed_slot(name: &[u8]) -> Option<usize> {
    let first = name.first().map_or(0, |b| b.to_ascii_lowercase());
    let slot = match name.len() {
        4 => 0,
        6 if first == b'o' => 1,
        6 => 2,
        12 => 3,
        14 if first == b'c' => 4,
        17 => 5,
        14 => 6,
        13 => 7,
        20 => 8,
        10 => 9,
        8 => 10,
        _ => return None,
    };
    let expected = INDEXED.get(slot)?.as_bytes();
    // The rules look names up by these very constants: the same bytes, often at the same address.
    let same = core::ptr::eq(expected.as_ptr(), name.as_ptr()) || expected == name;
    (same || expected.eq_ignore_ascii_case(name)).then_some(slot)
}

impl<'a> HeaderIndex<'a> {
    /// An index of no field.
    pub const fn new() -> Self {
        HeaderIndex { values: [None; INDEXED.len()], counts: [0; INDEXED.len()] }
    }

    /// Records the field `name: value` if its name is one the index holds; returns whether it is.
    pub fn insert(&mut self, name: &[u8], value: &'a [u8]) -> bool {
        let Some(slot) = indexed_slot(name) else { return false };
        if let (Some(stored), Some(count)) = (self.values.get_mut(slot), self.counts.get_mut(slot)) {
            if stored.is_none() {
                *stored = Some(value);
            }
            *count = count.saturating_add(1);
        }
        true
    }

    /// The value of the first field named `name` (in lower case, as [`Headers::get`]'s), and how
    /// many fields have that name; `None` if the index does not hold that name (look it up in the
    /// header list).
    ///
    /// [`Headers::get`]: crate::http::Headers::get
    #[inline]
    pub fn lookup(&self, name: &str) -> Option<(Option<&'a [u8]>, usize)> {
        let slot = indexed_slot(name.as_bytes())?;
        Some((*self.values.get(slot)?, usize::try_from(*self.counts.get(slot)?).unwrap_or(usize::MAX)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_index_holds_the_first_value_and_the_count_of_each_standard_name() {
        let all = [
            name::PROTOCOL_VERSION,
            name::METHOD,
            name::NAME,
            name::SESSION_ID,
            name::LAST_EVENT_ID,
            name::ORIGIN,
            name::HOST,
            name::ACCEPT,
            name::CONTENT_TYPE,
            name::CONTENT_LENGTH,
            name::TRANSFER_ENCODING,
        ];
        let mut index = HeaderIndex::new();
        for (i, name) in all.iter().enumerate() {
            assert_eq!(index.lookup(name), Some((None, 0)), "{name}");
            assert!(index.insert(name.to_ascii_uppercase().as_bytes(), &b"first"[..]));
            assert!(index.insert(name.as_bytes(), &b"second"[..]));
            for (j, other) in all.iter().enumerate() {
                let expected = if j <= i { Some((Some(&b"first"[..]), 2)) } else { Some((None, 0)) };
                assert_eq!(index.lookup(other), expected, "{name} {other}");
            }
        }
        // Other names, including ones of the same lengths, are not held.
        for other in ["mcp-param-n", "x-host", "oRigix", "mcp-nam", "content-lengtx", "mcp-session-ix", ""] {
            assert!(!index.insert(other.as_bytes(), b"v"), "{other}");
            assert_eq!(index.lookup(&other.to_ascii_lowercase()), None, "{other}");
        }
    }
}
