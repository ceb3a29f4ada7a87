//! How tools, resources, resource templates and prompts are written in list results (and resource
//! links), with the fields each protocol version has.

use crate::json::{self, JsonWriter};
#[cfg(feature = "prompts")]
use crate::mcp::Prompt;
#[cfg(feature = "resources")]
use crate::mcp::ResourceTemplate;
use crate::mcp::{Resource, Tool, write_icons};
use crate::version::ProtocolVersion;

/// Why an item could not be written.
pub(crate) enum ItemError<'n> {
    /// A tool's schema or `_meta` is not JSON.
    InvalidSchema(&'n str),
}

fn optional_string(w: &mut JsonWriter<'_>, name: &str, value: Option<&str>) {
    if let Some(value) = value {
        w.member(name);
        w.string(value);
    }
}

/// `,"title":…` where the version has titles, then `,"description":…`.
fn title_and_description(w: &mut JsonWriter<'_>, title: Option<&str>, description: Option<&str>, v: ProtocolVersion) {
    if v.has_titles() {
        optional_string(w, "title", title);
    }
    optional_string(w, "description", description);
}

pub(crate) fn write_tool<'t>(
    w: &mut JsonWriter<'_>,
    tool: &Tool<'t>,
    version: ProtocolVersion,
) -> Result<(), ItemError<'t>> {
    fn parse<'j, 'n>(text: &'j str, name: &'n str) -> Result<json::Value<'j>, ItemError<'n>> {
        json::parse(text.as_bytes(), json::MAX_DEPTH_LIMIT).map_err(|_| ItemError::InvalidSchema(name))
    }
    let input_schema = parse(tool.input_schema, tool.name)?;
    w.raw(b"{\"name\":");
    w.string(tool.name);
    title_and_description(w, tool.title, tool.description, version);
    w.member("inputSchema");
    w.value(input_schema);
    if let (Some(schema), true) = (tool.output_schema, version.has_structured_content()) {
        let schema = parse(schema, tool.name)?;
        w.member("outputSchema");
        w.value(schema);
    }
    let a = tool.annotations;
    let any_hint = a.read_only.or(a.destructive).or(a.idempotent).or(a.open_world).is_some();
    if version.has_tool_annotations() && any_hint {
        w.raw(b",\"annotations\":{");
        let mut first = true;
        let mut hint = |w: &mut JsonWriter<'_>, key: &str, value: Option<bool>| {
            if let Some(value) = value {
                w.next_key(&mut first, key);
                w.bool(value);
            }
        };
        hint(w, "readOnlyHint", a.read_only);
        hint(w, "destructiveHint", a.destructive);
        hint(w, "idempotentHint", a.idempotent);
        hint(w, "openWorldHint", a.open_world);
        w.byte(b'}');
    }
    // 2025-11-25 lists a tool's task support (`execution.taskSupport`; 2026-07-28 does not).
    #[cfg(feature = "tasks")]
    if version == ProtocolVersion::V2025_11_25 && tool.task_support != crate::mcp::TaskSupport::Forbidden {
        w.raw(b",\"execution\":{\"taskSupport\":");
        w.string(tool.task_support.as_str());
        w.byte(b'}');
    }
    write_icons(w, tool.icons, version);
    if let (Some(meta), true) = (tool.meta, version.has_resource_links()) {
        let meta = parse(meta, tool.name)?;
        w.member("_meta");
        w.value(meta);
    }
    w.byte(b'}');
    Ok(())
}

/// The members of a resource after an opening `{` (`first`) or `{…` (then with a leading comma).
pub(crate) fn write_resource_fields(
    w: &mut JsonWriter<'_>,
    resource: &Resource<'_>,
    version: ProtocolVersion,
    first: bool,
) {
    if first {
        w.key("uri");
    } else {
        w.member("uri");
    }
    w.string(resource.uri);
    w.member("name");
    w.string(resource.name);
    title_and_description(w, resource.title, resource.description, version);
    optional_string(w, "mimeType", resource.mime_type);
    if let Some(size) = resource.size {
        w.member("size");
        w.u64(size);
    }
    resource.annotations.write_member(w, version);
    write_icons(w, resource.icons, version);
}

#[cfg(feature = "resources")]
pub(crate) fn write_resource(w: &mut JsonWriter<'_>, resource: &Resource<'_>, version: ProtocolVersion) {
    w.byte(b'{');
    write_resource_fields(w, resource, version, true);
    w.byte(b'}');
}

#[cfg(feature = "resources")]
pub(crate) fn write_template(w: &mut JsonWriter<'_>, template: &ResourceTemplate<'_>, version: ProtocolVersion) {
    w.raw(b"{\"uriTemplate\":");
    w.string(template.uri_template);
    w.member("name");
    w.string(template.name);
    title_and_description(w, template.title, template.description, version);
    optional_string(w, "mimeType", template.mime_type);
    template.annotations.write_member(w, version);
    write_icons(w, template.icons, version);
    w.byte(b'}');
}

#[cfg(feature = "prompts")]
pub(crate) fn write_prompt(w: &mut JsonWriter<'_>, prompt: &Prompt<'_>, version: ProtocolVersion) {
    w.raw(b"{\"name\":");
    w.string(prompt.name);
    title_and_description(w, prompt.title, prompt.description, version);
    w.raw(b",\"arguments\":[");
    for (i, arg) in prompt.arguments.iter().enumerate() {
        if i > 0 {
            w.byte(b',');
        }
        w.raw(b"{\"name\":");
        w.string(arg.name);
        title_and_description(w, arg.title, arg.description, version);
        w.member("required");
        w.bool(arg.required);
        w.byte(b'}');
    }
    w.byte(b']');
    write_icons(w, prompt.icons, version);
    w.byte(b'}');
}

#[cfg(all(test, feature = "prompts"))]
mod tests {
    use super::*;
    use crate::mcp::PromptArgument;

    #[test]
    fn prompts_list_every_argument() {
        static ARGS: [PromptArgument<'static>; 2] =
            [PromptArgument::new("a", true), PromptArgument::new("b", false).with_description("second")];
        let mut buf = [0u8; 256];
        let mut w = JsonWriter::new(&mut buf);
        write_prompt(&mut w, &Prompt::new("p", &ARGS), ProtocolVersion::V2025_11_25);
        assert_eq!(
            core::str::from_utf8(w.written()).unwrap(),
            r#"{"name":"p","arguments":[{"name":"a","required":true},{"name":"b","description":"second","required":false}]}"#
        );
    }
}
