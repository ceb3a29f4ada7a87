//! Content metadata shared by tools, resources, prompts and content blocks: roles, annotations and
//! icons, and how each is written for a protocol version.

use crate::json::JsonWriter;
use crate::version::ProtocolVersion;

/// Who a message or a piece of content is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Role {
    /// The user.
    User,
    /// The assistant (the model).
    Assistant,
}

impl Role {
    /// The wire name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Assistant => "assistant",
        }
    }
}

/// Importance from 0 (least) to 1 (most), in thousandths: the `priority` of [`Annotations`], kept as
/// an integer so that writing it needs no floating point (which costs a firmware a kilobyte and more).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Priority(u16);

impl Priority {
    /// 0: the least important.
    pub const LOWEST: Priority = Priority(0);
    /// 1: effectively required.
    pub const HIGHEST: Priority = Priority(1000);

    /// `value` clamped to 0..=1 and rounded to thousandths (NaN is 0). Evaluated in a `const`, it
    /// costs no floating point at run time: `const HIGH: Priority = Priority::new(0.8);`.
    pub const fn new(value: f32) -> Self {
        // `as` saturates, and NaN becomes 0.
        Priority((value.clamp(0.0, 1.0) * 1000.0 + 0.5) as u16)
    }

    /// `thousandths` of 1, at most 1000.
    pub const fn from_thousandths(thousandths: u16) -> Self {
        Priority(if thousandths > 1000 { 1000 } else { thousandths })
    }

    /// The priority in thousandths: 0 to 1000.
    pub const fn thousandths(self) -> u16 {
        self.0
    }

    /// Writes the number with up to three decimals (`0`, `0.25`, `1`).
    fn write(self, w: &mut JsonWriter<'_>) {
        match self.0 {
            0 => w.byte(b'0'),
            1000.. => w.byte(b'1'),
            n => {
                let digits = [b'0' + (n / 100) as u8, b'0' + (n / 10 % 10) as u8, b'0' + (n % 10) as u8];
                let len = if digits[2] != b'0' {
                    3
                } else if digits[1] != b'0' {
                    2
                } else {
                    1
                };
                w.raw(b"0.");
                w.raw(&digits[..len]);
            }
        }
    }
}

/// Hints on how a client should use a resource or a content block (`annotations`), [built with `new` and `with_*`](crate::mcp#building-descriptors).
///
/// ```
/// use mcp_sansio::mcp::{Annotations, Priority, Role};
///
/// const HINTS: Annotations<'static> = Annotations::new()
///     .with_audience(&[Role::User])
///     .with_priority(Priority::HIGHEST)
///     .with_last_modified("2025-01-12T15:00:58Z");
/// assert_eq!(HINTS.audience, &[Role::User]);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Annotations<'a> {
    /// Who the content is meant for; empty: unspecified.
    pub audience: &'a [Role],
    /// Importance from 0 (least) to 1 (most).
    pub priority: Option<Priority>,
    /// ISO 8601 time of the last change (2025-06-18 and later), e.g. `"2025-01-12T15:00:58Z"`.
    pub last_modified: Option<&'a str>,
}

impl<'a> Annotations<'a> {
    /// No hints.
    pub const NONE: Annotations<'static> = Annotations::new();

    /// No hints (the same as [`NONE`](Self::NONE)), to start a `with_*` chain.
    pub const fn new() -> Self {
        Annotations { audience: &[], priority: None, last_modified: None }
    }

    /// Sets [`audience`](Self::audience).
    #[must_use]
    pub const fn with_audience(mut self, audience: &'a [Role]) -> Self {
        self.audience = audience;
        self
    }

    /// Sets [`priority`](Self::priority).
    #[must_use]
    pub const fn with_priority(mut self, priority: Priority) -> Self {
        self.priority = Some(priority);
        self
    }

    /// Sets [`last_modified`](Self::last_modified), an ISO 8601 time.
    #[must_use]
    pub const fn with_last_modified(mut self, last_modified: &'a str) -> Self {
        self.last_modified = Some(last_modified);
        self
    }

