//! Resources and resource templates as async functions ([`Router::resource`],
//! [`Router::resource_template`], and their `_with_context` forms taking the request's
//! [`Context`]): [`ResourceContents`] (or text) out.

use std::fmt;
use std::future::Future;
use std::sync::Arc;

use mcp_sansio::jsonrpc::code;
use mcp_sansio::server::{ResourceInfo, ResourceRead, ResourceReply, ResourceTemplate, TemplateInfo};
use serde::de::DeserializeOwned;

use crate::input::Input;
use crate::{Context, Router};

/// One contents of a resource: text or bytes, at a URI (the one read when `None`).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Contents {
    uri: Option<String>,
    mime_type: Option<String>,
    body: Body,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Body {
    Text(String),
    Blob(Vec<u8>),
}

/// What a resource function gives: one or several contents, each text or bytes (sent
/// base64-encoded), at the URI read or at another (the entries of a directory, say). A contents
/// without a MIME type of its own has the registration's.
///
/// ```
/// use mcp_sansio_router::ResourceContents;
///
/// let one = ResourceContents::text("# Notes");
/// let two = ResourceContents::new()
///     .text_at("file:///a.txt", "A")
///     .blob_at("file:///b.png", vec![0x89, b'P', b'N', b'G'])
///     .mime_type("image/png");
/// # let _ = (one, two);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[must_use]
pub struct ResourceContents {
    contents: Vec<Contents>,
}

impl ResourceContents {
    /// No contents yet (a resource must give at least one: none is answered `-32603`).
    pub fn new() -> Self {
        ResourceContents::default()
    }

    /// Text contents of the URI read.
    pub fn text(text: impl Into<String>) -> Self {
        ResourceContents::new().and_text(text)
    }

    /// Binary contents of the URI read.
    pub fn blob(data: impl Into<Vec<u8>>) -> Self {
        ResourceContents::new().and_blob(data)
    }

    /// Adds text contents of the URI read.
    pub fn and_text(self, text: impl Into<String>) -> Self {
        self.push(None, Body::Text(text.into()))
    }

    /// Adds binary contents of the URI read.
    pub fn and_blob(self, data: impl Into<Vec<u8>>) -> Self {
        self.push(None, Body::Blob(data.into()))
    }

    /// Adds text contents of `uri`.
    pub fn text_at(self, uri: impl Into<String>, text: impl Into<String>) -> Self {
        self.push(Some(uri.into()), Body::Text(text.into()))
    }

    /// Adds binary contents of `uri`.
    pub fn blob_at(self, uri: impl Into<String>, data: impl Into<Vec<u8>>) -> Self {
        self.push(Some(uri.into()), Body::Blob(data.into()))
    }

    /// Sets the MIME type of the contents added last (ignored while there is none).
    pub fn mime_type(mut self, mime_type: impl Into<String>) -> Self {
        if let Some(last) = self.contents.last_mut() {
            last.mime_type = Some(mime_type.into());
        }
        self
    }

    fn push(mut self, uri: Option<String>, body: Body) -> Self {
        self.contents.push(Contents { uri, mime_type: None, body });
        self
    }

    /// Writes the contents; `uri` is the one read, `mime_type` the registration's.
    fn write(&self, mut reply: ResourceReply<'_>, uri: &str, mime_type: Option<&str>) {
        for contents in &self.contents {
            let at = contents.uri.as_deref().unwrap_or(uri);
            let mime_type = contents.mime_type.as_deref().or(mime_type);
            reply = match &contents.body {
                Body::Text(text) => reply.text(at, mime_type, text),
                Body::Blob(data) => reply.blob(at, mime_type, data),
            };
        }
        reply.finish()
    }
}

/// What a resource function returns: [`ResourceContents`], text (`String`, `&'static str`: one
/// text contents of the URI read), or a `Result` of these whose `Err` is answered `-32603` with
/// its text.
pub trait ResourceOutput: Send + 'static {
    /// The contents, or the error's text.
    fn into_contents(self) -> Result<ResourceContents, String>;
}

impl ResourceOutput for ResourceContents {
    fn into_contents(self) -> Result<ResourceContents, String> {
        Ok(self)
    }
}

