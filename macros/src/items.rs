//! The three kinds of method `#[tools]` registers: `#[tool]`, `#[prompt]` and `#[resource]`,
//! each read from its signature and made a `Router` registration with the checks of its types.

use proc_macro2::{Span, TokenStream as Tokens};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Error, ImplItemFn, LitStr, Meta, Type};

use crate::method::{
    attribute_values, attribute_values_and_flag, described, doc_comment, name_or_ident, output, split_context,
    typed_inputs,
};

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

    /// The registration: `.tool(…)`, `.typed_prompt(…)`, `.resource(…)`, … (their `_with_context`
    /// forms for a method that takes the `Context`) calling the method on a clone of the `Arc`.
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
                let context = tool.context.as_ref().map(context_check);
                quote!(#arguments #context #output)
            }
            Item::Prompt(prompt) => {
                let output = &prompt.output;
                let output = quote_spanned! {output.span()=> {
                    fn __prompt_output<R: ::mcp_sansio_router::PromptOutput>() {}
                    __prompt_output::<#output>();
                }};
                let arguments = prompt.arguments.as_ref().map(arguments_check);
                let context = prompt.context.as_ref().map(context_check);
                quote!(#arguments #context #output)
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
                let context = resource.context.as_ref().map(context_check);
                quote!(#uri #variables #context #output)
            }
        }
    }
}

