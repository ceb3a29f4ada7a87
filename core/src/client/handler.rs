//! [`Handler`]: what a client application provides to its engine.

use crate::client::{Event, Notification};
use crate::endpoint::{OutboundKey, Response};
use crate::json::{JsonStr, JsonWriter, Value};
use crate::mcp::input::ReceivedInput;
use crate::time::Instant;

/// What [`Handler::on_input`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum InputAnswer {
    /// The result object was written (for elicitation, the user's decision: `{"action":"accept",
    /// "content":{…}}`, `{"action":"decline"}` or `{"action":"cancel"}`).
    Written,
    /// The client cannot answer it: the server gets the error `-32603`.
    Refused,
}

/// A client application: it receives the answers to its requests, the server's notifications,
/// and the server's requests for input. Every method has a default, so an application implements
/// only what it uses. The engine passes the handler to each call, so one handler may serve many
/// engines (one per server).
pub trait Handler {
    /// The answer to a request sent with [`Engine::request`](crate::client::Engine::request) or a
    /// typed helper, or its absence (timed out, input ended). Exactly one per request.
    fn on_response(&mut self, now: Instant, response: Response<'_>) {
        let _ = (now, response);
    }

    /// A notification from the server (progress, log messages, list changes, resource updates).
    fn on_notification(&mut self, now: Instant, notification: Notification<'_>) {
        let _ = (now, notification);
    }

    /// A notification on the `subscriptions/listen` stream `listen` (the key
    /// [`Engine::listen`](crate::client::Engine::listen) returned; the server names it in the
    /// notification's `_meta`), with its raw `method` and `params`. By default it is handled as
    /// any notification.
    fn on_listen_notification(
        &mut self,
        now: Instant,
        listen: OutboundKey,
        method: JsonStr<'_>,
        params: Option<Value<'_>>,
    ) {
        let _ = listen;
        self.on_notification(now, Notification::read(method, params));
    }

    /// The server asks for input (elicitation, sampling, roots): write the result object with
    /// `result` and return [`InputAnswer::Written`]. Only called for inputs whose capability the
    /// client declared ([`Config::capabilities`](crate::client::Config::capabilities)). The
    /// default refuses.
    fn on_input(&mut self, now: Instant, input: ReceivedInput<'_>, result: &mut JsonWriter<'_>) -> InputAnswer {
        let _ = (now, input, result);
        InputAnswer::Refused
    }

    /// Something the application may want to know or log.
    fn on_event(&mut self, now: Instant, event: Event<'_>) {
        let _ = (now, event);
    }
}

impl<H: Handler + ?Sized> Handler for &mut H {
    fn on_response(&mut self, now: Instant, response: Response<'_>) {
        (**self).on_response(now, response)
    }
    fn on_notification(&mut self, now: Instant, notification: Notification<'_>) {
        (**self).on_notification(now, notification)
    }
    fn on_listen_notification(
        &mut self,
        now: Instant,
        listen: OutboundKey,
        method: JsonStr<'_>,
        params: Option<Value<'_>>,
    ) {
        (**self).on_listen_notification(now, listen, method, params)
    }
    fn on_input(&mut self, now: Instant, input: ReceivedInput<'_>, result: &mut JsonWriter<'_>) -> InputAnswer {
        (**self).on_input(now, input, result)
    }
    fn on_event(&mut self, now: Instant, event: Event<'_>) {
        (**self).on_event(now, event)
    }
}
