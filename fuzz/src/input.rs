//! The byte format every fuzz target decodes its input with, and the encoder that writes seeds in it.
//!
//! A fuzz input is read front to back: fixed-size integers are little-endian, a byte string is a `u16`
//! length followed by that many bytes, and reading past the end yields zeros (or a shorter string), so
//! every byte sequence is a valid input. The format is deliberately tiny and owned by this crate: the
//! committed seeds and crash files stay meaningful whatever happens to third-party decoders, and the
//! seeds can be written by [`Encoder`] from spec messages and transcripts.

/// Reads fuzz input front to back; never fails.
#[derive(Clone, Debug)]
pub struct Input<'a> {
    data: &'a [u8],
}

impl<'a> Input<'a> {
    /// A reader over `data`.
    pub fn new(data: &'a [u8]) -> Self {
        Input { data }
    }

    /// Whether every byte was read.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// The next byte, or 0 past the end.
    pub fn byte(&mut self) -> u8 {
        match self.data.split_first() {
            Some((&first, rest)) => {
                self.data = rest;
                first
            }
            None => 0,
        }
    }

    /// The next two bytes as a little-endian `u16`.
    pub fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.byte(), self.byte()])
    }

    /// The next eight bytes as a little-endian `u64`.
    pub fn u64(&mut self) -> u64 {
        let mut bytes = [0u8; 8];
        for byte in &mut bytes {
            *byte = self.byte();
        }
        u64::from_le_bytes(bytes)
    }

    /// A number below `bound` (0 when `bound` is 0) read from one byte, or two when `bound > 256`.
    pub fn below(&mut self, bound: usize) -> usize {
        if bound == 0 {
            return 0;
        }
        let raw = if bound <= 256 { usize::from(self.byte()) } else { usize::from(self.u16()) };
        raw % bound
    }

    /// Up to `len` bytes (fewer at the end of the input).
    pub fn bytes(&mut self, len: usize) -> &'a [u8] {
        let (taken, rest) = self.data.split_at(len.min(self.data.len()));
        self.data = rest;
        taken
    }

    /// A byte string: a `u16` length, then that many bytes.
    pub fn chunk(&mut self) -> &'a [u8] {
        let len = usize::from(self.u16());
        self.bytes(len)
    }

    /// Everything not read yet.
    pub fn rest(&mut self) -> &'a [u8] {
        core::mem::take(&mut self.data)
    }
}

/// Writes inputs in the format [`Input`] reads (used to build the seed corpora).
#[derive(Clone, Debug, Default)]
pub struct Encoder {
    out: Vec<u8>,
}

impl Encoder {
    /// An empty input.
    pub fn new() -> Self {
        Encoder::default()
    }

    /// Appends one byte.
    pub fn byte(&mut self, value: u8) -> &mut Self {
        self.out.push(value);
        self
    }

    /// Appends a little-endian `u16`.
    pub fn u16(&mut self, value: u16) -> &mut Self {
        self.out.extend_from_slice(&value.to_le_bytes());
        self
    }

    /// Appends a little-endian `u64`.
    pub fn u64(&mut self, value: u64) -> &mut Self {
        self.out.extend_from_slice(&value.to_le_bytes());
        self
    }

    /// Appends bytes as they are (for a trailing [`Input::rest`]).
    pub fn bytes(&mut self, bytes: &[u8]) -> &mut Self {
        self.out.extend_from_slice(bytes);
        self
    }

    /// Appends a byte string read back by [`Input::chunk`] (at most `u16::MAX` bytes are kept).
    pub fn chunk(&mut self, bytes: &[u8]) -> &mut Self {
        let bytes = &bytes[..bytes.len().min(usize::from(u16::MAX))];
        self.u16(bytes.len() as u16);
        self.out.extend_from_slice(bytes);
        self
    }

    /// The encoded input.
    pub fn finish(&mut self) -> Vec<u8> {
        core::mem::take(&mut self.out)
    }
}

/// The bytes of a stream after its last newline: fed more bytes, it returns the lines they
/// complete (without their newline), in order. The `engine` and `client` targets keep one for
/// what the engine took and one for what it wrote.
#[derive(Debug, Default)]
pub struct LineTail(Vec<u8>);

impl LineTail {
    /// Appends `bytes`; the lines they complete.
    pub fn feed(&mut self, bytes: &[u8]) -> Vec<Vec<u8>> {
        let mut lines = Vec::new();
        for &byte in bytes {
            if byte == b'\n' {
                lines.push(std::mem::take(&mut self.0));
            } else {
                self.0.push(byte);
            }
        }
        lines
    }

    /// No partial line is held.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}