impl ResourceOutput for String {
    fn into_contents(self) -> Result<ResourceContents, String> {
        Ok(ResourceContents::text(self))
    }
}

impl ResourceOutput for &'static str {
    fn into_contents(self) -> Result<ResourceContents, String> {
        Ok(ResourceContents::text(self))
    }
}

impl<T: ResourceOutput, E: fmt::Display + Send + 'static> ResourceOutput for Result<T, E> {
    fn into_contents(self) -> Result<ResourceContents, String> {
        self.map_err(|error| error.to_string())?.into_contents()
    }
}

/// For `#[tools]`' `#[resource]` methods: what their registrations name, and the bounds of a
/// template's variables type, checked where it is written.
#[doc(hidden)]
pub mod __resource {
    pub use mcp_sansio::server::{ResourceInfo, TemplateInfo};

    /// A `#[resource(template = …)]` method's variables type.
    pub fn variables<V: serde::de::DeserializeOwned + Send + 'static>() {}
}

impl Router {
    /// Registers the resource `info` (its URI, name, and the title, description and MIME type to
    /// list): a read of its URI calls `function` and sends what it gives. A URI registered twice
    /// keeps the last registration. A URI that is neither a resource nor matches a template is
    /// answered as not found (`-32002`, or `-32602` in 2026-07-28).
    ///
    /// ```
    /// use mcp_sansio::server::ResourceInfo;
    /// use mcp_sansio_router::Router;
    ///
    /// let router = Router::new().resource(ResourceInfo::new("memo://today", "today"), || async {
    ///     "nothing planned"
    /// });
    /// ```
    pub fn resource<F, Fut, R>(self, info: ResourceInfo, function: F) -> Self
    where
        F: Fn() -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: ResourceOutput,
    {
        self.resource_with_context(info, move |_: Context| function())
    }

