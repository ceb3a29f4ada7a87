//! `completion/complete` (cargo feature `completion`).

use crate::json::Kind;
use crate::jsonrpc::{Id, code};
use crate::server::dispatch::Parts;
use crate::server::handler::{CompletionRef, CompletionRequest, RequestContext};
use crate::server::params::Params;
use crate::server::reply::CompletionReply;
use crate::server::{Handler, MAX_ESCAPED_NAME_LEN};

impl<'s, 'a, H: Handler, const OUTBOUND: usize> Parts<'s, 'a, H, OUTBOUND> {
    /// `completion/complete`.
    #[inline(never)] // An arm of `dispatch` in a frame of its own (see docs/firmware.md, "Stack").
    pub(crate) fn complete(&mut self, id: Id<'_>, params: &Params<'_>, context: RequestContext<'_>) {
        let reference = params.get("ref").filter(|r| r.kind() == Kind::Object);
        let kind = reference.and_then(|r| r.get("type")).and_then(|t| t.as_str());
        let mut name_buf = [0u8; MAX_ESCAPED_NAME_LEN];
        let found = match kind {
            Some(kind) if kind.eq_str("ref/prompt") => {
                let Some((raw, name)) =
                    self.string_param(id, reference.and_then(|v| v.get("name")), "name", &mut name_buf)
                else {
                    return;
                };
                let index =
                    (0..).map_while(|i| self.handler.prompt(i).map(|p| (i, p.name == name))).find(|(_, hit)| *hit);
                index.map(|(index, _)| CompletionRef::Prompt { index, name }).ok_or(raw)
            }
            Some(kind) if kind.eq_str("ref/resource") => {
                let Some((raw, uri)) =
                    self.string_param(id, reference.and_then(|v| v.get("uri")), "uri", &mut name_buf)
                else {
                    return;
                };
                let index = (0..)
                    .map_while(|i| self.handler.resource_template(i).map(|t| (i, t.uri_template == uri)))
                    .find(|(_, hit)| *hit);
                index.map(|(index, _)| CompletionRef::ResourceTemplate { index, uri_template: uri }).ok_or(raw)
            }
            _ => {
                return self.reject(
                    Some(&id),
                    code::INVALID_PARAMS,
                    format_args!("\"ref\" must be a ref/prompt or ref/resource object"),
                );
            }
        };
        let reference = match found {
            Ok(reference) => reference,
            Err(raw) => {
                return self.reject(
                    Some(&id),
                    code::INVALID_PARAMS,
                    format_args!("no prompt or resource template {raw}"),
                );
            }
        };
        let argument = params.get("argument").filter(|a| a.kind() == Kind::Object);
        let mut arg_buf = [0u8; 64];
        let Some((_, argument_name)) =
            self.string_param(id, argument.and_then(|v| v.get("name")), "name", &mut arg_buf)
        else {
            return;
        };
        let mut value_buf = [0u8; MAX_ESCAPED_NAME_LEN];
        let Some((_, value)) = self.string_param(id, argument.and_then(|v| v.get("value")), "value", &mut value_buf)
        else {
            return;
        };
        let arguments = params.get("context").and_then(|c| c.get("arguments")).filter(|a| a.kind() == Kind::Object);
        let request = CompletionRequest { reference, argument: argument_name, value, arguments, context };
        // Progress and log messages about a deferred completion, as for calls and reads.
        let notes = self.notes(&context);
        let (handler, _, out) = self.reply_parts(id, context.version, true);
        handler.complete(request, CompletionReply::new(out.with_notes(notes)));
    }
}
