//! The protocol methods beyond listing and calling: `completion/complete`, `logging/setLevel`,
//! `resources/subscribe`/`unsubscribe` and `subscriptions/listen`, and what a request opts into
//! (progress, log level).

use crate::json::{JsonWriter, Kind, Value};
use crate::jsonrpc::{self, ErrorMessage, Id, OwnedId, code};
use crate::mcp::meta::META_LOG_LEVEL;
use crate::mcp::{LoggingLevel, UriTemplate};
use crate::server::dispatch::{Parts, plain_or_unescaped};
use crate::server::handler::{CompletionRef, CompletionRequest, RequestContext};
use crate::server::params::Params;
use crate::server::reply::{CompletionReply, InFlight, Notes, ReplyId, ReplyKind};
use crate::server::subscriptions::{Filter, Listen, write_subscription_meta};
use crate::server::{Handler, MAX_ESCAPED_NAME_LEN, Session};
use crate::version::Era;

impl<'s, 'a, H: Handler, const OUTBOUND: usize> Parts<'s, 'a, H, OUTBOUND> {
    /// What a request opted into: progress (a `progressToken` in `_meta`) and log messages (the
    /// server declares `logging`, and the legacy session's level or the request's `logLevel` lets
    /// them through).
    pub(crate) fn notes<'x>(&self, context: &RequestContext<'x>) -> Notes<ReplyId<'x>> {
        let progress_token = context.progress_token.and_then(Id::from_value);
        let log_level = match (self.capabilities().logging, context.version.era()) {
            (false, _) => None,
            (true, Era::Modern) => context.log_level.and_then(level_of),
            (true, _) => match *self.session {
                Session::Legacy { log_level, .. } => Some(log_level),
                Session::None => None,
            },
        };
        Notes { progress_token: progress_token.map(ReplyId::Borrowed), last_progress: None, log_level }
    }

    /// Checks a modern request's `logLevel`: `false` (answered `-32602`) when it is not a level.
    pub(crate) fn check_log_level(&mut self, id: Id<'_>, level: Option<Value<'_>>) -> bool {
        match level {
            Some(level) if level_of(level).is_none() => {
                self.reject(
                    Some(&id),
                    code::INVALID_PARAMS,
                    format_args!("_meta \"{META_LOG_LEVEL}\" is not a log level"),
                );
                false
            }
            _ => true,
        }
    }

    /// `logging/setLevel` (legacy).
    pub(crate) fn set_level(&mut self, id: Id<'_>, params: &Params<'_>, context: RequestContext<'_>) {
        let Some(level) = params.get("level").and_then(level_of) else {
            return self.reject(
                Some(&id),
                code::INVALID_PARAMS,
                format_args!(
                    "\"level\" must be one of debug, info, notice, warning, error, critical, alert, emergency"
                ),
            );
        };
        if let Session::Legacy { log_level, .. } = self.session {
            *log_level = level;
        }
        let mut out = self.open(id, context.version);
        out.finish(None);
    }

    /// `resources/subscribe` and `resources/unsubscribe` (legacy).
    pub(crate) fn subscribe(&mut self, id: Id<'_>, params: &Params<'_>, context: RequestContext<'_>, subscribe: bool) {
        let mut buf = [0u8; MAX_ESCAPED_NAME_LEN];
        let Some((_, uri)) = self.string_param(id, params.get("uri"), "uri", &mut buf) else { return };
        let Session::Legacy { subscriptions, .. } = self.session else { return };
        if subscribe && !subscriptions.insert(uri) {
            return self.reject(
                Some(&id),
                code::INTERNAL_ERROR,
                format_args!("at most {} resource subscriptions per session", crate::server::MAX_SUBSCRIPTIONS),
            );
        }
        if !subscribe {
            subscriptions.remove(uri);
        }
        let mut out = self.open(id, context.version);
        out.finish(None);
    }

    /// `completion/complete`.
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

    /// `subscriptions/listen` (2026-07-28): acknowledges what the server honours, then keeps the
    /// request open in an in-flight slot.
    pub(crate) fn listen(&mut self, id: Id<'_>, params: &Params<'_>, context: RequestContext<'_>) {
        let Some(notifications) = params.get("notifications").filter(|n| n.kind() == Kind::Object) else {
            return self.reject(Some(&id), code::INVALID_PARAMS, format_args!("\"notifications\" must be an object"));
        };
        let Some(owned) = OwnedId::from_id(id) else {
            return self.reject(
                Some(&id),
                code::INTERNAL_ERROR,
                format_args!("request ids longer than {} bytes cannot be kept", crate::jsonrpc::MAX_ID_LEN),
            );
        };
        let capabilities = self.capabilities();
        let filter = Filter::read(notifications);
        let tools = capabilities.tools.is_some_and(|t| t.list_changed);
        let prompts = capabilities.prompts.is_some_and(|p| p.list_changed);
        let resources = capabilities.resources.is_some_and(|r| r.list_changed);
        let subscribe = capabilities.resources.is_some_and(|r| r.subscribe);
        let mut listen = Listen {
            tools: filter.tools && tools,
            prompts: filter.prompts && prompts,
            resources: filter.resources && resources,
            uris: Default::default(),
        };
        let Some(slot) = self.slots.iter().position(Option::is_none) else {
            return self.reject_with_data(
                Some(&id),
                code::INTERNAL_ERROR,
                ErrorMessage::Whole(format_args!("Server busy: too many requests in flight")),
                None,
            );
        };
        let route = self.route;
        // The acknowledgement: the honoured subset of the filter.
        let mut uri_buf = [0u8; MAX_ESCAPED_NAME_LEN];
        let written = self.write_notification(|w: &mut JsonWriter<'_>| {
            jsonrpc::write_notification_head(w);
            w.raw(b"\"notifications/subscriptions/acknowledged\",\"params\":{");
            write_subscription_meta(w, &owned);
            w.raw(b",\"notifications\":{");
            let mut first = true;
            for (name, on) in [
                ("toolsListChanged", listen.tools),
                ("promptsListChanged", listen.prompts),
                ("resourcesListChanged", listen.resources),
            ] {
                if on {
                    if !first {
                        w.raw(b",");
                    }
                    first = false;
                    w.string(name);
                    w.raw(b":true");
                }
            }
            if subscribe && filter.uris.is_some() {
                w.raw(if first { b"\"resourceSubscriptions\":[" } else { b",\"resourceSubscriptions\":[" });
                let mut first_uri = true;
                filter.for_each_uri(&mut uri_buf, |text, raw| {
                    if listen.uris.insert(text) {
                        if !first_uri {
                            w.raw(b",");
                        }
                        first_uri = false;
                        w.json_str(raw);
                    }
                });
                w.raw(b"]");
            }
            w.raw(b"}}}");
        });
        if !written {
            return self.reject(
                Some(&id),
                code::INTERNAL_ERROR,
                format_args!("the acknowledgement does not fit the transmit window"),
            );
        }
        let generation = *self.next_generation;
        *self.next_generation = generation.wrapping_add(1);
        self.slots[slot] = Some(InFlight {
            id: owned,
            kind: ReplyKind::Listen,
            version: context.version,
            route,
            generation,
            cancelled: false,
            notes: Notes::NONE,
            listen: Some(listen),
            client: context.client,
        });
    }
}

/// A log level value, if it is one.
fn level_of(value: Value<'_>) -> Option<LoggingLevel> {
    let text = value.as_str()?;
    let mut buf = [0u8; 16];
    plain_or_unescaped(text, &mut buf).and_then(LoggingLevel::from_wire)
}

/// The index of the first template `uri` matches.
pub(crate) fn matching_template<H: Handler>(handler: &H, uri: &str) -> Option<usize> {
    (0..)
        .map_while(|i| handler.resource_template(i).map(|t| (i, UriTemplate(t.uri_template).matches(uri).is_some())))
        .find(|(_, hit)| *hit)
        .map(|(i, _)| i)
}
