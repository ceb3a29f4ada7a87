//! Content blocks: what a tool result and a prompt message are made of.

use crate::json::JsonWriter;
use crate::mcp::{Annotations, Resource};
use crate::text::Plain;
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
            w.member("mimeType");
            w.string(mime_type);
        }
        match *self {
            ResourceContents::Text { text, .. } => {
                w.member("text");
                w.string(text);
            }
            ResourceContents::Blob { data, .. } => {
                w.member("blob");
                w.base64_string(data);
            }
        }
        w.byte(b'}');
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
            w.string_fmt(format_args!("[{mime_type} audio omitted]", mime_type = Plain(mime_type)));
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
    w.byte(b'}');
}

fn binary(w: &mut JsonWriter<'_>, head: &[u8], data: &[u8], mime_type: &str) {
    w.raw(head);
    w.base64_string(data);
    w.member("mimeType");
    w.string(mime_type);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::Role;

    fn block(content: Content<'_>, annotations: &Annotations<'_>, version: ProtocolVersion) -> serde_json::Value {
        let mut buf = [0u8; 512];
        let mut w = JsonWriter::new(&mut buf);
        write_block(&mut w, &content, annotations, version);
        serde_json::from_slice(w.written()).unwrap()
    }

    #[test]
    fn every_content_kind_is_written_or_downgraded_for_the_version() {
        use ProtocolVersion as V;
        use serde_json::json;
        let none = Annotations::NONE;
        assert_eq!(block(Content::Text("hi"), &none, V::V2024_11_05), json!({"type":"text","text":"hi"}));
        let image = Content::Image { data: b"png", mime_type: "image/png" };
        assert_eq!(block(image, &none, V::V2024_11_05), json!({"type":"image","data":"cG5n","mimeType":"image/png"}));
        let audio = Content::Audio { data: b"wav", mime_type: "audio/wav" };
        assert_eq!(block(audio, &none, V::V2025_03_26), json!({"type":"audio","data":"d2F2","mimeType":"audio/wav"}));
        assert_eq!(block(audio, &none, V::V2024_11_05), json!({"type":"text","text":"[audio/wav audio omitted]"}));
        let resource = crate::mcp::Resource::new("mem://a", "a").with_mime_type("text/plain");
        assert_eq!(
            block(Content::ResourceLink(&resource), &none, V::V2025_06_18),
            json!({"type":"resource_link","uri":"mem://a","name":"a","mimeType":"text/plain"})
        );
        assert_eq!(
            block(Content::ResourceLink(&resource), &none, V::V2025_03_26),
            json!({"type":"text","text":"mem://a"})
        );
        let text = ResourceContents::Text { uri: "mem://t", mime_type: Some("text/plain"), text: "t" };
        assert_eq!(
            block(Content::Resource(text), &none, V::V2024_11_05),
            json!({"type":"resource","resource":{"uri":"mem://t","mimeType":"text/plain","text":"t"}})
        );
        let blob = ResourceContents::Blob { uri: "mem://b", mime_type: None, data: &[0xff] };
        assert_eq!(
            block(Content::Resource(blob), &none, V::LATEST),
            json!({"type":"resource","resource":{"uri":"mem://b","blob":"/w=="}})
        );
        let annotated = Annotations::new().with_audience(&[Role::User]);
        assert_eq!(
            block(Content::Text("hi"), &annotated, V::LATEST),
            json!({"type":"text","text":"hi","annotations":{"audience":["user"]}})
        );
    }
}
