//! Golden transcripts: what a client sends and what the server must answer, one line each.
//!
//! # Format
//!
//! A transcript is a UTF-8 text file (`golden/*.jsonl`), read line by line:
//!
//! - `> TEXT` — the client sends `TEXT` followed by `\n`.
//! - `>b TEXT` — the client sends the exact bytes of `TEXT` with two escapes decoded: `\xHH` is the
//!   byte `HH` (two hex digits) and `\\` is one backslash; any other backslash is an error. No line
//!   ending is added: write `\x0a` (or `\x0d\x0a`) for one. This spells invalid UTF-8, bare carriage
//!   returns, or a final line cut off by the end of input.
//! - `< TEXT` — the server answers with `TEXT` followed by `\n`. The `<` lines after a send are
//!   everything the server writes in answer to it (none for a notification, several for a batch),
//!   byte for byte and in order. What the server writes at the end of input counts with the last
//!   send.
//! - `#` starts a comment; blank lines are ignored. Both are kept when the file is regenerated.
//!
//! Every input line is given the time [`crate::driver::Clock::DEFAULT`] assigns to it (the first at
//! 1000 ms, then 250 ms more for each line), so time-dependent answers are reproducible.

use std::fmt::Write as _;

/// One line of a transcript.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Entry {
    /// A comment or a blank line, kept verbatim.
    Note(String),
    /// What the client sends.
    Send {
        /// The line as written in the file.
        written: String,
        /// The bytes on the wire.
        bytes: Vec<u8>,
    },
    /// One line the server must write, without its `\n`.
    Expect(String),
}

/// A parsed transcript.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Transcript {
    /// The lines, in order.
    pub entries: Vec<Entry>,
}

impl Transcript {
    /// Parses a transcript; the error names the line.
    pub fn parse(text: &str) -> Result<Transcript, String> {
        let mut entries = Vec::new();
        let mut sent = false;
        for (number, line) in text.lines().enumerate() {
            let number = number + 1;
            let entry = if line.is_empty() || line.starts_with('#') {
                Entry::Note(line.to_owned())
            } else if let Some(text) = line.strip_prefix("> ") {
                let mut bytes = text.as_bytes().to_vec();
                bytes.push(b'\n');
                Entry::Send { written: line.to_owned(), bytes }
            } else if let Some(text) = line.strip_prefix(">b ") {
                let bytes = decode_bytes(text).map_err(|e| format!("line {number}: {e}"))?;
                Entry::Send { written: line.to_owned(), bytes }
            } else if let Some(text) = line.strip_prefix("< ") {
                if !sent {
                    return Err(format!("line {number}: an answer before anything was sent"));
                }
                Entry::Expect(text.to_owned())
            } else {
                return Err(format!("line {number}: expected '> ', '>b ', '< ', '#' or a blank line: {line:?}"));
            };
            sent |= matches!(entry, Entry::Send { .. });
            entries.push(entry);
        }
        if !sent {
            return Err("the transcript sends nothing".to_owned());
        }
        Ok(Transcript { entries })
    }

    /// The bytes of each send, in order.
    pub fn inputs(&self) -> Vec<Vec<u8>> {
        self.entries
            .iter()
            .filter_map(|e| match e {
                Entry::Send { bytes, .. } => Some(bytes.clone()),
                _ => None,
            })
            .collect()
    }

    /// The expected answer lines of each send, in order.
    pub fn expected(&self) -> Vec<Vec<String>> {
        let mut out: Vec<Vec<String>> = Vec::new();
        for entry in &self.entries {
            match entry {
                Entry::Send { .. } => out.push(Vec::new()),
                Entry::Expect(line) => out.last_mut().expect("parse checks the order").push(line.clone()),
                Entry::Note(_) => {}
            }
        }
        out
    }

    /// Everything the server must write, as bytes.
    pub fn expected_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        for line in self.expected().iter().flatten() {
            out.extend_from_slice(line.as_bytes());
            out.push(b'\n');
        }
        out
    }

    /// The transcript text with the answers replaced by `answers` (one list per send): comments and
    /// sends stay where they are, each send's answers follow it.
    pub fn render_with(&self, answers: &[Vec<String>]) -> String {
        let mut text = String::new();
        let mut answers = answers.iter();
        for entry in &self.entries {
            match entry {
                Entry::Note(line) => writeln!(text, "{line}").expect("writing to a String"),
                Entry::Send { written, .. } => {
                    writeln!(text, "{written}").expect("writing to a String");
                    for answer in answers.next().expect("one list of answers per send") {
                        writeln!(text, "< {answer}").expect("writing to a String");
                    }
                }
                Entry::Expect(_) => {}
            }
        }
        text
    }
}

/// Decodes the text of a `>b` line.
pub fn decode_bytes(text: &str) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(text.len());
    let mut rest = text.as_bytes();
    while let Some((&byte, tail)) = rest.split_first() {
        if byte != b'\\' {
            out.push(byte);
            rest = tail;
            continue;
        }
        match tail {
            [b'\\', tail @ ..] => {
                out.push(b'\\');
                rest = tail;
            }
            [b'x', hi, lo, tail @ ..] => {
                let digit = |b: u8| char::from(b).to_digit(16).and_then(|d| u8::try_from(d).ok());
                let (Some(hi), Some(lo)) = (digit(*hi), digit(*lo)) else {
                    return Err("\\x must be followed by two hex digits".to_owned());
                };
                out.push(hi << 4 | lo);
                rest = tail;
            }
            _ => return Err("a backslash must start \\\\ or \\xHH in a '>b' line".to_owned()),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_lines_decode_their_two_escapes_only() {
        assert_eq!(decode_bytes(r#"{"a":"\xff"}\x0d\x0a"#).unwrap(), b"{\"a\":\"\xff\"}\r\n");
        assert_eq!(decode_bytes(r"\\x41").unwrap(), b"\\x41");
        assert_eq!(decode_bytes(r"\x4A\x4a").unwrap(), b"JJ");
        for bad in [r#"\""#, r"\n", r"\x4", r"\x+1", r"\xzz", "\\"] {
            assert!(decode_bytes(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn transcripts_parse_and_render_back() {
        let text = "# c\n> {\"id\":1}\n< {\"r\":1}\n< {\"r\":2}\n\n>b x\\x0a\n> n\n< {\"r\":3}\n";
        let transcript = Transcript::parse(text).unwrap();
        assert_eq!(transcript.inputs(), [b"{\"id\":1}\n".to_vec(), b"x\n".to_vec(), b"n\n".to_vec()]);
        assert_eq!(transcript.expected(), [vec!["{\"r\":1}", "{\"r\":2}"], vec![], vec!["{\"r\":3}"]]);
        assert_eq!(transcript.expected_bytes(), b"{\"r\":1}\n{\"r\":2}\n{\"r\":3}\n");
        assert_eq!(transcript.render_with(&transcript.expected()), text);
        let answers = [vec![], vec!["a".to_owned()], vec![]];
        assert_eq!(transcript.render_with(&answers), "# c\n> {\"id\":1}\n\n>b x\\x0a\n< a\n> n\n");
    }

    #[test]
    fn malformed_transcripts_are_refused() {
        for bad in ["< {}\n> {}\n", "# nothing sent\n", "> {}\nno prefix\n", ">b \\q\n", ">{}\n"] {
            assert!(Transcript::parse(bad).is_err(), "{bad:?}");
        }
    }
}
