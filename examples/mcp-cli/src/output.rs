//! What `mcp` prints: JSON for scripts, text for people.

use serde_json::Value as Json;

/// A result: as JSON, or its content blocks as text.
pub fn print(result: &Json, json: bool) {
    if json {
        println!("{result}");
        return;
    }
    let blocks = result["content"].as_array().or_else(|| result["contents"].as_array());
    let messages = result["messages"].as_array();
    match (blocks, messages) {
        (Some(blocks), _) => {
            for block in blocks {
                match block["text"].as_str() {
                    Some(text) => println!("{text}"),
                    None => println!("{block}"),
                }
            }
            if let Some(structured) = result.get("structuredContent") {
                println!("{structured}");
            }
        }
        (None, Some(messages)) => {
            for message in messages {
                let role = message["role"].as_str().unwrap_or("?");
                match message["content"]["text"].as_str() {
                    Some(text) => println!("{role}: {text}"),
                    None => println!("{role}: {}", message["content"]),
                }
            }
        }
        _ => println!("{result}"),
    }
}

/// The tool list: one JSON array, or a line per tool with its arguments.
pub fn print_tools(tools: &[Json], json: bool) {
    if json {
        println!("{}", Json::Array(tools.to_vec()));
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
        println!("{name} {}", arguments.join(" "));
        if !description.is_empty() {
            println!("    {description}");
        }
    }
}
