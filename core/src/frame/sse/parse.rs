//! Interpreting one complete SSE event in place: fields, data joined with LF, compaction.

/// A parsed event: ranges inside the event's bytes after compaction.
pub(super) struct Parsed {
    pub(super) data: (usize, usize),
    pub(super) has_data: bool,
    pub(super) event_type: (usize, usize),
    pub(super) id: Option<(usize, usize)>,
    pub(super) retry: Option<u64>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Field {
    Data,
    Event,
    Id,
    Retry,
    Ignored,
}

/// The line starting at `pos`: its end and where the next line starts (after CRLF, LF or CR).
fn line_at(bytes: &[u8], pos: usize) -> (usize, usize) {
    let rest = bytes.get(pos..).unwrap_or_default();
    match rest.iter().position(|&byte| byte == b'\r' || byte == b'\n') {
        None => (bytes.len(), bytes.len()),
        Some(offset) => {
            let end = pos + offset;
            let crlf = bytes.get(end..end.saturating_add(2)) == Some(b"\r\n");
            (end, end + if crlf { 2 } else { 1 })
        }
    }
}

/// The field of `line` and the range of its value inside it.
fn field_of(line: &[u8]) -> (Field, usize, usize) {
    let colon = line.iter().position(|&byte| byte == b':');
    let (name, mut value_start) = match colon {
        Some(0) => return (Field::Ignored, 0, 0),
        Some(colon) => (line.get(..colon).unwrap_or_default(), colon + 1),
        None => (line, line.len()),
    };
    if line.get(value_start) == Some(&b' ') {
        value_start += 1;
    }
    let value = line.get(value_start..).unwrap_or_default();
    let field = match name {
        b"data" => Field::Data,
        b"event" => Field::Event,
        b"id" if !value.contains(&0) => Field::Id,
        b"retry" if !value.is_empty() && value.iter().all(u8::is_ascii_digit) => Field::Retry,
        _ => Field::Ignored,
    };
    (field, value_start, line.len())
}

/// Moves `bytes[from.0..from.1]` to `to` (which is not after `from.0`); returns the moved length.
fn move_down(bytes: &mut [u8], from: (usize, usize), to: usize) -> usize {
    let len = from.1.saturating_sub(from.0);
    if to <= from.0 && from.1 <= bytes.len() {
        bytes.copy_within(from.0..from.1, to);
        len
    } else {
        0
    }
}

/// Interprets the complete lines of one event (everything before its blank line) and compacts it in
/// place: the data (lines joined with LF), then the chosen id, then the chosen event type. `None` if
/// the event has no effect. Three passes over the event, no allocation.
pub(super) fn parse_event(bytes: &mut [u8]) -> Option<Parsed> {
    // Pass 1: which `id` and `event` lines win (the last ones), and the retry value.
    let (mut id_line, mut type_line, mut retry, mut has_data) = (None, None, None, false);
    let mut pos = 0;
    while pos < bytes.len() {
        let (line_end, next) = line_at(bytes, pos);
        let line = bytes.get(pos..line_end).unwrap_or_default();
        let (field, value_start, _) = field_of(line);
        let value = line.get(value_start..).unwrap_or_default();
        match field {
            Field::Data => has_data = true,
            Field::Event => type_line = Some(pos),
            Field::Id => id_line = Some(pos),
            Field::Retry => {
                let parsed = value
                    .iter()
                    .fold(0u64, |total, &digit| total.saturating_mul(10).saturating_add(u64::from(digit - b'0')));
                retry = Some(parsed);
            }
            Field::Ignored => {}
        }
        pos = next;
    }
    if !has_data && id_line.is_none() && retry.is_none() {
        return None;
    }

    // Pass 2: move the data values, the winning id and the winning type down, in stream order. Every
    // line gives up at least its field name, so writing never overtakes reading.
    let (mut write, mut pos, mut first_data) = (0usize, 0usize, true);
    let (mut id, mut event_type) = (None, None);
    while pos < bytes.len() {
        let (line_end, next) = line_at(bytes, pos);
        let line = bytes.get(pos..line_end).unwrap_or_default();
        let (field, value_start, value_end) = field_of(line);
        let value = (pos + value_start, pos + value_end);
        match field {
            Field::Data => {
                if !core::mem::take(&mut first_data)
                    && let Some(separator) = bytes.get_mut(write)
                {
                    *separator = b'\n';
                    write += 1;
                }
                write += move_down(bytes, value, write);
            }
            Field::Id if id_line == Some(pos) => {
                let len = move_down(bytes, value, write);
                id = Some((write, len));
                write += len;
            }
            Field::Event if type_line == Some(pos) => {
                let len = move_down(bytes, value, write);
                event_type = Some((write, len));
                write += len;
            }
            _ => {}
        }
        pos = next;
    }

    // Pass 3: rotate the id, then the type, to the end of what was written: [data][id][type].
    let mut rotate_to_end = |piece: Option<(usize, usize)>| {
        if let Some((at, len)) = piece
            && let Some(segment) = bytes.get_mut(at..write)
            && len <= segment.len()
        {
            segment.rotate_left(len);
        }
    };
    rotate_to_end(id);
    let id_len = id.map_or(0, |(_, len)| len);
    let event_type = event_type.map(|(at, len)| match id {
        Some((id_at, _)) if id_at < at => (at - id_len, len),
        _ => (at, len),
    });
    rotate_to_end(event_type);
    let type_len = event_type.map_or(0, |(_, len)| len);
    let data_len = write.saturating_sub(id_len).saturating_sub(type_len);
    let id_start = data_len;
    let type_start = data_len + id_len;
    Some(Parsed {
        data: (0, data_len),
        has_data,
        event_type: (type_start, type_start + type_len),
        id: id.map(|_| (id_start, id_start + id_len)),
        retry,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn piece(bytes: &[u8], range: (usize, usize)) -> &[u8] {
        &bytes[range.0..range.1]
    }

    #[test]
    fn compacts_data_then_id_then_type_in_place() {
        let mut event = *b"event: t\nid: 1\ndata: a\nid: 22\r\n:c\ndata:b\revent: uu\nretry: 7\n";
        let parsed = parse_event(&mut event).expect("an event");
        assert_eq!(piece(&event, parsed.data), b"a\nb");
        assert_eq!(piece(&event, parsed.id.unwrap()), b"22");
        assert_eq!(piece(&event, parsed.event_type), b"uu");
        assert_eq!(&event[..7], b"a\nb22uu");
        assert!(parsed.has_data);
        assert_eq!(parsed.retry, Some(7));
    }

    #[test]
    fn an_event_without_data_id_or_retry_has_no_effect() {
        assert!(parse_event(&mut { *b"event: t\n:comment\nfoo: bar\nid: \0\nretry: x\n" }).is_none());
        assert!(parse_event(&mut []).is_none());
        let parsed = parse_event(&mut { *b"id\n" }).expect("an id resets");
        assert_eq!(parsed.id, Some((0, 0)));
        assert!(!parsed.has_data);
    }

    #[test]
    fn field_names_and_values() {
        assert!(field_of(b":data: x").0 == Field::Ignored);
        let (field, start, end) = field_of(b"data:  two");
        assert!(field == Field::Data);
        assert_eq!(&b"data:  two"[start..end], b" two");
        let (field, start, end) = field_of(b"data");
        assert!(field == Field::Data && start == end);
        assert!(field_of(b"retry:").0 == Field::Ignored);
        assert!(field_of(b"retry: 10").0 == Field::Retry);
        assert!(field_of(b"ID: 1").0 == Field::Ignored);
    }
}
