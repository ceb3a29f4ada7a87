//! Protocol methods the engine answers from the handler's tables: `initialize`, `server/discover` and
//! the paginated list methods.

use crate::json::JsonWriter;
use crate::jsonrpc::{ErrorMessage, Id, code};
use crate::mcp::ClientCapabilities;
use crate::num::Decimal;
use crate::server::dispatch::Parts;
#[cfg(feature = "prompts")]
use crate::server::items::write_prompt;
use crate::server::items::{ItemError, write_tool};
#[cfg(feature = "resources")]
use crate::server::items::{write_resource, write_template};
use crate::server::params::Params;
use crate::server::{Event, Handler, Session};
use crate::text::Plain;
use crate::version::{Era, ProtocolVersion};

/// Room kept free at the end of a list page for `nextCursor`, cache hints and `_meta`, besides the
/// implementation info.
const PAGE_TAIL_RESERVE: usize = 160;

/// How long `write` makes its text, measured in `w`'s free room, which is then left as it was;
/// `usize::MAX` if it does not fit there.
fn written_len(w: &mut JsonWriter<'_>, write: impl FnOnce(&mut JsonWriter<'_>)) -> usize {
    let mark = w.len();
    write(w);
    let len = if w.is_overflowed() { usize::MAX } else { w.len() - mark };
    w.truncate(mark);
    len
}

/// Which kind of list is being written.
#[derive(Clone, Copy)]
enum ListKind {
    Tools,
    #[cfg(feature = "resources")]
    Resources,
    #[cfg(feature = "resources")]
    ResourceTemplates,
    #[cfg(feature = "prompts")]
    Prompts,
}

impl ListKind {
    fn field(self) -> &'static str {
        match self {
            ListKind::Tools => "tools",
            #[cfg(feature = "resources")]
            ListKind::Resources => "resources",
            #[cfg(feature = "resources")]
            ListKind::ResourceTemplates => "resourceTemplates",
            #[cfg(feature = "prompts")]
            ListKind::Prompts => "prompts",
        }
    }
}

impl<'s, 'a, H: Handler, const OUTBOUND: usize> Parts<'s, 'a, H, OUTBOUND> {
    /// `initialize`: negotiates a legacy version and opens the session.
    #[inline(never)] // Off the request path's frame (see docs/firmware.md, "Stack").
    pub(crate) fn initialize(&mut self, id: Id<'_>, params: &Params<'_>) {
        let requested = params.get("protocolVersion").and_then(|v| v.as_str());
        let Some(requested) = requested else {
            return self.reject(Some(&id), code::INVALID_PARAMS, format_args!("\"protocolVersion\" must be a string"));
        };
        let version = requested
            .as_plain()
            .and_then(ProtocolVersion::from_wire)
            .filter(|v| v.era() == Era::Legacy)
            .unwrap_or(ProtocolVersion::LATEST_LEGACY);
        let client_name = params.get("clientInfo").and_then(|info| info.get("name")).and_then(|name| name.as_str());
        let capabilities = self.capabilities();
        let client = params.get("capabilities").map(ClientCapabilities::from_value).unwrap_or_default();
        let (_, config, mut out) = self.reply_parts(id, version, false);
        out.field("protocolVersion");
        out.writer().string(version.as_str());
        out.field("capabilities");
        capabilities.write(out.writer(), version);
        out.field("serverInfo");
        config.server_info.write(out.writer(), version);
        if let Some(instructions) = config.instructions {
            out.field("instructions");
            out.writer().string(instructions);
        }
        out.finish(None);
        out.answered();
        *self.session = Session::Legacy {
            version,
            ready: false,
            client,
            log_level: crate::mcp::LoggingLevel::Debug,
            subscriptions: crate::server::subscriptions::UriSet::EMPTY,
        };
        self.handler.on_event(self.now, Event::SessionStarted { version, client_name });
    }

