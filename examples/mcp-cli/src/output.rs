//! What `mcp` prints: JSON for scripts, text for people.

use std::io::Write;

use serde_json::Value as Json;

/// `println!` that ends the process quietly when stdout is gone (`mcp … | head`), as command-line
/// tools do, instead of panicking.
macro_rules! say {
    ($($arg:tt)*) => {
        $crate::output::line(format_args!($($arg)*))
    };
}
pub(crate) use say;

/// Writes one line to stdout; a closed stdout ends the process with success.
pub fn line(args: std::fmt::Arguments<'_>) {
    let mut out = std::io::stdout().lock();
    if let Err(error) = out.write_fmt(args).and_then(|()| out.write_all(b"\n")) {
        if error.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("mcp: cannot write the output: {error}");
        std::process::exit(1);
    }
}

/// A result: as JSON, or its content blocks as text.
pub fn print(result: &Json, json: bool) {
    if json {
        say!("{result}");
        return;
    }
    let blocks = result["content"].as_array().or_else(|| result["contents"].as_array());
    let messages = result["messages"].as_array();
    match (blocks, messages) {
        (Some(blocks), _) => {
            for block in blocks {
                match block["text"].as_str() {
                    Some(text) => say!("{text}"),
                    None => say!("{block}"),
                }
            }
            if let Some(structured) = result.get("structuredContent") {
                say!("{structured}");
            }
        }
        (None, Some(messages)) => {
            for message in messages {
                let role = message["role"].as_str().unwrap_or("?");
                match message["content"]["text"].as_str() {
                    Some(text) => say!("{role}: {text}"),
                    None => say!("{role}: {}", message["content"]),
                }
            }
        }
        _ => say!("{result}"),
    }
}

/// The tool list: one JSON array, or a line per tool with its arguments.
pub fn print_tools(tools: &[Json], json: bool) {
    if json {
        say!("{}", Json::Array(tools.to_vec()));
        return;
    }
    for tool in tools {
        let name = tool["name"].as_str().unwrap_or("?");
        let description = tool["description"].as_str().unwrap_or("");
        let required: Vec<&str> =
            tool["inputSchema"]["required"].as_array().into_iter().flatten().filter_map(|r| r.as_str()).collect();
        let arguments: Vec<String> = tool["inputSchema"]["properties"]
            .as_object()
            .into_iter()
            .flatten()
            .map(|(key, property)| {
                let kind = property["type"].as_str().unwrap_or("any");
                if required.contains(&key.as_str()) { format!("{key}:{kind}") } else { format!("[{key}:{kind}]") }
            })
            .collect();
        say!("{name} {}", arguments.join(" "));
        if !description.is_empty() {
            say!("    {description}");
        }
    }
}
