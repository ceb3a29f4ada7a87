//! `completion/complete` (cargo feature `completion`).

use crate::json::{JsonStr, Kind};
use crate::jsonrpc::{Id, code};
use crate::server::dispatch::Parts;
use crate::server::handler::{CompletionRef, CompletionRequest, RequestContext};
use crate::server::params::Params;
use crate::server::reply::CompletionReply;
use crate::server::{Handler, MAX_ESCAPED_NAME_LEN};

impl<'s, 'a, H: Handler, const OUTBOUND: usize> Parts<'s, 'a, H, OUTBOUND> {
    /// `completion/complete`. The reference is found by comparing the request's (possibly escaped)
    /// name or URI template with each prompt's or template's; the handler is given the request's
    /// own text of each string when none has an escape (nearly always), so the common path holds
    /// no buffer, and unescaped copies otherwise ([`Self::complete_escaped`]).
    #[inline(never)] // An arm of `dispatch` in a frame of its own (see docs/firmware.md, "Stack").
    pub(crate) fn complete(&mut self, id: Id<'_>, params: &Params<'_>, context: RequestContext<'_>) {
        let reference = params.get("ref").filter(|r| r.kind() == Kind::Object);
        let kind = reference.and_then(|r| r.get("type")).and_then(|t| t.as_str());
        let prompt = match kind {
            Some(kind) if kind.eq_str("ref/prompt") => true,
            Some(kind) if kind.eq_str("ref/resource") => false,
            _ => {
                return self.reject(
                    Some(&id),
                    code::INVALID_PARAMS,
                    format_args!("\"ref\" must be a ref/prompt or ref/resource object"),
                );
            }
        };
        let key = if prompt { "name" } else { "uri" };
        let Some(raw) = self.json_string(id, reference.and_then(|v| v.get(key)), key) else { return };
        let plain = raw.as_plain().is_some();
        let handler = &*self.handler;
        let index = match prompt {
            true => (0..).map_while(|i| handler.prompt(i).map(|p| raw.is(plain, p.name))).position(|hit| hit),
            false => (0..)
                .map_while(|i| handler.resource_template(i).map(|t| raw.is(plain, t.uri_template)))
                .position(|hit| hit),
        };
        let Some(index) = index else {
            return self.reject(Some(&id), code::INVALID_PARAMS, format_args!("no prompt or resource template {raw}"));
        };
        let argument = params.get("argument").filter(|a| a.kind() == Kind::Object);
        let Some(name) = self.json_string(id, argument.and_then(|v| v.get("name")), "name") else { return };
        let Some(value) = self.json_string(id, argument.and_then(|v| v.get("value")), "value") else { return };
        let texts = Texts { reference: raw, argument: name, value };
        match (raw.as_plain(), name.as_plain(), value.as_plain()) {
            (Some(reference), Some(argument), Some(value)) => {
                let found = Found { prompt, index, reference, argument, value };
                self.complete_found(id, params, context, found)
            }
            _ => self.complete_escaped(id, params, context, prompt, index, texts),
        }
    }

    /// `completion/complete` with a string that came escaped: each is unescaped into a buffer of
    /// its own (at most [`MAX_ESCAPED_NAME_LEN`] bytes, 64 for the argument's name), in this cold
    /// frame.
    #[cold]
    #[inline(never)]
    fn complete_escaped(
        &mut self,
        id: Id<'_>,
        params: &Params<'_>,
        context: RequestContext<'_>,
        prompt: bool,
        index: usize,
        texts: Texts<'_>,
    ) {
        let mut reference_buf = [0u8; MAX_ESCAPED_NAME_LEN];
        let mut argument_buf = [0u8; 64];
        let mut value_buf = [0u8; MAX_ESCAPED_NAME_LEN];
        let key = if prompt { "name" } else { "uri" };
        let Some(reference) = self.unescaped_param(id, texts.reference, key, &mut reference_buf) else { return };
        let Some(argument) = self.unescaped_param(id, texts.argument, "name", &mut argument_buf) else { return };
        let Some(value) = self.unescaped_param(id, texts.value, "value", &mut value_buf) else { return };
        self.complete_found(id, params, context, Found { prompt, index, reference, argument, value })
    }

    /// `completion/complete` of the reference `found` names.
    fn complete_found(&mut self, id: Id<'_>, params: &Params<'_>, context: RequestContext<'_>, found: Found<'_>) {
        let Found { prompt, index, reference, argument, value } = found;
        let reference = match prompt {
            true => CompletionRef::Prompt { index, name: reference },
            false => CompletionRef::ResourceTemplate { index, uri_template: reference },
        };
        let arguments = params.get("context").and_then(|c| c.get("arguments")).filter(|a| a.kind() == Kind::Object);
        let request = CompletionRequest { reference, argument, value, arguments, context };
        // Progress and log messages about a deferred completion, as for calls and reads.
        let notes = self.notes(&context);
        let (handler, _, out) = self.reply_parts(id, context.version, true);
        handler.complete(request, CompletionReply::new(out.with_notes(notes)));
    }
}

/// The strings of a completion request, as the request has them.
#[derive(Clone, Copy)]
struct Texts<'b> {
    reference: JsonStr<'b>,
    argument: JsonStr<'b>,
    value: JsonStr<'b>,
}

/// What a completion request names: the prompt (or resource template) at `index`, the name or
/// URI template it was named by, and the argument and its value so far.
struct Found<'b> {
    prompt: bool,
    index: usize,
    reference: &'b str,
    argument: &'b str,
    value: &'b str,
}
