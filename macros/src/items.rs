//! The three kinds of method `#[tools]` registers: `#[tool]`, `#[prompt]` and `#[resource]`,
//! each read from its signature and made a `Router` registration with the checks of its types.

use proc_macro2::{Span, TokenStream as Tokens};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Error, ImplItemFn, LitStr, Meta, Type};

use crate::method::{attribute_values, described, doc_comment, is_context, name_or_ident, output, typed_inputs};

/// A marked method of the impl (a resource's is boxed: it is the largest).
pub(crate) enum Item {
    Tool(ToolMethod),
    Prompt(PromptMethod),
    Resource(Box<ResourceMethod>),
}

impl Item {
    /// The attributes that mark a method.
    pub(crate) const ATTRIBUTES: [&str; 3] = ["tool", "prompt", "resource"];

    /// Reads the method marked `#[kind(…)]` (`meta`).
    pub(crate) fn read(kind: &str, meta: &Meta, function: &ImplItemFn) -> syn::Result<Item> {
        match kind {
            "tool" => tool_method(meta, function).map(Item::Tool),
            "prompt" => prompt_method(meta, function).map(Item::Prompt),
            _ => resource_method(meta, function).map(|resource| Item::Resource(Box::new(resource))),
        }
    }

    /// The registration: `.tool(…)`, `.typed_prompt(…)`, `.resource(…)`, … calling the method on
    /// a clone of the `Arc`.
    pub(crate) fn registration(&self) -> Tokens {
        match self {
            Item::Tool(tool) => tool_registration(tool),
            Item::Prompt(prompt) => prompt_registration(prompt),
            Item::Resource(resource) => resource_registration(resource),
        }
    }