    /// `server/discover` (2026-07-28).
    #[cfg(feature = "modern")]
    #[inline(never)] // Off the request path's frame (see docs/firmware.md, "Stack").
    pub(crate) fn discover(&mut self, id: Id<'_>) {
        let capabilities = self.capabilities();
        let (_, config, mut out) = self.reply_parts(id, ProtocolVersion::LATEST, false);
        out.field("supportedVersions");
        out.writer().byte(b'[');
        let mut first = true;
        for version in ProtocolVersion::ALL.iter().rev().filter(|v| v.era() == Era::Modern) {
            out.writer().comma(&mut first);
            out.writer().string(version.as_str());
        }
        out.writer().byte(b']');
        out.field("capabilities");
        capabilities.write(out.writer(), ProtocolVersion::LATEST);
        if let Some(instructions) = config.instructions {
            out.field("instructions");
            out.writer().string(instructions);
        }
        out.finish(Some(config.list_cache));
        out.answered();
    }

    /// Reads `params.cursor`: a decimal item index this server handed out. Answers `-32602` and returns
    /// `None` when it is not one.
    pub(crate) fn cursor(&mut self, id: Id<'_>, params: &Params<'_>) -> Option<usize> {
        let Some(cursor) = params.get("cursor").filter(|c| !c.is_null()) else {
            return Some(0);
        };
        let parsed = cursor.as_str().and_then(|s| s.as_plain()).and_then(cursor_index);
        if parsed.is_none() {
            self.reject(Some(&id), code::INVALID_PARAMS, format_args!("invalid cursor"));
        }
        parsed
    }

    pub(crate) fn list_tools(&mut self, id: Id<'_>, params: &Params<'_>, version: ProtocolVersion) {
        self.list(id, params, version, ListKind::Tools)
    }

    #[cfg(feature = "resources")]
    pub(crate) fn list_resources(&mut self, id: Id<'_>, params: &Params<'_>, version: ProtocolVersion) {
        self.list(id, params, version, ListKind::Resources)
    }

    #[cfg(feature = "prompts")]
    pub(crate) fn list_prompts(&mut self, id: Id<'_>, params: &Params<'_>, version: ProtocolVersion) {
        self.list(id, params, version, ListKind::Prompts)
    }

    #[cfg(feature = "resources")]
    pub(crate) fn list_resource_templates(&mut self, id: Id<'_>, params: &Params<'_>, version: ProtocolVersion) {
        self.list(id, params, version, ListKind::ResourceTemplates)
    }

    /// Writes one page of a list. The page ends at `page_size` items, or earlier when the next item
    /// would not leave room for the end of the message; `nextCursor` then points at that item.
    #[inline(never)] // Off the request path's frame (see docs/firmware.md, "Stack").
    fn list(&mut self, id: Id<'_>, params: &Params<'_>, version: ProtocolVersion, kind: ListKind) {
        let Some(start) = self.cursor(id, params) else { return };
        let (handler, config, mut out) = self.reply_parts(id, version, false);
        let page_size = config.limits.page_size.max(1);
        // The tail repeats the implementation info (2026-07-28 `_meta`): its length as written.
        let reserve =
            PAGE_TAIL_RESERVE.saturating_add(written_len(out.writer(), |w| config.server_info.write(w, version)));
        out.field(kind.field());
        out.writer().byte(b'[');
        if start > 0 && !has_item(&*handler, kind, start) {
            // Cursors point at existing items; this one was not handed out by this server.
            return out.fail(code::INVALID_PARAMS, ErrorMessage::Named(format_args!("invalid cursor")), None);
        }
        let mut next = start;
        let mut next_cursor = None;
        loop {
            let mark = out.writer().len();
            let Some(result) = write_item(out.writer(), &*handler, kind, next, version, next > start) else {
                break;
            };
            if let Err(ItemError::InvalidSchema(name)) = result {
                return out.fail(
                    code::INTERNAL_ERROR,
                    ErrorMessage::Named(format_args!("tool {name} has an invalid JSON schema", name = Plain(name))),
                    None,
                );
            }
            if out.writer().is_overflowed() || out.writer().remaining() < reserve {
                if next == start {
                    return out.fail(
                        code::INTERNAL_ERROR,
                        ErrorMessage::Named(format_args!(
                            "list item {} does not fit the transmit window",
                            Decimal(next as u64)
                        )),
                        None,
                    );
                }
                out.writer().truncate(mark);
                next_cursor = Some(next);
                break;
            }
            next += 1;
            if next - start >= page_size {
                if has_item(&*handler, kind, next) {
                    next_cursor = Some(next);
                }
                break;
            }
        }
        out.writer().byte(b']');
        if let Some(cursor) = next_cursor {
            out.field("nextCursor");
            out.writer().string_fmt(format_args!("{}", Decimal(cursor as u64)));
        }
        out.finish(Some(config.list_cache));
    }
}

