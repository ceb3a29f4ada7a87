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

/// The resources and resource templates: one JSON object (`{"resources":[…],"resourceTemplates":[…]}`),
/// or a line per item, its URI (or URI template) and name, then its description.
pub fn print_resources(resources: &[Json], templates: &[Json], json: bool) {
    if json {
        say!("{}", serde_json::json!({"resources": resources, "resourceTemplates": templates}));
        return;
    }
    let items = resources.iter().map(|r| (r, &r["uri"])).chain(templates.iter().map(|t| (t, &t["uriTemplate"])));
    for (item, uri) in items {
        let name = item["title"].as_str().or_else(|| item["name"].as_str()).unwrap_or("?");
        let kind = item["mimeType"].as_str().map(|m| format!(" ({m})")).unwrap_or_default();
        say!("{} {name}{kind}", uri.as_str().unwrap_or("?"));
        if let Some(description) = item["description"].as_str().filter(|d| !d.is_empty()) {
            say!("    {description}");
        }
    }
}

/// The prompt list: one JSON array, or a line per prompt with its arguments (`[optional]` ones
/// bracketed), then its description.
pub fn print_prompts(prompts: &[Json], json: bool) {
    if json {
        say!("{}", Json::Array(prompts.to_vec()));
        return;
    }
    for prompt in prompts {
        let name = prompt["name"].as_str().unwrap_or("?");
        let arguments: Vec<String> = prompt["arguments"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|argument| {
                let key = argument["name"].as_str().unwrap_or("?");
                if argument["required"] == true { key.to_string() } else { format!("[{key}]") }
            })
            .collect();
        say!("{name} {}", arguments.join(" "));
        if let Some(description) = prompt["description"].as_str().filter(|d| !d.is_empty()) {
            say!("    {description}");
        }
    }
}

/// `mcp complete`'s answer: the `CompleteResult` as JSON, or a value a line (and how many more
/// the server has).
pub fn print_completion(result: &Json, json: bool) {
    if json {
        say!("{result}");
        return;
    }
    let completion = &result["completion"];
    let values = completion["values"].as_array().map_or(&[][..], Vec::as_slice);
    for value in values {
        match value.as_str() {
            Some(text) => say!("{text}"),
            None => say!("{value}"),
        }
    }
    let total = completion["total"].as_u64();
    match (total, completion["hasMore"] == true) {
        (Some(total), _) if total > values.len() as u64 => {
            say!("({} more, {total} in all)", total - values.len() as u64)
        }
        (_, true) => say!("(more)"),
        _ => {}
    }
}

/// A `notifications/message` on stderr: `[level] logger: data`, or a JSON object.
pub fn log_message(level: &str, logger: Option<&str>, data: &Json, json: bool) {
    if json {
        let mut line = serde_json::json!({"level": level, "data": data});
        if let Some(logger) = logger {
            line["logger"] = Json::from(logger);
        }
        eprintln!("{line}");
        return;
    }
    let data = match data.as_str() {
        Some(text) => text.to_string(),
        None => data.to_string(),
    };
    match logger {
        Some(logger) => eprintln!("[{level}] {logger}: {data}"),
        None => eprintln!("[{level}] {data}"),
    }
}

/// A `sampling/createMessage` being answered: its last user message on stderr.
pub fn sampling_asked(params: &Json, json: bool) {
    let messages = params["messages"].as_array().map_or(&[][..], Vec::as_slice);
    let last = messages.iter().rev().find(|m| m["role"] == "user").map(|m| &m["content"]);
    // The content is a block, or (2025-11-25 and later) an array of blocks.
    let text = match last {
        Some(Json::Array(blocks)) => blocks.iter().filter_map(|b| b["text"].as_str()).collect::<Vec<_>>().join("\n"),
        Some(block) => block["text"].as_str().map_or_else(|| block.to_string(), str::to_string),
        None => String::new(),
    };
    if json {
        eprintln!("{}", serde_json::json!({"sampling": {"user": text}}));
    } else {
        eprintln!("[sampling] user: {text}");
    }
}

/// An elicitation being answered: its message and the answer on stderr.
pub fn elicitation_asked(message: &str, answer: &crate::args::ElicitAnswer, json: bool) {
    let action = match answer {
        crate::args::ElicitAnswer::Accept(_) => "accept",
        crate::args::ElicitAnswer::Decline => "decline",
        crate::args::ElicitAnswer::Cancel => "cancel",
    };
    if json {
        eprintln!("{}", serde_json::json!({"elicitation": {"message": message, "action": action}}));
    } else {
        eprintln!("[elicitation] {message} -> {action}");
    }
}

/// A task the server made of a call, at each status it reaches: `[task] ID: STATUS (message)` on
/// stderr, or a JSON object.
pub fn task_status(id: &str, status: &str, message: Option<&str>, json: bool) {
    if json {
        let mut task = serde_json::json!({"id": id, "status": status});
        if let Some(message) = message {
            task["statusMessage"] = Json::from(message);
        }
        eprintln!("{}", serde_json::json!({ "task": task }));
        return;
    }
    // Over a progress line being rewritten on a terminal.
    let clear = if std::io::IsTerminal::is_terminal(&std::io::stderr()) { "\r\x1b[2K" } else { "" };
    match message {
        Some(message) => eprintln!("{clear}[task] {id}: {status} ({message})"),
        None => eprintln!("{clear}[task] {id}: {status}"),
    }
}
