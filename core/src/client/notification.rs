//! [`Notification`]: a notification from the server, as the client reads it.

use crate::json::{JsonStr, Kind, Value};
use crate::mcp::LoggingLevel;
use crate::mcp::meta::META_SUBSCRIPTION_ID;

/// A notification from the server, borrowed from the received message. Strings stay
/// [`JsonStr`]s (they may hold escapes).
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum Notification<'a> {
    /// `notifications/progress` of a request that asked for progress (its token is the request's
    /// id, see [`Engine::request_with_progress`](crate::client::Engine::request_with_progress)).
    /// Late ones, after the request's answer, still come here.
    Progress {
        /// The request's id, when the token is one of this client's.
        request: Option<i64>,
        /// Progress so far (increases with each notification), a JSON number: read it with
        /// [`Value::as_f64`] (kept as JSON so a client that only shows it parses no floats: their
        /// tables are about 14 KiB of flash).
        progress: Value<'a>,
        /// The total, if known (a JSON number).
        total: Option<Value<'a>>,
        /// A message for the user.
        message: Option<JsonStr<'a>>,
    },
    /// `notifications/message`: a log message.
    Log {
        /// Its severity (`None`: a level this crate does not know).
        level: Option<LoggingLevel>,
        /// The logger's name.
        logger: Option<JsonStr<'a>>,
        /// Whatever the server logged.
        data: Option<Value<'a>>,
    },
    /// `notifications/tools/list_changed`.
    ToolsChanged,
    /// `notifications/prompts/list_changed`.
    PromptsChanged,
    /// `notifications/resources/list_changed`.
    ResourcesChanged,
    /// `notifications/resources/updated`.
    ResourceUpdated {
        /// The resource's URI.
        uri: JsonStr<'a>,
    },
    /// `notifications/subscriptions/acknowledged`: a `subscriptions/listen` stream is open.
    ListenAcknowledged,
    /// Any other notification.
    Other {
        /// Its method.
        method: JsonStr<'a>,
        /// Its params.
        params: Option<Value<'a>>,
    },
}

impl<'a> Notification<'a> {
    /// Reads a notification from its `method` and `params`.
    pub fn read(method: JsonStr<'a>, params: Option<Value<'a>>) -> Self {
        let object = params.filter(|p| p.kind() == Kind::Object);
        let get = |key: &str| object.and_then(|p| p.get(key));
        let text = |key: &str| get(key).and_then(|v| v.as_str());
        let Some(name) = method.as_plain().and_then(|m| m.strip_prefix("notifications/")) else {
            return Notification::Other { method, params };
        };
        match name {
            "progress" => match get("progress").filter(|v| v.kind() == Kind::Number) {
                Some(progress) => Notification::Progress {
                    request: get("progressToken").and_then(|v| v.as_i64()),
                    progress,
                    total: get("total").filter(|v| v.kind() == Kind::Number),
                    message: text("message"),
                },
                None => Notification::Other { method, params },
            },
            "message" => Notification::Log {
                level: text("level").and_then(|l| l.as_plain()).and_then(LoggingLevel::from_wire),
                logger: text("logger"),
                data: get("data"),
            },
            "tools/list_changed" => Notification::ToolsChanged,
            "prompts/list_changed" => Notification::PromptsChanged,
            "resources/list_changed" => Notification::ResourcesChanged,
            "resources/updated" => match text("uri") {
                Some(uri) => Notification::ResourceUpdated { uri },
                None => Notification::Other { method, params },
            },
            "subscriptions/acknowledged" => Notification::ListenAcknowledged,
            _ => Notification::Other { method, params },
        }
    }

    /// The `subscriptions/listen` stream a notification of `params` belongs to: the listen
    /// request's id from `_meta`, if it is a number.
    pub fn subscription(params: Option<Value<'_>>) -> Option<i64> {
        params?.get("_meta")?.get(META_SUBSCRIPTION_ID)?.as_i64()
    }
}
