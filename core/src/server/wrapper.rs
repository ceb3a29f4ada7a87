//! [`Wrapper`]: a handler around another one (to log its events, to count its calls, to hide some
//! of its tools) that changes only what it overrides.
//!
//! A wrapper written as a plain [`Handler`] must forward every method; one it forgets falls back
//! to `Handler`'s default and silently changes the server (a forgotten `tool` serves no tools, a
//! forgotten `capabilities` declares none). A [`Wrapper`] names its inner handler instead, and
//! every method it does not override goes there: it is a [`Handler`] through the blanket
//! implementation below.
//!
//! ```
//! use mcp_sansio::endpoint;
//! use mcp_sansio::server::{Event, Handler, Tool, Wrapper};
//! use mcp_sansio::time::Instant;
//!
//! struct App;
//! impl Handler for App {
//!     const TOOLS: &'static [Tool<'static>] = &[Tool::new("echo", "Echoes", r#"{"type":"object"}"#)];
//! }
//!
//! /// Counts rejected messages; everything else is the application's.
//! struct Counted<H> {
//!     inner: H,
//!     rejected: usize,
//! }
//!
//! impl<H: Handler> Wrapper for Counted<H> {
//!     type Inner = H;
//!     fn inner(&self) -> &H {
//!         &self.inner
//!     }
//!     fn inner_mut(&mut self) -> &mut H {
//!         &mut self.inner
//!     }
//!     fn on_event(&mut self, now: Instant, event: Event<'_>) {
//!         if matches!(event, Event::Endpoint(endpoint::Event::Rejected { .. })) {
//!             self.rejected += 1;
//!         }
//!         self.inner.on_event(now, event);
//!     }
//! }
//!
//! let counted = Counted { inner: App, rejected: 0 };
//! // (With both traits in scope, name the one meant: the engine calls `Handler`'s.)
//! assert_eq!(Handler::tool(&counted, 0).map(|tool| tool.name), Some("echo"), "the inner handler's tools");
//! assert!(Handler::capabilities(&counted).tools.is_some());
//! ```

use crate::endpoint::Response;
use crate::mcp::ServerCapabilities;
use crate::server::{
    CompletionReply, CompletionRequest, Event, Handler, ListChanges, Prompt, PromptGet, PromptReply, Resource,
    ResourceRead, ResourceReply, ResourceTemplate, Tool, ToolCall, ToolReply,
};
use crate::time::Instant;

/// A [`Handler`] that wraps [`Wrapper::Inner`]: every method it does not override is the inner
/// handler's (see the [module docs](self)).
pub trait Wrapper {
    /// The wrapped handler.
    type Inner: Handler;

    /// The wrapped handler.
    fn inner(&self) -> &Self::Inner;

    /// The wrapped handler, mutably.
    fn inner_mut(&mut self) -> &mut Self::Inner;

    /// [`Handler::capabilities`]; the inner handler's unless overridden.
    fn capabilities(&self) -> ServerCapabilities {
        self.inner().capabilities()
    }

    /// [`Handler::tool`]; the inner handler's unless overridden.
    fn tool(&self, index: usize) -> Option<Tool<'_>> {
        self.inner().tool(index)
    }

    /// [`Handler::resource`]; the inner handler's unless overridden.
    fn resource(&self, index: usize) -> Option<Resource<'_>> {
        self.inner().resource(index)
    }

    /// [`Handler::prompt`]; the inner handler's unless overridden.
    fn prompt(&self, index: usize) -> Option<Prompt<'_>> {
        self.inner().prompt(index)
    }

    /// [`Handler::resource_template`]; the inner handler's unless overridden.
    fn resource_template(&self, index: usize) -> Option<ResourceTemplate<'_>> {
        self.inner().resource_template(index)
    }

    /// [`Handler::call_tool`]; the inner handler's unless overridden.
    fn call_tool(&mut self, call: ToolCall<'_>, reply: ToolReply<'_>) {
        self.inner_mut().call_tool(call, reply)
    }

    /// [`Handler::read_resource`]; the inner handler's unless overridden.
    fn read_resource(&mut self, read: ResourceRead<'_>, reply: ResourceReply<'_>) {
        self.inner_mut().read_resource(read, reply)
    }

    /// [`Handler::get_prompt`]; the inner handler's unless overridden.
    fn get_prompt(&mut self, get: PromptGet<'_>, reply: PromptReply<'_>) {
        self.inner_mut().get_prompt(get, reply)
    }

    /// [`Handler::complete`]; the inner handler's unless overridden.
    fn complete(&mut self, request: CompletionRequest<'_>, reply: CompletionReply<'_>) {
        self.inner_mut().complete(request, reply)
    }

    /// [`Handler::take_list_changes`]; the inner handler's unless overridden.
    fn take_list_changes(&mut self) -> ListChanges {
        self.inner_mut().take_list_changes()
    }

    /// [`Handler::on_response`]; the inner handler's unless overridden.
    fn on_response(&mut self, now: Instant, response: Response<'_>) {
        self.inner_mut().on_response(now, response)
    }

    /// [`Handler::on_event`]; the inner handler's unless overridden.
    fn on_event(&mut self, now: Instant, event: Event<'_>) {
        self.inner_mut().on_event(now, event)
    }
}