    fn is_empty(&self, version: ProtocolVersion) -> bool {
        self.audience.is_empty()
            && self.priority.is_none()
            && (self.last_modified.is_none() || !version.has_structured_content())
    }

    /// Writes `,"annotations":{…}` unless there is nothing to say in `version`.
    pub(crate) fn write_member(&self, w: &mut JsonWriter<'_>, version: ProtocolVersion) {
        if self.is_empty(version) {
            return;
        }
        w.raw(b",\"annotations\":{");
        let mut first = true;
        if !self.audience.is_empty() {
            w.next_key(&mut first, "audience");
            w.byte(b'[');
            for (i, role) in self.audience.iter().enumerate() {
                if i > 0 {
                    w.byte(b',');
                }
                w.string(role.as_str());
            }
            w.byte(b']');
        }
        if let Some(priority) = self.priority {
            w.next_key(&mut first, "priority");
            priority.write(w);
        }
        if let (Some(at), true) = (self.last_modified, version.has_structured_content()) {
            w.next_key(&mut first, "lastModified");
            w.string(at);
        }
        w.byte(b'}');
    }
}

/// The colour theme an icon is drawn for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Theme {
    /// For a light background.
    Light,
    /// For a dark background.
    Dark,
}

/// An icon for an implementation, tool, resource, template or prompt (2025-11-25 and later; left
/// out for older versions), [built with `new` and `with_*`](crate::mcp#building-descriptors).
///
/// ```
/// use mcp_sansio::mcp::{Icon, Theme};
///
/// static ICONS: [Icon<'static>; 1] =
///     [Icon::new("data:image/png;base64,iVBORw0KGgo=").with_mime_type("image/png").with_sizes(&["any"]).with_theme(Theme::Dark)];
/// assert_eq!(ICONS[0].theme, Some(Theme::Dark));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Icon<'a> {
    /// An `https:` or `data:` URI of the image.
    pub src: &'a str,
    /// Its MIME type, e.g. `image/png`.
    pub mime_type: Option<&'a str>,
    /// Sizes it is drawn for, e.g. `["48x48"]` or `["any"]`.
    pub sizes: &'a [&'a str],
    /// The theme it is drawn for.
    pub theme: Option<Theme>,
}

impl<'a> Icon<'a> {
    /// An icon with only its source.
    pub const fn new(src: &'a str) -> Self {
        Icon { src, mime_type: None, sizes: &[], theme: None }
    }

    /// Sets [`mime_type`](Self::mime_type).
    #[must_use]
    pub const fn with_mime_type(mut self, mime_type: &'a str) -> Self {
        self.mime_type = Some(mime_type);
        self
    }

    /// Sets [`sizes`](Self::sizes).
    #[must_use]
    pub const fn with_sizes(mut self, sizes: &'a [&'a str]) -> Self {
        self.sizes = sizes;
        self
    }

    /// Sets [`theme`](Self::theme).
    #[must_use]
    pub const fn with_theme(mut self, theme: Theme) -> Self {
        self.theme = Some(theme);
        self
    }
}

