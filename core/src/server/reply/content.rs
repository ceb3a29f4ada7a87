//! Content blocks: what a tool result and a prompt message are made of.

use crate::json::JsonWriter;
use crate::mcp::{Annotations, Resource};
use crate::version::ProtocolVersion;

/// One content block of a tool result or a prompt message.
///
/// A block the negotiated version does not have is written as a text block saying what it was: an
/// audio block before 2025-03-26 becomes `"[audio/wav audio omitted]"`, a resource link before
/// 2025-06-18 becomes its URI. So every message stays valid for the client's version.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub enum Content<'a> {
    /// Text.
    Text(&'a str),
    /// An image; `data` is base64-encoded on the fly.
    Image {
        /// The image bytes.
        data: &'a [u8],
        /// Its MIME type, e.g. `image/png`.
        mime_type: &'a str,
    },
    /// Audio (2025-03-26 and later); `data` is base64-encoded on the fly.
    Audio {
        /// The audio bytes.
        data: &'a [u8],
        /// Its MIME type, e.g. `audio/wav`.
        mime_type: &'a str,
    },
    /// A link to a resource the client may read (2025-06-18 and later).
    ResourceLink(&'a Resource<'a>),
    /// The contents of a resource, embedded.
    Resource(ResourceContents<'a>),
}

/// The contents of a resource: text or bytes.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub enum ResourceContents<'a> {
    /// Text contents.
    Text {
        /// The resource's URI.
        uri: &'a str,
        /// Its MIME type.
        mime_type: Option<&'a str>,
        /// The text.
        text: &'a str,
    },
    /// Binary contents, base64-encoded on the fly.
    Blob {
        /// The resource's URI.
        uri: &'a str,
        /// Its MIME type.
        mime_type: Option<&'a str>,
        /// The bytes.
        data: &'a [u8],
    },
}

impl ResourceContents<'_> {
    /// Writes `{"uri":…,"mimeType":…,"text"|"blob":…}`.
    pub(crate) fn write(&self, w: &mut JsonWriter<'_>) {
        let (uri, mime_type) = match *self {
            ResourceContents::Text { uri, mime_type, .. } | ResourceContents::Blob { uri, mime_type, .. } => {
                (uri, mime_type)
            }
        };
        w.raw(b"{\"uri\":");
        w.string(uri);
        if let Some(mime_type) = mime_type {
            w.raw(b",\"mimeType\":");
            w.string(mime_type);
        }
        match *self {
            ResourceContents::Text { text, .. } => {
                w.raw(b",\"text\":");
                w.string(text);
            }
            ResourceContents::Blob { data, .. } => {
                w.raw(b",\"blob\":");
                w.base64_string(data);
            }
        }
        w.raw(b"}");
    }
}

/// Writes one content block for `version`.
pub(crate) fn write_block(
    w: &mut JsonWriter<'_>,
    content: &Content<'_>,
    annotations: &Annotations<'_>,
    version: ProtocolVersion,
) {
    match *content {
        Content::Text(text) => {
            w.raw(b"{\"type\":\"text\",\"text\":");
            w.string(text);
        }
        Content::Image { data, mime_type } => binary(w, b"{\"type\":\"image\",\"data\":", data, mime_type),
        Content::Audio { data, mime_type } if version.has_audio() => {
            binary(w, b"{\"type\":\"audio\",\"data\":", data, mime_type)
        }
        Content::Audio { mime_type, .. } => {
            w.raw(b"{\"type\":\"text\",\"text\":");
            w.string_fmt(format_args!("[{mime_type} audio omitted]"));
        }
        Content::ResourceLink(resource) if version.has_resource_links() => {
            w.raw(b"{\"type\":\"resource_link\"");
            crate::server::items::write_resource_fields(w, resource, version, false);
        }
        Content::ResourceLink(resource) => {
            w.raw(b"{\"type\":\"text\",\"text\":");
            w.string(resource.uri);
        }
        Content::Resource(contents) => {
            w.raw(b"{\"type\":\"resource\",\"resource\":");
            contents.write(w);
        }
    }
    annotations.write_member(w, version);
    w.raw(b"}");
}

fn binary(w: &mut JsonWriter<'_>, head: &[u8], data: &[u8], mime_type: &str) {
    w.raw(head);
    w.base64_string(data);
    w.raw(b",\"mimeType\":");
    w.string(mime_type);
}
