//! Media types: what a `Content-Type` names ([`media_type_is`]) and what an `Accept` allows
//! ([`accepts`]). A server reads them from requests; a client writes the `Accept` the server reads
//! and reads the `Content-Type` of its answer.

use crate::http::header;

/// Whether a `Content-Type` value names `media` (parameters ignored, case-insensitive).
pub fn media_type_is(value: &[u8], media: &[u8]) -> bool {
    let essence = value.split(|&b| b == b';').next().unwrap_or(&[]);
    header::trim_ows(essence).eq_ignore_ascii_case(media)
}

/// Whether an `Accept` value (absent: anything) allows `media` (`type/subtype`), through an exact
/// entry, `type/*` or `*/*` whose `q` is not zero.
pub fn accepts(accept: Option<&[u8]>, media: &[u8]) -> bool {
    let Some(accept) = accept else { return true };
    accept.split(|&b| b == b',').map(entry_range).any(|range| range.is_some_and(|range| range_allows(range, media)))
}

/// What an `Accept` value allows of the two media types a POST is answered in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Accepted {
    pub(crate) json: bool,
    pub(crate) sse: bool,
}

/// [`accepts`] of `application/json` and of `text/event-stream`, in one pass over `accept`: each
/// media range is told by its length, then compared once (as [`range_allows`] would).
pub(crate) fn accepted(accept: Option<&[u8]>) -> Accepted {
    let Some(accept) = accept else { return Accepted { json: true, sse: true } };
    // What clients of the spec send (it tells them to accept both): read without splitting.
    if accept == b"application/json, text/event-stream" {
        return Accepted { json: true, sse: true };
    }
    let mut allowed = Accepted { json: false, sse: false };
    for range in accept.split(|&b| b == b',').filter_map(entry_range) {
        match range.len() {
            16 => allowed.json |= range.eq_ignore_ascii_case(b"application/json"),
            17 => allowed.sse |= range.eq_ignore_ascii_case(b"text/event-stream"),
            3 if range == b"*/*" => return Accepted { json: true, sse: true },
            13 => {
                allowed.json |=
                    range.ends_with(b"/*") && range.get(..11).is_some_and(|t| t.eq_ignore_ascii_case(b"application"))
            }
            6 => {
                allowed.sse |= range.ends_with(b"/*") && range.get(..4).is_some_and(|t| t.eq_ignore_ascii_case(b"text"))
            }
            _ => {}
        }
    }
    allowed
}

/// The media range of one entry of an `Accept` list, unless its `q` is zero.
fn entry_range(entry: &[u8]) -> Option<&[u8]> {
    if !entry.contains(&b';') {
        return Some(header::trim_ows(entry));
    }
    let mut parts = entry.split(|&b| b == b';');
    let range = header::trim_ows(parts.next().unwrap_or(&[]));
    let refused = parts.any(|p| {
        let p = header::trim_ows(p);
        p.len() >= 2 && p[..2].eq_ignore_ascii_case(b"q=") && p[2..].iter().all(|&b| matches!(b, b'0' | b'.'))
    });
    (!refused).then_some(range)
}

/// Whether a media range (`type/subtype`, `type/*`, `*/*`) covers `media`.
fn range_allows(range: &[u8], media: &[u8]) -> bool {
    let kind = media.split(|&b| b == b'/').next().unwrap_or(&[]);
    range.eq_ignore_ascii_case(media)
        || range == b"*/*"
        || (range.len() == kind.len() + 2
            && range[..kind.len()].eq_ignore_ascii_case(kind)
            && &range[kind.len()..] == b"/*")
}

#[cfg(test)]
mod tests {
    use super::*;

    const BOTH: &[u8] = b"application/json, text/event-stream";

    #[test]
    fn accept_ranges() {
        assert!(accepts(None, b"text/event-stream"));
        assert!(accepts(Some(b"*/*"), b"application/json"));
        assert!(accepts(Some(b"application/*;q=0.5"), b"application/json"));
        assert!(!accepts(Some(b"application/json;q=0"), b"application/json"));
        assert!(!accepts(Some(b"text/*"), b"application/json"));
        assert!(accepts(Some(b"text/html, Text/Event-Stream"), b"text/event-stream"));
        let values: [Option<&[u8]>; 9] = [
            None,
            Some(BOTH),
            Some(b"*/*"),
            Some(b"application/*;q=0.5, text/event-stream;q=0"),
            Some(b"text/*"),
            Some(b"application/json;q=0, */*"),
            Some(b"Application/JSON ; charset=utf-8"),
            Some(b""),
            Some(b"text/event-stream;q=0.0;x=1,application/json;Q=0.8"),
        ];
        for value in values {
            let one_pass = accepted(value);
            let each = (accepts(value, b"application/json"), accepts(value, b"text/event-stream"));
            assert_eq!((one_pass.json, one_pass.sse), each, "{value:?}");
        }
    }

    #[test]
    fn one_pass_accept_reading_agrees_with_each_range_read_alone() {
        let values: [&[u8]; 16] = [
            b"APPLICATION/*",
            b"abcdefghijk/*",
            b"text/**",
            b"TeXt/*",
            b"tex/*",
            b"*/*;q=0",
            b"*/*;q=0, application/json",
            b" */* ",
            b"*/**",
            b"application/jsonx, text/event-streamx",
            b"text/event-stream ; q=0.001",
            b",,, ,application/json,",
            b"application/json\t",
            b"text\t/*",
            b"image/*, text/*;q=0, application/*",
            b"*/x",
        ];
        for value in values {
            let one_pass = accepted(Some(value));
            let each = (accepts(Some(value), b"application/json"), accepts(Some(value), b"text/event-stream"));
            assert_eq!((one_pass.json, one_pass.sse), each, "{value:?}");
        }
    }
}
