//! What the kinds of method share: their attribute's `key = "value"` pairs, the `async fn
//! name(&self, …)` shape, and the doc comment.

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Error, Expr, FnArg, ImplItemFn, Lit, LitStr, Meta, PatType, Type};

/// The `key = "…"` pairs of `#[kind(…)]`, each key one of `keys` (in that order in the result).
pub(crate) fn attribute_values<const N: usize>(
    meta: &Meta,
    kind: &str,
    keys: [&str; N],
) -> syn::Result<[Option<LitStr>; N]> {
    attribute_values_and_flag(meta, kind, keys, None).map(|(values, _)| values)
}

/// [`attribute_values`] where the key `flag` (one of `keys`) may also stand alone (`#[tool(task)]`):
/// the values, and whether it stood alone (where).
pub(crate) fn attribute_values_and_flag<const N: usize>(
    meta: &Meta,
    kind: &str,
    keys: [&str; N],
    flag: Option<&str>,
) -> syn::Result<([Option<LitStr>; N], Option<Span>)> {
    let mut values = [const { None }; N];
    let mut alone = None;
    match meta {
        Meta::Path(_) => {}
        Meta::List(list) => list.parse_nested_meta(|nested| {
            let at = keys.iter().position(|key| nested.path.is_ident(key));
            let Some(at) = at else {
                let keys: Vec<String> = keys
                    .iter()
                    .map(|&key| match Some(key) == flag {
                        true => format!("`{key}`, `{key} = \"…\"`"),
                        false => format!("`{key} = \"…\"`"),
                    })
                    .collect();
                return Err(nested.error(format!("#[{kind}] takes {}", keys.join(", "))));
            };
            if Some(keys[at]) == flag && !nested.input.peek(syn::Token![=]) {
                alone = Some(nested.path.span());
                values[at] = None;
                return Ok(());
            }
            values[at] = Some(nested.value()?.parse()?);
            Ok(())
        })?,
        Meta::NameValue(value) => {
            return Err(Error::new(value.span(), format!("write #[{kind}({} = \"…\")]", keys[0])));
        }
    }
    Ok((values, alone))
}

/// Checks `async fn name(&self, …)` without generic parameters; the typed inputs after `&self`.
pub(crate) fn typed_inputs<'f>(kind: &str, function: &'f ImplItemFn) -> syn::Result<Vec<&'f PatType>> {
    let signature = &function.sig;
    if signature.asyncness.is_none() {
        return Err(Error::new(signature.fn_token.span(), format!("a #[{kind}] method must be `async`")));
    }
    if let Some(generic) = signature.generics.params.first() {
        return Err(Error::new(generic.span(), format!("a #[{kind}] method has no generic parameters")));
    }
    let mut inputs = signature.inputs.iter();
    let receiver = format!("a #[{kind}] method takes `&self` first");
    match inputs.next() {
        Some(FnArg::Receiver(receiver)) if receiver.reference.is_some() && receiver.mutability.is_none() => {}
        Some(other) => return Err(Error::new(other.span(), receiver)),
        None => return Err(Error::new(signature.ident.span(), receiver)),
    }
    Ok(inputs
        .map(|input| match input {
            FnArg::Typed(typed) => typed,
            FnArg::Receiver(_) => unreachable!("a receiver comes first"),
        })
        .collect())
}

/// What the method returns (`()` when nothing is written).
pub(crate) fn output(function: &ImplItemFn) -> Type {
    match &function.sig.output {
        syn::ReturnType::Default => syn::parse_quote_spanned!(function.sig.ident.span()=> ()),
        syn::ReturnType::Type(_, ty) => (**ty).clone(),
    }
}

/// The method's name, or `name` when given.
pub(crate) fn name_or_ident(name: Option<LitStr>, function: &ImplItemFn) -> LitStr {
    let ident = &function.sig.ident;
    name.unwrap_or_else(|| LitStr::new(&ident.to_string(), ident.span()))
}

/// The description given, or the doc comment; an error naming `kind` without either.
pub(crate) fn described(kind: &str, description: Option<LitStr>, function: &ImplItemFn) -> syn::Result<LitStr> {
    description.or_else(|| doc_comment(function)).ok_or_else(|| {
        Error::new(
            function.sig.ident.span(),
            format!(
                "document a #[{kind}] method (`/// …`): it is the {kind}'s description, or give `description = \"…\"`"
            ),
        )
    })
}

/// `Context` or a path ending in `Context`.
pub(crate) fn is_context(ty: &Type) -> bool {
    matches!(ty, Type::Path(path) if path.qself.is_none() && path.path.segments.last().is_some_and(|s| s.ident == "Context"))
}

/// The typed inputs before the request's `Context`, and the type written for it (a `Context`, or
/// a path ending in `Context`, last); an error at the input after a `Context` that is not last.
pub(crate) fn split_context<'f>(
    kind: &str,
    mut inputs: Vec<&'f PatType>,
) -> syn::Result<(Vec<&'f PatType>, Option<Type>)> {
    let Some(at) = inputs.iter().position(|typed| is_context(&typed.ty)) else { return Ok((inputs, None)) };
    if let Some(after) = inputs.get(at + 1) {
        return Err(Error::new(after.span(), format!("the request's `Context` is a #[{kind}] method's last argument")));
    }
    let context = (*inputs[at].ty).clone();
    inputs.truncate(at);
    Ok((inputs, Some(context)))
}

/// The method's doc comment, its lines trimmed and joined with spaces (paragraphs with a newline).
pub(crate) fn doc_comment(function: &ImplItemFn) -> Option<LitStr> {
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