/// Every [`Wrapper`] is a [`Handler`]: its own methods, which default to the inner handler's, and
/// the inner handler's static tables.
impl<W: Wrapper> Handler for W {
    const TOOLS: &'static [Tool<'static>] = W::Inner::TOOLS;
    const RESOURCES: &'static [Resource<'static>] = W::Inner::RESOURCES;
    const PROMPTS: &'static [Prompt<'static>] = W::Inner::PROMPTS;
    const RESOURCE_TEMPLATES: &'static [ResourceTemplate<'static>] = W::Inner::RESOURCE_TEMPLATES;

    fn capabilities(&self) -> ServerCapabilities {
        Wrapper::capabilities(self)
    }

    fn tool(&self, index: usize) -> Option<Tool<'_>> {
        Wrapper::tool(self, index)
    }

    fn resource(&self, index: usize) -> Option<Resource<'_>> {
        Wrapper::resource(self, index)
    }

    fn prompt(&self, index: usize) -> Option<Prompt<'_>> {
        Wrapper::prompt(self, index)
    }

    fn resource_template(&self, index: usize) -> Option<ResourceTemplate<'_>> {
        Wrapper::resource_template(self, index)
    }

    fn call_tool(&mut self, call: ToolCall<'_>, reply: ToolReply<'_>) {
        Wrapper::call_tool(self, call, reply)
    }

    fn read_resource(&mut self, read: ResourceRead<'_>, reply: ResourceReply<'_>) {
        Wrapper::read_resource(self, read, reply)
    }

    fn get_prompt(&mut self, get: PromptGet<'_>, reply: PromptReply<'_>) {
        Wrapper::get_prompt(self, get, reply)
    }

    fn complete(&mut self, request: CompletionRequest<'_>, reply: CompletionReply<'_>) {
        Wrapper::complete(self, request, reply)
    }

    fn take_list_changes(&mut self) -> ListChanges {
        Wrapper::take_list_changes(self)
    }

    fn on_response(&mut self, now: Instant, response: Response<'_>) {
        Wrapper::on_response(self, now, response)
    }

    fn on_event(&mut self, now: Instant, event: Event<'_>) {
        Wrapper::on_event(self, now, event)
    }
}

#[cfg(all(test, feature = "modern", feature = "resources"))]
mod tests {
    use super::*;
    use crate::connection::Connection;
    use crate::server::{Buffers, Config, Server};

    /// A dynamic handler: tables by method, not by constant.
    struct Dynamic {
        events: usize,
    }

    impl Handler for Dynamic {
        /// A dynamic table: its capabilities are declared.
        fn capabilities(&self) -> ServerCapabilities {
            ServerCapabilities::NONE.with_tools(Default::default()).with_resources(Default::default())
        }

        fn tool(&self, index: usize) -> Option<Tool<'_>> {
            (index < 2).then(|| Tool::new(["a", "b"][index], "", "{\"type\":\"object\"}"))
        }
        fn resource(&self, index: usize) -> Option<Resource<'_>> {
            (index == 0).then_some(Resource { uri: "test://r", name: "r", ..Resource::EMPTY })
        }
        fn call_tool(&mut self, call: ToolCall<'_>, reply: ToolReply<'_>) {
            reply.text(call.name).finish();
        }
        fn on_event(&mut self, _now: Instant, _event: Event<'_>) {
            self.events += 1;
        }
    }

    /// Overrides nothing but its inner handler.
    struct Plain(Dynamic);

    impl Wrapper for Plain {
        type Inner = Dynamic;
        fn inner(&self) -> &Dynamic {
            &self.0
        }
        fn inner_mut(&mut self) -> &mut Dynamic {
            &mut self.0
        }
    }

    #[test]
    fn a_wrapper_that_overrides_nothing_serves_what_its_inner_handler_serves() {
        let wrapped = Plain(Dynamic { events: 0 });
        let names: std::vec::Vec<_> = (0..).map_while(|i| Handler::tool(&wrapped, i)).map(|t| t.name).collect();
        assert_eq!(names, ["a", "b"]);
        assert_eq!(Handler::resource(&wrapped, 0).map(|r| r.uri), Some("test://r"));
        assert_eq!(Handler::capabilities(&wrapped), Handler::capabilities(&wrapped.0));
        assert!(Handler::capabilities(&wrapped).tools.is_some() && Handler::capabilities(&wrapped).resources.is_some());

        let (mut rx, mut tx) = ([0u8; 1024], [0u8; 2048]);
        let mut server: Server<'_, Plain> =
            Server::new(wrapped, Config::new("w", "1"), Buffers { rx: &mut rx, tx: &mut tx });
        let call = crate::server::tests_wire::modern(1, "tools/call", r#""name":"b""#) + "\n";
        assert_eq!(server.handle_input(Instant::ZERO, call.as_bytes()), call.len());
        let out = server.engine().poll_transmit().expect("an answer").bytes.to_vec();
        let out = &out[..];
        assert!(
            out.windows(3).any(|w| w == b"\"b\""),
            "the inner handler ran the tool: {}",
            std::string::String::from_utf8_lossy(out)
        );
        assert!(!out.windows(7).any(|w| w == b"isError"), "{}", std::string::String::from_utf8_lossy(out));
        let n = out.len();
        Connection::transmit_done(&mut server, Instant::ZERO, n);
        let _ = server.handle_input(Instant::ZERO, b"not json\n");
        assert!(server.handler().0.events > 0, "events reach the inner handler");
    }
}
