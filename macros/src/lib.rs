//! `#[tools]`: the `#[tool]` methods of an `impl` as one
//! [`Router`](https://docs.rs/mcp-sansio-router) — use it through `mcp_sansio_router::tools`,
//! whose documentation shows it.

use proc_macro::TokenStream;
use proc_macro2::{Span, TokenStream as Tokens};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Error, Expr, FnArg, ImplItem, ImplItemFn, ItemImpl, Lit, LitStr, Meta, Type};

/// Makes `router(self: Arc<Self>) -> Router` for the `#[tool]` methods of the `impl` it marks.
/// See `mcp_sansio_router::tools`.
#[proc_macro_attribute]
pub fn tools(attribute: TokenStream, item: TokenStream) -> TokenStream {
    let attribute = Tokens::from(attribute);
    let item = syn::parse_macro_input!(item as ItemImpl);
    match expand(attribute, item) {
        Ok(output) => output.into(),
        Err(error) => error.to_compile_error().into(),
    }
}

/// One `#[tool]` method.
struct ToolMethod {
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

fn expand(attribute: Tokens, mut item: ItemImpl) -> syn::Result<Tokens> {
    if !attribute.is_empty() {
        return Err(Error::new(attribute.span(), "#[tools] takes no arguments"));
    }
    if let Some(param) = item.generics.params.first() {
        return Err(Error::new(param.span(), "#[tools] is for an impl without generic parameters"));
    }
    if let Some((_, path, _)) = &item.trait_ {
        return Err(Error::new(path.span(), "#[tools] is for an inherent impl (`impl Type`), not a trait impl"));
    }
    let mut tools = Vec::new();
    let mut errors: Option<Error> = None;
    for member in &mut item.items {
        let ImplItem::Fn(function) = member else { continue };
        let Some(at) = function.attrs.iter().position(|a| a.path().is_ident("tool")) else { continue };
        let attribute = function.attrs.remove(at);
        match tool_method(&attribute.meta, function) {
            Ok(tool) => tools.push(tool),
            Err(error) => match &mut errors {
                Some(errors) => errors.combine(error),
                None => errors = Some(error),
            },
        }
    }
    if let Some(errors) = errors {
        return Err(errors);
    }
    if tools.is_empty() {
        return Err(Error::new(item.self_ty.span(), "#[tools] found no #[tool] method in this impl"));
    }
    let self_ty = &item.self_ty;
    let registrations = tools.iter().map(registration);
    // The types' bounds, checked where the user wrote them.
    let checks = tools.iter().map(|tool| {
        let output = &tool.output;
        let output = quote_spanned!(output.span()=> ::mcp_sansio_router::__private::output::<#output>(););
        let arguments = tool
            .arguments
            .as_ref()
            .map(|ty| quote_spanned!(ty.span()=> ::mcp_sansio_router::__private::arguments::<#ty>();));
        quote!(#arguments #output)
    });
    Ok(quote! {
        #item

        impl #self_ty {
            /// The router of this type's `#[tool]` methods (made by `#[tools]`).
            pub fn router(self: ::std::sync::Arc<Self>) -> ::mcp_sansio_router::Router {
                #(#checks)*
                ::mcp_sansio_router::Router::new() #(#registrations)*
            }
        }
    })
}

/// `.tool(…)` or `.tool_with_context(…)` calling the method on a clone of the `Arc`.
fn registration(tool: &ToolMethod) -> Tokens {
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

/// Reads a `#[tool]` method: `async fn name(&self[, arguments: A][, context: Context]) -> R`.
fn tool_method(meta: &Meta, function: &ImplItemFn) -> syn::Result<ToolMethod> {
    let signature = &function.sig;
    let (mut name, mut description) = (None, None);
    match meta {
        Meta::Path(_) => {}
        Meta::List(list) => list.parse_nested_meta(|nested| {
            let value: LitStr = nested.value()?.parse()?;
            if nested.path.is_ident("name") {
                name = Some(value);
            } else if nested.path.is_ident("description") {
                description = Some(value);
            } else {
                return Err(nested.error("#[tool] takes `name = \"…\"` and `description = \"…\"`"));
            }
            Ok(())
        })?,
        Meta::NameValue(value) => {
            return Err(Error::new(value.span(), "write #[tool(name = \"…\", description = \"…\")]"));
        }
    }
    if signature.asyncness.is_none() {
        return Err(Error::new(signature.fn_token.span(), "a #[tool] method must be `async`"));
    }
    if let Some(generic) = signature.generics.params.first() {
        return Err(Error::new(generic.span(), "a #[tool] method has no generic parameters"));
    }
    let mut inputs = signature.inputs.iter();
    match inputs.next() {
        Some(FnArg::Receiver(receiver)) if receiver.reference.is_some() && receiver.mutability.is_none() => {}
        Some(other) => return Err(Error::new(other.span(), "a #[tool] method takes `&self` first")),
        None => return Err(Error::new(signature.ident.span(), "a #[tool] method takes `&self` first")),
    }
    let mut arguments = None;
    let mut context = false;
    for input in inputs {
        let FnArg::Typed(typed) = input else { unreachable!("a receiver comes first") };
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
    let ident = &signature.ident;
    let name = name.unwrap_or_else(|| LitStr::new(&ident.to_string(), ident.span()));
    let description = match description {
        Some(description) => description,
        None => doc_comment(function).ok_or_else(|| {
            Error::new(
                ident.span(),
                "document a #[tool] method (`/// …`): it is the tool's description, or give `description = \"…\"`",
            )
        })?,
    };
    let output = match &signature.output {
        syn::ReturnType::Default => syn::parse_quote_spanned!(signature.ident.span()=> ()),
        syn::ReturnType::Type(_, ty) => (**ty).clone(),
    };
    Ok(ToolMethod { method: ident.clone(), name, description, arguments, context, output, span: ident.span() })
}

/// `Context` or a path ending in `Context`.
fn is_context(ty: &Type) -> bool {
    matches!(ty, Type::Path(path) if path.qself.is_none() && path.path.segments.last().is_some_and(|s| s.ident == "Context"))
}

/// The method's doc comment, its lines trimmed and joined with spaces (paragraphs with a newline).
fn doc_comment(function: &ImplItemFn) -> Option<LitStr> {
    let mut lines = Vec::new();
    for attribute in &function.attrs {
        if let Meta::NameValue(value) = &attribute.meta
            && value.path.is_ident("doc")
            && let Expr::Lit(literal) = &value.value
            && let Lit::Str(text) = &literal.lit
        {
            lines.push(text.value().trim().to_owned());
        }
    }
    let mut text = String::new();
    for line in lines {
        match (line.is_empty(), text.is_empty(), text.ends_with('\n')) {
            (true, false, false) => text.push('\n'),
            (true, ..) => {}
            (false, true, _) | (false, _, true) => text.push_str(&line),
            (false, false, false) => {
                text.push(' ');
                text.push_str(&line);
            }
        }
    }
    let text = text.trim().to_owned();
    (!text.is_empty()).then(|| LitStr::new(&text, function.sig.ident.span()))
}