/// The index a cursor names: its text, decimal digits only (no sign, not empty), within `usize`.
/// (`str::parse` takes a sign too, and its code is several times this.)
fn cursor_index(text: &str) -> Option<usize> {
    if text.is_empty() {
        return None;
    }
    text.bytes().try_fold(0usize, |index, byte| {
        let digit = byte.wrapping_sub(b'0');
        if digit > 9 {
            return None;
        }
        index.checked_mul(10)?.checked_add(usize::from(digit))
    })
}

fn has_item<H: Handler>(handler: &H, kind: ListKind, index: usize) -> bool {
    match kind {
        ListKind::Tools => handler.tool(index).is_some(),
        #[cfg(feature = "resources")]
        ListKind::Resources => handler.resource(index).is_some(),
        #[cfg(feature = "resources")]
        ListKind::ResourceTemplates => handler.resource_template(index).is_some(),
        #[cfg(feature = "prompts")]
        ListKind::Prompts => handler.prompt(index).is_some(),
    }
}

/// Writes item `index` (preceded by a comma if `comma`); `None` past the end.
fn write_item<'h, H: Handler>(
    w: &mut JsonWriter<'_>,
    handler: &'h H,
    kind: ListKind,
    index: usize,
    version: ProtocolVersion,
    comma: bool,
) -> Option<Result<(), ItemError<'h>>> {
    let result = match kind {
        ListKind::Tools => {
            let tool = handler.tool(index)?;
            if comma {
                w.byte(b',');
            }
            write_tool(w, &tool, version)
        }
        #[cfg(feature = "resources")]
        ListKind::Resources => {
            let resource = handler.resource(index)?;
            if comma {
                w.byte(b',');
            }
            write_resource(w, &resource, version);
            Ok(())
        }
        #[cfg(feature = "resources")]
        ListKind::ResourceTemplates => {
            let template = handler.resource_template(index)?;
            if comma {
                w.byte(b',');
            }
            write_template(w, &template, version);
            Ok(())
        }
        #[cfg(feature = "prompts")]
        ListKind::Prompts => {
            let prompt = handler.prompt(index)?;
            if comma {
                w.byte(b',');
            }
            write_prompt(w, &prompt, version);
            Ok(())
        }
    };
    Some(result)
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::cursor_index;
    use std::string::ToString;

    #[test]
    fn a_cursor_is_decimal_digits_within_usize() {
        for (text, index) in [("0", Some(0)), ("12", Some(12)), ("007", Some(7)), ("", None), ("+1", None)] {
            assert_eq!(cursor_index(text), index, "{text:?}");
        }
        for bad in ["-1", "1a", " 1", "1 ", "1.0", "1e2", "x"] {
            assert_eq!(cursor_index(bad), None, "{bad:?}");
        }
        assert_eq!(cursor_index(&usize::MAX.to_string()), Some(usize::MAX));
        assert_eq!(cursor_index(&(u128::from(u64::MAX) + 1).to_string()), None);
        assert_eq!(cursor_index(&(usize::MAX as u128 + 1).to_string()), None);
    }
}