    /// [`Router::resource`] whose function gets the request's [`Context`]: progress, log
    /// messages, and questions to the client ([`Context::elicit`], …), in both eras as for tools
    /// (see [`input`](crate::input); in 2026-07-28 the read is answered `input_required` and its
    /// retry runs the function again).
    ///
    /// ```
    /// use mcp_sansio::mcp::LoggingLevel;
    /// use mcp_sansio::server::ResourceInfo;
    /// use mcp_sansio_router::{Context, Router};
    ///
    /// let today = ResourceInfo::new("memo://today", "today");
    /// let router = Router::new().resource_with_context(today, |ctx: Context| async move {
    ///     ctx.log(LoggingLevel::Info, "reading today's memo");
    ///     "nothing planned"
    /// });
    /// ```
    pub fn resource_with_context<F, Fut, R>(mut self, info: ResourceInfo, function: F) -> Self
    where
        F: Fn(Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: ResourceOutput,
    {
        let shared = self.shared.clone();
        let mime_type = info.mime_type.clone();
        self.registry.add_resource(info, move |read: ResourceRead<'_>, reply: ResourceReply<'_>| {
            shared.read_later(&read, mime_type.clone(), reply, &function);
        });
        self
    }

    /// Registers the resource template `info` (an RFC 6570 URI template, levels 1 and 2:
    /// `file:///{+path}`): a read of a URI that matches it (and is no registered resource) calls
    /// `function` with the URI and the template's variables read as a `V` (a struct of `String`
    /// fields named as the variables, or a `HashMap<String, String>`; the values percent-decoded).
    /// Variables that do not read as a `V` are answered as a resource not found.
    ///
    /// ```
    /// use mcp_sansio::server::TemplateInfo;
    /// use mcp_sansio_router::{ResourceContents, Router};
    ///
    /// #[derive(serde::Deserialize)]
    /// struct File {
    ///     path: String,
    /// }
    ///
    /// let router = Router::new().resource_template(
    ///     TemplateInfo::new("file:///{+path}", "files"),
    ///     |_uri: String, File { path }| async move {
    ///         let text = std::fs::read_to_string(&path)?;
    ///         Ok::<_, std::io::Error>(ResourceContents::text(text).mime_type("text/plain"))
    ///     },
    /// );
    /// ```
    pub fn resource_template<V, F, Fut, R>(self, info: TemplateInfo, function: F) -> Self
    where
        V: DeserializeOwned + Send + 'static,
        F: Fn(String, V) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: ResourceOutput,
    {
        self.resource_template_with_context(info, move |uri, variables: V, _: Context| function(uri, variables))
    }

    /// [`Router::resource_template`] whose function also gets the request's [`Context`], as for
    /// [`Router::resource_with_context`] (a 2026-07-28 retry reads the same URI, so the function
    /// runs again with the same variables).
    pub fn resource_template_with_context<V, F, Fut, R>(mut self, info: TemplateInfo, function: F) -> Self
    where
        V: DeserializeOwned + Send + 'static,
        F: Fn(String, V, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: ResourceOutput,
    {
        let shared = self.shared.clone();
        let (template, mime_type) = (info.uri_template.clone(), info.mime_type.clone());
        self.registry.add_template(info, move |read: ResourceRead<'_>, reply: ResourceReply<'_>| {
            let Some(variables) = read_variables::<V>(&read, &template) else {
                return reply.not_found(read.uri);
            };
            let uri = read.uri.to_owned();
            shared.read_later(&read, mime_type.clone(), reply, |context| function(uri, variables, context));
        });
        self
    }
}

impl crate::Shared {
    /// Defers `read` and answers it with what the future of `function` (given the request's
    /// [`Context`]) gives.
    fn read_later<R: ResourceOutput, Fut: Future<Output = R> + Send + 'static>(
        self: &Arc<Self>,
        read: &ResourceRead<'_>,
        mime_type: Option<String>,
        reply: ResourceReply<'_>,
        function: impl FnOnce(Context) -> Fut,
    ) {
        let Some(runtime) = self.runtime.get() else {
            return reply.fail(code::INTERNAL_ERROR, "the router has no runtime");
        };
        let input = Arc::new(Input::new(&read.context));
        // No free slot: answered with an internal error already.
        let Ok(deferred) = reply.defer() else { return };
        let deferred = Arc::new(deferred);
        let future = function(self.context(runtime, &input, &deferred));
        let uri = read.uri.to_owned();
        // A 2026-07-28 question's state is sealed for the URI read: the retry reads it again.
        let input = Some((input, uri.clone()));
        let future = async move { (future.await.into_contents(), uri, mime_type) };
        self.run(
            deferred,
            future,
            |server, deferred, output| {
                let reply = match server.reply_resource(deferred) {
                    Ok(reply) => reply,
                    Err(error) => return Err((error, output)),
                };
                match &output {
                    (Ok(contents), uri, mime_type) => contents.write(reply, uri, mime_type.as_deref()),
                    (Err(error), ..) => reply.fail(code::INTERNAL_ERROR, error),
                }
                Ok(())
            },
            input,
        );
    }
}

/// The variables of the URI read under `template`, percent-decoded, as a `V`; `None` when the URI
/// does not match, a value is not UTF-8 once decoded, or they do not read as a `V`.
fn read_variables<V: DeserializeOwned>(read: &ResourceRead<'_>, template: &str) -> Option<V> {
    let variables = read.variables(&ResourceTemplate::new(template, ""))?;
    let mut object = serde_json::Map::new();
    for (name, value) in variables.iter() {
        object.insert(name.to_owned(), serde_json::Value::String(percent_decode(value)?));
    }
    serde_json::from_value(serde_json::Value::Object(object)).ok()
}

/// `value` with its `%XX` escapes decoded; `None` if the result is not UTF-8 (a `%` not followed
/// by two hex digits stays as it is).
fn percent_decode(value: &str) -> Option<String> {
    let bytes = value.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (bytes[i], bytes.get(i + 1).copied().and_then(hex), bytes.get(i + 2).copied().and_then(hex)) {
            (b'%', Some(high), Some(low)) => {
                out.push((high * 16 + low) as u8);
                i += 3;
            }
            (byte, ..) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::percent_decode;

    #[test]
    fn percent_escapes_are_decoded_and_stray_percents_kept() {
        assert_eq!(percent_decode("a%20b%2Fc").as_deref(), Some("a b/c"));
        assert_eq!(percent_decode("100%").as_deref(), Some("100%"));
        assert_eq!(percent_decode("%zz%e2%82%ac").as_deref(), Some("%zz€"));
        assert_eq!(percent_decode("%ff"), None);
    }
}
