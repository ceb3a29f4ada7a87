//! `#[tools]`: the `#[tool]`, `#[prompt]` and `#[resource]` methods of an `impl` as one
//! [`Router`](https://docs.rs/mcp-sansio-router) — use it through `mcp_sansio_router::tools`,
//! whose documentation shows it.

use proc_macro::TokenStream;
use proc_macro2::TokenStream as Tokens;
use quote::quote;
use syn::spanned::Spanned;
use syn::{Error, ImplItem, ItemImpl};

mod items;
mod method;

use items::Item;

/// Makes `router(self: Arc<Self>) -> Router` for the `#[tool]`, `#[prompt]` and `#[resource]`
/// methods of the `impl` it marks. See `mcp_sansio_router::tools`.
///
/// - `#[tool]`: `async fn name(&self[, arguments: A][, context: Context]) -> R`, registered with
///   `Router::tool` (or `tool_with_context`); `#[tool(name = "…", description = "…")]`.
///   `#[tool(task)]` (`task = "optional"`) or `#[tool(task = "required")]`: a long-running tool,
///   registered with `Router::task_tool` (`TaskSupport::Optional` or `Required`).
/// - `#[prompt]`: `async fn name(&self[, arguments: A][, context: Context]) -> R` (`R`:
///   `PromptMessages` or a `Result` of it), registered with `Router::typed_prompt` (or
///   `typed_prompt_with_context`; the arguments listed from `A`'s schema); `#[prompt(name = "…",
///   description = "…")]`.
/// - `#[resource(uri = "…")]`: `async fn name(&self[, context: Context]) -> R` (`R`: a
///   `ResourceOutput`), registered with `Router::resource` (or `resource_with_context`);
///   `#[resource(template = "…")]`: `async fn name(&self[, uri: String], variables: V[, context:
///   Context]) -> R`, registered with `Router::resource_template` (or
///   `resource_template_with_context`). Both take `name = "…"` (the method's name otherwise),
///   `description = "…"` (the doc comment otherwise, optional) and `mime_type = "…"`.
///
/// The request's `Context` is recognized by its type's name (`Context`, or a path ending in it),
/// last. A tool's or prompt's doc comment is its description (one of them is required).
#[proc_macro_attribute]
pub fn tools(attribute: TokenStream, item: TokenStream) -> TokenStream {
    let attribute = Tokens::from(attribute);
    let item = syn::parse_macro_input!(item as ItemImpl);
    match expand(attribute, item) {
        Ok(output) => output.into(),
        Err(error) => error.to_compile_error().into(),
    }
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
    let mut items = Vec::new();
    let mut errors: Option<Error> = None;
    for member in &mut item.items {
        let ImplItem::Fn(function) = member else { continue };
        let marked = function.attrs.iter().enumerate().find_map(|(at, attribute)| {
            Item::ATTRIBUTES.into_iter().find(|kind| attribute.path().is_ident(kind)).map(|kind| (at, kind))
        });
        let Some((at, kind)) = marked else { continue };
        let attribute = function.attrs.remove(at);
        match Item::read(kind, &attribute.meta, function) {
            Ok(read) => items.push(read),
            Err(error) => match &mut errors {
                Some(errors) => errors.combine(error),
                None => errors = Some(error),
            },
        }
    }
    if let Some(errors) = errors {
        return Err(errors);
    }
    if items.is_empty() {
        return Err(Error::new(
            item.self_ty.span(),
            "#[tools] found no #[tool], #[prompt] or #[resource] method in this impl",
        ));
    }
    let self_ty = &item.self_ty;
    let registrations = items.iter().map(Item::registration);
    let checks = items.iter().map(Item::checks);
    Ok(quote! {
        #item

        impl #self_ty {
            /// The router of this type's `#[tool]`, `#[prompt]` and `#[resource]` methods (made by
            /// `#[tools]`).
            pub fn router(self: ::std::sync::Arc<Self>) -> ::mcp_sansio_router::Router {
                #(#checks)*
                ::mcp_sansio_router::Router::new() #(#registrations)*
            }
        }
    })
}