    /// The bounds of its types, checked where the user wrote them.
    pub(crate) fn checks(&self) -> Tokens {
        match self {
            Item::Tool(tool) => {
                let output = &tool.output;
                let output = quote_spanned!(output.span()=> ::mcp_sansio_router::__private::output::<#output>(););
                let arguments = tool.arguments.as_ref().map(arguments_check);
                quote!(#arguments #output)
            }
            Item::Prompt(prompt) => {
                let output = &prompt.output;
                let output = quote_spanned! {output.span()=> {
                    fn __prompt_output<R: ::mcp_sansio_router::PromptOutput>() {}
                    __prompt_output::<#output>();
                }};
                let arguments = prompt.arguments.as_ref().map(arguments_check);
                quote!(#arguments #output)
            }
            Item::Resource(resource) => {
                let output = &resource.output;
                let output = quote_spanned! {output.span()=> {
                    fn __resource_output<R: ::mcp_sansio_router::ResourceOutput>() {}
                    __resource_output::<#output>();
                }};
                let variables = resource
                    .variables
                    .as_ref()
                    .map(|ty| quote_spanned!(ty.span()=> ::mcp_sansio_router::__resource::variables::<#ty>();));
                let uri = resource
                    .uri_argument
                    .as_ref()
                    .map(|ty| quote_spanned!(ty.span()=> let _ = |uri: ::std::string::String| -> #ty { uri };));
                quote!(#uri #variables #output)
            }
        }
    }
}

/// The bounds of a tool's or prompt's arguments type.
fn arguments_check(ty: &Type) -> Tokens {
    quote_spanned!(ty.span()=> ::mcp_sansio_router::__private::arguments::<#ty>();)
}

/// One `#[tool]` method.
pub(crate) struct ToolMethod {
    method: syn::Ident,
    name: LitStr,
    description: LitStr,
    /// The type of its arguments, if it takes any.
    arguments: Option<Type>,
    /// It takes the request's `Context` last.
    context: bool,
    /// What it returns (`()` when nothing is written).
    output: Type,
    span: Span,
}

/// Reads a `#[tool]` method: `async fn name(&self[, arguments: A][, context: Context]) -> R`.
fn tool_method(meta: &Meta, function: &ImplItemFn) -> syn::Result<ToolMethod> {
    let [name, description] = attribute_values(meta, "tool", ["name", "description"])?;
    let inputs = typed_inputs("tool", function)?;
    let mut arguments = None;
    let mut context = false;
    for typed in inputs {
        if context {
            return Err(Error::new(typed.span(), "the request's `Context` is a #[tool] method's last argument"));
        }
        if is_context(&typed.ty) {
            context = true;
        } else if arguments.is_some() {
            return Err(Error::new(
                typed.span(),
                "a #[tool] method takes one arguments type (a struct of the tool's arguments), then optionally `Context`",
            ));
        } else {
            arguments = Some((*typed.ty).clone());
        }
    }
    let ident = &function.sig.ident;
    Ok(ToolMethod {
        method: ident.clone(),
        name: name_or_ident(name, function),
        description: described("tool", description, function)?,
        arguments,
        context,
        output: output(function),
        span: ident.span(),
    })
}

/// `.tool(…)` or `.tool_with_context(…)`.
fn tool_registration(tool: &ToolMethod) -> Tokens {
    let ToolMethod { method, name, description, span, .. } = tool;
    let (pattern, argument) = match &tool.arguments {
        Some(ty) => (quote_spanned!(*span=> arguments: #ty), quote!(arguments)),
        None => (quote_spanned!(*span=> _: ::mcp_sansio_router::NoArguments), quote!()),
    };
    let (register, context_pattern, context_argument) = if tool.context {
        let comma = if tool.arguments.is_some() { quote!(,) } else { quote!() };
        (quote!(tool_with_context), quote!(, context: ::mcp_sansio_router::Context), quote!(#comma context))
    } else {
        (quote!(tool), quote!(), quote!())
    };
    quote_spanned! {*span=>
        .#register(#name, #description, {
            let this = ::std::sync::Arc::clone(&self);
            move |#pattern #context_pattern| {
                let this = ::std::sync::Arc::clone(&this);
                async move { this.#method(#argument #context_argument).await }
            }
        })
    }
}

/// One `#[prompt]` method.
pub(crate) struct PromptMethod {
    method: syn::Ident,
    name: LitStr,
    description: LitStr,
    /// The type of its arguments (their schema lists them), if it takes any.
    arguments: Option<Type>,
    output: Type,
    span: Span,
}

/// Reads a `#[prompt]` method: `async fn name(&self[, arguments: A]) -> R`.
fn prompt_method(meta: &Meta, function: &ImplItemFn) -> syn::Result<PromptMethod> {
    let [name, description] = attribute_values(meta, "prompt", ["name", "description"])?;
    let inputs = typed_inputs("prompt", function)?;
    if let Some(extra) = inputs.get(1).or_else(|| inputs.first().filter(|typed| is_context(&typed.ty))) {
        return Err(Error::new(
            extra.span(),
            "a #[prompt] method takes `&self` and optionally one arguments type (a struct of the prompt's arguments)",
        ));
    }
    let ident = &function.sig.ident;
    Ok(PromptMethod {
        method: ident.clone(),
        name: name_or_ident(name, function),
        description: described("prompt", description, function)?,
        arguments: inputs.first().map(|typed| (*typed.ty).clone()),
        output: output(function),
        span: ident.span(),
    })
}

/// `.typed_prompt(…)`.
fn prompt_registration(prompt: &PromptMethod) -> Tokens {
    let PromptMethod { method, name, description, span, .. } = prompt;
    let (pattern, argument) = match &prompt.arguments {
        Some(ty) => (quote_spanned!(*span=> arguments: #ty), quote!(arguments)),
        None => (quote_spanned!(*span=> _: ::mcp_sansio_router::NoArguments), quote!()),
    };
    quote_spanned! {*span=>
        .typed_prompt(#name, #description, {
            let this = ::std::sync::Arc::clone(&self);
            move |#pattern| {
                let this = ::std::sync::Arc::clone(&this);
                async move { this.#method(#argument).await }
            }
        })
    }
}

/// One `#[resource]` method: a resource (`uri = "…"`) or a template (`template = "…"`).
pub(crate) struct ResourceMethod {
    method: syn::Ident,
    /// The URI, or the URI template.
    uri: LitStr,
    name: LitStr,
    description: Option<LitStr>,
    mime_type: Option<LitStr>,
    /// A template's: the type of the URI argument, if it takes it.
    uri_argument: Option<Type>,
    /// A template's: the type of its variables.
    variables: Option<Type>,
    output: Type,
    span: Span,
}

/// Reads a `#[resource]` method: `#[resource(uri = "…")] async fn name(&self) -> R`, or
/// `#[resource(template = "…")] async fn name(&self[, uri: String], variables: V) -> R`.
fn resource_method(meta: &Meta, function: &ImplItemFn) -> syn::Result<ResourceMethod> {
    let [uri, template, name, description, mime_type] =
        attribute_values(meta, "resource", ["uri", "template", "name", "description", "mime_type"])?;
    let inputs = typed_inputs("resource", function)?;
    let (uri, uri_argument, variables) = match (uri, template) {
        (Some(uri), None) => {
            if let Some(extra) = inputs.first() {
                return Err(Error::new(
                    extra.span(),
                    "a #[resource(uri = \"…\")] method takes only `&self` (a template's takes its variables)",
                ));
            }
            (uri, None, None)
        }
        (None, Some(template)) => match inputs.as_slice() {
            [variables] => (template, None, Some((*variables.ty).clone())),
            [uri, variables] => (template, Some((*uri.ty).clone()), Some((*variables.ty).clone())),
            _ => {
                return Err(Error::new(
                    inputs.get(2).map_or_else(|| function.sig.ident.span(), |extra| extra.span()),
                    "a #[resource(template = \"…\")] method takes `&self`, optionally the URI read (`String`), and \
                     the template's variables (a struct of `String` fields)",
                ));
            }
        },
        (Some(_), Some(template)) => {
            return Err(Error::new(template.span(), "a #[resource] has a `uri` or a `template`, not both"));
        }
        (None, None) => {
            return Err(Error::new(
                meta.span(),
                "write #[resource(uri = \"…\")] for a resource or #[resource(template = \"…\")] for a template",
            ));
        }
    };
    let ident = &function.sig.ident;
    Ok(ResourceMethod {
        method: ident.clone(),
        uri,
        name: name_or_ident(name, function),
        description: description.or_else(|| doc_comment(function)),
        mime_type,
        uri_argument,
        variables,
        output: output(function),
        span: ident.span(),
    })
}

/// `.resource(…)` or `.resource_template(…)`.
fn resource_registration(resource: &ResourceMethod) -> Tokens {
    let ResourceMethod { method, uri, name, span, .. } = resource;
    let optional = |value: &Option<LitStr>| match value {
        Some(value) => quote!(::std::option::Option::Some(::std::string::String::from(#value))),
        None => quote!(::std::option::Option::None),
    };
    let (description, mime_type) = (optional(&resource.description), optional(&resource.mime_type));
    let (register, info, closure) = match &resource.variables {
        None => (
            quote!(resource),
            quote!(::mcp_sansio_router::__resource::ResourceInfo),
            quote_spanned! {*span=>
                move || {
                    let this = ::std::sync::Arc::clone(&this);
                    async move { this.#method().await }
                }
            },
        ),
        Some(variables) => {
            let uri_argument = resource.uri_argument.as_ref().map(|_| quote!(uri,));
            (
                quote!(resource_template),
                quote!(::mcp_sansio_router::__resource::TemplateInfo),
                quote_spanned! {*span=>
                    move |uri: ::std::string::String, variables: #variables| {
                        let this = ::std::sync::Arc::clone(&this);
                        let _ = &uri;
                        async move { this.#method(#uri_argument variables).await }
                    }
                },
            )
        }
    };
    quote_spanned! {*span=>
        .#register(#info { description: #description, mime_type: #mime_type, ..#info::new(#uri, #name) }, {
            let this = ::std::sync::Arc::clone(&self);
            #closure
        })
    }
}
