//! Reading one top-level member of a document that cannot be parsed (nested too deep), without
//! parsing it: nested values are skipped by counting brackets, so there is no depth limit and the
//! work is one pass over the text. Used to keep the `id` in the error for such a request.

/// The raw text of the first top-level member `key` (compared with its escaped spelling) of the
/// object `text`; `None` if `text` is not an object up to that member.
pub fn peek_member<'a>(text: &'a [u8], key: &str) -> Option<&'a [u8]> {
    let mut at = skip_ws(text, 0);
    if text.get(at) != Some(&b'{') {
        return None;
    }
    at += 1;
    loop {
        at = skip_ws(text, at);
        let name_end = string_end(text, at)?;
        let name = text.get(at + 1..name_end - 1)?;
        at = skip_ws(text, name_end);
        if text.get(at) != Some(&b':') {
            return None;
        }
        let start = skip_ws(text, at + 1);
        let end = value_end(text, start)?;
        if name == key.as_bytes() {
            return text.get(start..end);
        }
        at = skip_ws(text, end);
        match text.get(at) {
            Some(b',') => at += 1,
            _ => return None,
        }
    }
}

fn skip_ws(text: &[u8], mut at: usize) -> usize {
    while matches!(text.get(at), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        at += 1;
    }
    at
}

/// The index after the string starting at `at` (its closing quote included).
fn string_end(text: &[u8], at: usize) -> Option<usize> {
    if text.get(at) != Some(&b'"') {
        return None;
    }
    let mut i = at + 1;
    loop {
        match text.get(i)? {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            _ => i += 1,
        }
    }
}

/// The index after the value starting at `at`.
fn value_end(text: &[u8], at: usize) -> Option<usize> {
    match text.get(at)? {
        b'"' => string_end(text, at),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut i = at;
            loop {
                match text.get(i)? {
                    b'"' => {
                        i = string_end(text, i)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(i + 1);
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
        }
        _ => {
            let len =
                text.get(at..)?.iter().position(|b| matches!(b, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r'));
            Some(at + len.unwrap_or(text.len() - at))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_are_found_before_and_after_deep_values() {
        let deep =
            std::format!(r#"{{"jsonrpc":"2.0","params":{}1{},"id":"x\"y"}}"#, "[".repeat(100_000), "]".repeat(100_000));
        assert_eq!(peek_member(deep.as_bytes(), "id"), Some(&br#""x\"y""#[..]));
        let first = std::format!(r#" {{ "id" : 17 , "params":{} }}"#, "{\"a\":".repeat(1000));
        assert_eq!(peek_member(first.as_bytes(), "id"), Some(&b"17"[..]));
        assert_eq!(peek_member(br#"{"a":"}","id":[1,{"b":"]"}]}"#, "id"), Some(&br#"[1,{"b":"]"}]"#[..]));
        for bad in [&b"[1]"[..], b"{", b"{\"id\"", b"{\"a\":1 \"id\":2}", b"", b"{\"a\":\"\\", b"{\"a\":[}"] {
            assert_eq!(peek_member(bad, "id"), None, "{:?}", std::str::from_utf8(bad));
        }
        assert_eq!(peek_member(b"{\"id\":5", "id"), Some(&b"5"[..]));
    }

    #[test]
    fn a_scalar_cut_off_by_the_end_of_the_text_runs_to_the_end() {
        // The scalar is the rest of the text: its end is the text's length, whatever the offset.
        assert_eq!(peek_member(b"{\"id\":12345", "id"), Some(&b"12345"[..]));
        assert_eq!(peek_member(b"{\"params\":[[[1]]], \"id\" : -2.5e3", "id"), Some(&b"-2.5e3"[..]));
    }
}