/// The bounds of a tool's or prompt's arguments type.
fn arguments_check(ty: &Type) -> Tokens {
    quote_spanned!(ty.span()=> ::mcp_sansio_router::__private::arguments::<#ty>();)
}

/// The type written for the request's context is the router's `Context` (another type named
/// `Context` is an error at it).
fn context_check(ty: &Type) -> Tokens {
    quote_spanned!(ty.span()=> let _ = |context: ::mcp_sansio_router::Context| -> #ty { context };)
}

/// The closure's parameter for a method's arguments type (`arguments: A`; `_: NoArguments` for a
/// method that takes none) and the method call's argument (`arguments`, or nothing).
fn argument_parts(arguments: &Option<Type>, span: Span) -> (Tokens, Tokens) {
    match arguments {
        Some(ty) => (quote_spanned!(span=> arguments: #ty), quote!(arguments)),
        None => (quote_spanned!(span=> _: ::mcp_sansio_router::NoArguments), quote!()),
    }
}

/// For a method that takes the `Context`: the closure's `context: Context` and the method call's
/// `context` (at the type written for it, where a mismatch is reported), each after a comma when
/// something comes before it; nothing otherwise.
fn context_parts(context: &Option<Type>, after_pattern: bool, after_argument: bool) -> (Tokens, Tokens) {
    let Some(ty) = context else { return (quote!(), quote!()) };
    let comma = |after: bool| if after { quote!(,) } else { quote!() };
    let (pattern_comma, argument_comma) = (comma(after_pattern), comma(after_argument));
    let argument = quote_spanned!(ty.span()=> context);
    (quote!(#pattern_comma context: ::mcp_sansio_router::Context), quote!(#argument_comma #argument))
}

/// `plain`, or `plain_with_context` for a method that takes the `Context`; at `span` (the
/// method's name), where an unmet bound of the registration is reported.
fn register(plain: &str, context: &Option<Type>, span: Span) -> syn::Ident {
    match context {
        Some(_) => quote::format_ident!("{plain}_with_context", span = span),
        None => quote::format_ident!("{plain}", span = span),
    }
}

/// One `#[tool]` method.
pub(crate) struct ToolMethod {
    method: syn::Ident,
    name: LitStr,
    description: LitStr,
    /// The type of its arguments, if it takes any.
    arguments: Option<Type>,
    /// The type written for the request's `Context`, if it takes it (last).
    context: Option<Type>,
    /// What it returns (`()` when nothing is written).
    output: Type,
    /// `task` (`Optional`) or `task = "optional" | "required"`: the `TaskSupport` variant.
    task: Option<syn::Ident>,
    span: Span,
}

/// Reads a `#[tool]` method: `async fn name(&self[, arguments: A][, context: Context]) -> R`.
fn tool_method(meta: &Meta, function: &ImplItemFn) -> syn::Result<ToolMethod> {
    let ([name, description, task], alone) =
        attribute_values_and_flag(meta, "tool", ["name", "description", "task"], Some("task"))?;
    let task = match (task, alone) {
        (None, None) => None,
        (None, Some(span)) => Some(syn::Ident::new("Optional", span)),
        (Some(task), _) => match task.value().as_str() {
            "optional" => Some(syn::Ident::new("Optional", task.span())),
            "required" => Some(syn::Ident::new("Required", task.span())),
            _ => {
                return Err(Error::new(
                    task.span(),
                    "write #[tool(task)] or #[tool(task = \"optional\")] for a tool that runs as a task when the \
                     client can follow one, #[tool(task = \"required\")] for one that runs only as a task",
                ));
            }
        },
    };
    let (inputs, context) = split_context("tool", typed_inputs("tool", function)?)?;
    if let Some(extra) = inputs.get(1) {
        return Err(Error::new(
            extra.span(),
            "a #[tool] method takes one arguments type (a struct of the tool's arguments), then optionally `Context`",
        ));
    }
    let ident = &function.sig.ident;
    Ok(ToolMethod {
        method: ident.clone(),
        name: name_or_ident(name, function),
        description: described("tool", description, function)?,
        arguments: inputs.first().map(|typed| (*typed.ty).clone()),
        context,
        output: output(function),
        task,
        span: ident.span(),
    })
}

/// `.tool(…)` or `.tool_with_context(…)`; `.task_tool(…)` for a task (with the `Context`, unused
/// when the method does not take it).
fn tool_registration(tool: &ToolMethod) -> Tokens {
    let ToolMethod { method, name, description, span, .. } = tool;
    let (pattern, argument) = argument_parts(&tool.arguments, *span);
    let (register, support, context_pattern, context_argument) = match &tool.task {
        Some(support) => {
            let (context_pattern, context_argument) = match &tool.context {
                Some(_) => context_parts(&tool.context, true, tool.arguments.is_some()),
                None => (quote!(, _: ::mcp_sansio_router::Context), quote!()),
            };
            let support = quote!(::mcp_sansio_router::TaskSupport::#support,);
            (quote::format_ident!("task_tool", span = *span), support, context_pattern, context_argument)
        }
        None => {
            let (context_pattern, context_argument) = context_parts(&tool.context, true, tool.arguments.is_some());
            (register("tool", &tool.context, *span), quote!(), context_pattern, context_argument)
        }
    };
    let handler = forward(*span, quote!(#pattern #context_pattern), quote!(#method(#argument #context_argument)));
    quote_spanned!(*span=> .#register(#name, #description, #support #handler))
}

/// The handler a registration takes: a closure of `parameters` that calls `self.call` on a clone of
/// the `Arc` the router was built from, and awaits it.
fn forward(span: Span, parameters: Tokens, call: Tokens) -> Tokens {
    quote_spanned! {span=>
        {
            let this = ::std::sync::Arc::clone(&self);
            move |#parameters| {
                let this = ::std::sync::Arc::clone(&this);
                async move { this.#call.await }
            }
        }
    }
}

/// One `#[prompt]` method.
pub(crate) struct PromptMethod {
    method: syn::Ident,
    name: LitStr,
    description: LitStr,
    /// The type of its arguments (their schema lists them), if it takes any.
    arguments: Option<Type>,
    /// The type written for the request's `Context`, if it takes it (last).
    context: Option<Type>,
    output: Type,
    span: Span,
}

/// Reads a `#[prompt]` method: `async fn name(&self[, arguments: A][, context: Context]) -> R`.
fn prompt_method(meta: &Meta, function: &ImplItemFn) -> syn::Result<PromptMethod> {
    let [name, description] = attribute_values(meta, "prompt", ["name", "description"])?;
    let (inputs, context) = split_context("prompt", typed_inputs("prompt", function)?)?;
    if let Some(extra) = inputs.get(1) {
        return Err(Error::new(
            extra.span(),
            "a #[prompt] method takes `&self`, optionally one arguments type (a struct of the prompt's arguments), \
             then optionally `Context`",
        ));
    }
    let ident = &function.sig.ident;
    Ok(PromptMethod {
        method: ident.clone(),
        name: name_or_ident(name, function),
        description: described("prompt", description, function)?,
        arguments: inputs.first().map(|typed| (*typed.ty).clone()),
        context,
        output: output(function),
        span: ident.span(),
    })
}

/// `.typed_prompt(…)` or `.typed_prompt_with_context(…)`.
fn prompt_registration(prompt: &PromptMethod) -> Tokens {
    let PromptMethod { method, name, description, span, .. } = prompt;
    let (pattern, argument) = argument_parts(&prompt.arguments, *span);
    let register = register("typed_prompt", &prompt.context, *span);
    let (context_pattern, context_argument) = context_parts(&prompt.context, true, prompt.arguments.is_some());
    let handler = forward(*span, quote!(#pattern #context_pattern), quote!(#method(#argument #context_argument)));
    quote_spanned!(*span=> .#register(#name, #description, #handler))
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
    /// The type written for the request's `Context`, if it takes it (last).
    context: Option<Type>,
    output: Type,
    span: Span,
}

/// Reads a `#[resource]` method: `#[resource(uri = "…")] async fn name(&self[, context: Context])
/// -> R`, or `#[resource(template = "…")] async fn name(&self[, uri: String], variables: V[,
/// context: Context]) -> R`.
fn resource_method(meta: &Meta, function: &ImplItemFn) -> syn::Result<ResourceMethod> {
    let [uri, template, name, description, mime_type] =
        attribute_values(meta, "resource", ["uri", "template", "name", "description", "mime_type"])?;
    let (inputs, context) = split_context("resource", typed_inputs("resource", function)?)?;
    let (uri, uri_argument, variables) = match (uri, template) {
        (Some(uri), None) => {
            if let Some(extra) = inputs.first() {
                return Err(Error::new(
                    extra.span(),
                    "a #[resource(uri = \"…\")] method takes only `&self`, then optionally `Context` (a template's \
                     takes its variables)",
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
                    "a #[resource(template = \"…\")] method takes `&self`, optionally the URI read (`String`), the \
                     template's variables (a struct of `String` fields), then optionally `Context`",
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
        context,
        output: output(function),
        span: ident.span(),
    })
}

/// `.resource(…)` or `.resource_template(…)` (or their `_with_context` forms).
fn resource_registration(resource: &ResourceMethod) -> Tokens {
    let ResourceMethod { method, uri, name, span, .. } = resource;
    let optional = |value: &Option<LitStr>| match value {
        Some(value) => quote!(::std::option::Option::Some(::std::string::String::from(#value))),
        None => quote!(::std::option::Option::None),
    };
    let (description, mime_type) = (optional(&resource.description), optional(&resource.mime_type));
    let context = &resource.context;
    let (register, info, handler) = match &resource.variables {
        None => {
            let (context_pattern, context_argument) = context_parts(context, false, false);
            (
                register("resource", context, *span),
                quote!(::mcp_sansio_router::__resource::ResourceInfo),
                forward(*span, context_pattern, quote!(#method(#context_argument))),
            )
        }
        Some(variables) => {
            // The URI is passed on only to a method that takes it.
            let (uri_pattern, uri_argument) = match &resource.uri_argument {
                Some(ty) => (quote!(uri), quote_spanned!(ty.span()=> uri,)),
                None => (quote!(_), quote!()),
            };
            let (context_pattern, context_argument) = context_parts(context, true, true);
            (
                register("resource_template", context, *span),
                quote!(::mcp_sansio_router::__resource::TemplateInfo),
                forward(
                    *span,
                    quote!(#uri_pattern: ::std::string::String, variables: #variables #context_pattern),
                    quote!(#method(#uri_argument variables #context_argument)),
                ),
            )
        }
    };
    quote_spanned! {*span=>
        .#register(#info { description: #description, mime_type: #mime_type, ..#info::new(#uri, #name) }, #handler)
    }
}