/// Writes `,"icons":[…]` when there are icons and `version` has them.
pub(crate) fn write_icons(w: &mut JsonWriter<'_>, icons: &[Icon<'_>], version: ProtocolVersion) {
    if icons.is_empty() || !version.has_icons() {
        return;
    }
    w.raw(b",\"icons\":[");
    for (i, icon) in icons.iter().enumerate() {
        if i > 0 {
            w.byte(b',');
        }
        w.raw(b"{\"src\":");
        w.string(icon.src);
        if let Some(mime_type) = icon.mime_type {
            w.member("mimeType");
            w.string(mime_type);
        }
        if !icon.sizes.is_empty() {
            w.raw(b",\"sizes\":[");
            for (j, size) in icon.sizes.iter().enumerate() {
                if j > 0 {
                    w.byte(b',');
                }
                w.string(size);
            }
            w.byte(b']');
        }
        if let Some(theme) = icon.theme {
            w.raw(match theme {
                Theme::Light => b",\"theme\":\"light\"",
                Theme::Dark => b",\"theme\":\"dark\"",
            });
        }
        w.byte(b'}');
    }
    w.byte(b']');
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::json::write::written_by as written;

    #[test]
    fn annotations_are_written_for_the_version() {
        let a = Annotations::new()
            .with_audience(&[Role::User, Role::Assistant])
            .with_priority(Priority::new(0.5))
            .with_last_modified("t");
        assert_eq!(
            written(|w| a.write_member(w, ProtocolVersion::V2025_11_25)),
            r#","annotations":{"audience":["user","assistant"],"priority":0.5,"lastModified":"t"}"#
        );
        assert_eq!(
            written(|w| a.write_member(w, ProtocolVersion::V2024_11_05)),
            r#","annotations":{"audience":["user","assistant"],"priority":0.5}"#
        );
        let only_time = Annotations::new().with_last_modified("t");
        assert_eq!(written(|w| only_time.write_member(w, ProtocolVersion::V2025_03_26)), "");
        assert_eq!(written(|w| Annotations::NONE.write_member(w, ProtocolVersion::LATEST)), "");
        // Any one hint is worth the member.
        let only_audience = Annotations::new().with_audience(&[Role::User]);
        assert_eq!(
            written(|w| only_audience.write_member(w, ProtocolVersion::V2024_11_05)),
            r#","annotations":{"audience":["user"]}"#
        );
        let only_priority = Annotations::new().with_priority(Priority::HIGHEST);
        assert_eq!(
            written(|w| only_priority.write_member(w, ProtocolVersion::V2024_11_05)),
            r#","annotations":{"priority":1}"#
        );
        assert_eq!(
            written(|w| only_time.write_member(w, ProtocolVersion::V2025_06_18)),
            r#","annotations":{"lastModified":"t"}"#
        );
    }

    #[test]
    fn priorities_are_written_as_short_decimals() {
        for (value, text) in [
            (0.0, "0"),
            (1.0, "1"),
            (0.5, "0.5"),
            (0.25, "0.25"),
            (0.125, "0.125"),
            (0.0004, "0"),
            (2.0, "1"),
            (-1.0, "0"),
            (f32::NAN, "0"),
            (0.9996, "1"),
            (0.05, "0.05"),
        ] {
            assert_eq!(written(|w| Priority::new(value).write(w)), text, "{value}");
        }
        assert_eq!(Priority::new(0.25), Priority::from_thousandths(250));
        assert_eq!(Priority::from_thousandths(1001), Priority::HIGHEST);
        assert_eq!(Priority::new(0.0).thousandths(), 0);
        assert_eq!(Priority::new(0.8).thousandths(), 800);
        assert_eq!(written(|w| Priority::from_thousandths(7).write(w)), "0.007");
        assert_eq!(written(|w| Priority::from_thousandths(70).write(w)), "0.07");
        assert_eq!(written(|w| Priority::from_thousandths(999).write(w)), "0.999");
    }

    #[test]
    fn icons_only_from_2025_11_25() {
        let icons = [Icon::new("data:,x").with_mime_type("image/png").with_sizes(&["any"]).with_theme(Theme::Dark)];
        assert_eq!(
            written(|w| write_icons(w, &icons, ProtocolVersion::V2025_11_25)),
            r#","icons":[{"src":"data:,x","mimeType":"image/png","sizes":["any"],"theme":"dark"}]"#
        );
        assert_eq!(written(|w| write_icons(w, &icons, ProtocolVersion::V2025_06_18)), "");
        let two = [Icon::new("a").with_sizes(&["16x16", "32x32"]).with_theme(Theme::Light), Icon::new("b")];
        assert_eq!(
            written(|w| write_icons(w, &two, ProtocolVersion::LATEST)),
            r#","icons":[{"src":"a","sizes":["16x16","32x32"],"theme":"light"},{"src":"b"}]"#
        );
        assert_eq!(written(|w| write_icons(w, &[], ProtocolVersion::LATEST)), "");
    }
}
