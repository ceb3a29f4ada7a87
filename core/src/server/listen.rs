//! Subscriptions (cargo feature `subscriptions`): legacy `resources/subscribe` and
//! `resources/unsubscribe`, and 2026-07-28 `subscriptions/listen`.

use crate::json::{JsonStr, JsonWriter, Kind, Value};
use crate::jsonrpc::{self, ErrorMessage, Id, OwnedId, code};
use crate::num::Decimal;
#[cfg(feature = "resources")]
use crate::server::Session;
use crate::server::dispatch::Parts;
use crate::server::handler::RequestContext;
use crate::server::params::Params;
use crate::server::reply::{InFlight, Notes, ReplyKind};
use crate::server::subscriptions::{Listen, write_subscription_meta};
use crate::server::{Handler, MAX_ESCAPED_NAME_LEN};

impl<'s, 'a, H: Handler, const OUTBOUND: usize> Parts<'s, 'a, H, OUTBOUND> {
    #[cfg(feature = "resources")]
    /// `resources/subscribe` and `resources/unsubscribe` (legacy).
    pub(crate) fn subscribe(&mut self, id: Id<'_>, params: &Params<'_>, context: RequestContext<'_>, subscribe: bool) {
        let mut buf = [0u8; MAX_ESCAPED_NAME_LEN];
        let Some((_, uri)) = self.string_param(id, params.get("uri"), "uri", &mut buf) else { return };
        let Session::Legacy { subscriptions, .. } = self.session else { return };
        if subscribe && !subscriptions.insert(uri) {
            return self.reject(
                Some(&id),
                code::INTERNAL_ERROR,
                format_args!(
                    "at most {} resource subscriptions per session",
                    Decimal(crate::server::MAX_SUBSCRIPTIONS as u64)
                ),
            );
        }
        if !subscribe {
            subscriptions.remove(uri);
        }
        self.empty_result(id, context.version);
    }

    /// `subscriptions/listen` (2026-07-28): acknowledges what the server honours, then keeps the
    /// request open in an in-flight slot.
    #[inline(never)] // An arm of `dispatch` in a frame of its own (see docs/firmware.md, "Stack").
    pub(crate) fn listen(&mut self, id: Id<'_>, params: &Params<'_>, context: RequestContext<'_>) {
        let Some(notifications) = params.get("notifications").filter(|n| n.kind() == Kind::Object) else {
            return self.reject(Some(&id), code::INVALID_PARAMS, format_args!("\"notifications\" must be an object"));
        };
        let Some(owned) = OwnedId::from_id(id) else {
            return self.reject(
                Some(&id),
                code::INTERNAL_ERROR,
                format_args!(
                    "request ids longer than {} bytes cannot be kept",
                    Decimal(crate::jsonrpc::MAX_ID_LEN as u64)
                ),
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
            ..Listen::default()
        };
        // The tasks it follows: those of the request's authorization context the table knows, if
        // the request declared the tasks extension.
        #[cfg(feature = "tasks")]
        let task_ids = filter.task_ids.filter(|_| context.client.tasks && self.tasks.is_some());
        #[cfg(feature = "tasks")]
        if let Some(table) = self.tasks.as_mut() {
            let now = self.now;
            let mut buf = [0u8; crate::server::tasks::TASK_ID_LEN];
            for_each_string(task_ids, &mut buf, |text, _| {
                if table.find(now, text.as_bytes()).is_some() {
                    listen.tasks.insert(text);
                }
            });
        }
        let Some(slot) = self.slots.iter().position(InFlight::is_free) else {
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
            jsonrpc::write_notification_params_head(w, "notifications/subscriptions/acknowledged");
            write_subscription_meta(w, &owned);
            w.raw(b",\"notifications\":{");
            let mut first = true;
            let mut flag = |w: &mut JsonWriter<'_>, name: &str, on: bool| {
                if on {
                    w.next_key(&mut first, name);
                    w.raw(b"true");
                }
            };
            flag(w, "toolsListChanged", listen.tools);
            flag(w, "promptsListChanged", listen.prompts);
            flag(w, "resourcesListChanged", listen.resources);
            #[cfg(feature = "tasks")]
            if task_ids.is_some() {
                w.next_key(&mut first, "taskIds");
                w.byte(b'[');
                let mut written = crate::server::subscriptions::UriSet::EMPTY;
                let mut buf = [0u8; crate::server::tasks::TASK_ID_LEN];
                let mut first_id = true;
                for_each_string(task_ids, &mut buf, |text, raw| {
                    if listen.tasks.contains(text) && !written.contains(text) && written.insert(text) {
                        w.comma(&mut first_id);
                        w.json_str(raw);
                    }
                });
                w.byte(b']');
            }
            if subscribe && filter.uris.is_some() {
                w.next_key(&mut first, "resourceSubscriptions");
                w.byte(b'[');
                let mut first_uri = true;
                filter.for_each_uri(&mut uri_buf, |text, raw| {
                    if listen.uris.insert(text) {
                        w.comma(&mut first_uri);
                        w.json_str(raw);
                    }
                });
                w.byte(b']');
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
            notes: Notes::none(),
            listen: Some(listen),
            client: context.client,
            #[cfg(feature = "tasks")]
            task: None,
            replied: false,
        });
    }
}

/// What a listen request's `notifications` filter asks for.
pub(crate) struct Filter<'v> {
    pub(crate) tools: bool,
    pub(crate) prompts: bool,
    pub(crate) resources: bool,
    pub(crate) uris: Option<Value<'v>>,
    /// `taskIds` (the tasks extension).
    #[cfg(feature = "tasks")]
    pub(crate) task_ids: Option<Value<'v>>,
}

impl<'v> Filter<'v> {
    pub(crate) fn read(notifications: Value<'v>) -> Self {
        let flag = |name: &str| notifications.get(name).and_then(|v| v.as_bool()) == Some(true);
        Filter {
            tools: flag("toolsListChanged"),
            prompts: flag("promptsListChanged"),
            resources: flag("resourcesListChanged"),
            uris: notifications.get("resourceSubscriptions").filter(|v| v.kind() == Kind::Array),
            #[cfg(feature = "tasks")]
            task_ids: notifications.get("taskIds").filter(|v| v.kind() == Kind::Array),
        }
    }

    /// The URIs asked for, unescaped into `buf` one at a time (URIs longer than the buffer after
    /// unescaping are skipped).
    pub(crate) fn for_each_uri(&self, buf: &mut [u8], f: impl FnMut(&str, JsonStr<'v>)) {
        for_each_string(self.uris, buf, f)
    }
}

/// The strings of the array `list`, unescaped into `buf` one at a time (those longer than the
/// buffer after unescaping, and the elements that are not strings, are skipped).
fn for_each_string<'v>(list: Option<Value<'v>>, buf: &mut [u8], mut f: impl FnMut(&str, JsonStr<'v>)) {
    let Some(list) = list else { return };
    for item in list.elements().filter_map(|v| v.as_str()) {
        let text = match item.as_plain() {
            Some(plain) => Some(plain),
            None => item.unescape_into(buf),
        };
        if let Some(text) = text {
            f(text, item);
        }
    }
}
