//! The command line's words: which are the server's, and tool arguments typed from a schema.

use mcp_sansio::mcp::LoggingLevel;
use serde_json::{Map, Value as Json};

/// Where the server is.
#[derive(Debug, PartialEq, Eq)]
pub enum Server {
    /// A command run as a child process (stdio).
    Command(Vec<String>),
    /// A Streamable HTTP endpoint.
    Url(String),
}

/// Splits the words into the server and the rest: everything after `--` is the server command
/// (the rest before it); otherwise the first word is the server: an `http://` URL, or one command
/// split at spaces (quotes group words: `"python 'my server.py'"`).
pub fn split_server(words: &[String]) -> Result<(Server, Vec<String>), String> {
    let (server, rest) = split_words(words)?;
    match server.as_slice() {
        [url] if url.starts_with("http://") || url.starts_with("https://") => Ok((Server::Url(url.clone()), rest)),
        _ => Ok((Server::Command(server), rest)),
    }
}

fn split_words(words: &[String]) -> Result<(Vec<String>, Vec<String>), String> {
    if let Some(at) = words.iter().position(|w| w == "--") {
        let server = words[at + 1..].to_vec();
        if server.is_empty() {
            return Err(String::from("no server command after `--`"));
        }
        return Ok((server, words[..at].to_vec()));
    }
    let (first, rest) = words.split_first().ok_or("no server given")?;
    Ok((split_command(first)?, rest.to_vec()))
}

/// Splits one command line at unquoted spaces; `'…'` and `"…"` group.
fn split_command(line: &str) -> Result<Vec<String>, String> {
    let (mut words, mut word, mut quote, mut in_word) = (Vec::new(), String::new(), None, false);
    for c in line.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                in_word = true;
            }
            (None, c) if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            (None, c) => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if quote.is_some() {
        return Err(format!("unbalanced quote in `{line}`"));
    }
    if in_word {
        words.push(word);
    }
    if words.is_empty() {
        return Err(String::from("empty server command"));
    }
    Ok(words)
}

/// The arguments of a tool call: `base` (a JSON object) with each `KEY=VALUE` typed as the input
/// schema's property says (numbers, booleans, objects and arrays parsed; strings as they are).
pub fn typed_arguments(base: Option<&str>, pairs: &[String], schema: &Json) -> Result<Json, String> {
    let mut arguments = match base {
        Some(text) => match serde_json::from_str(text) {
            Ok(Json::Object(object)) => object,
            _ => return Err(String::from("--args must be a JSON object")),
        },
        None => Map::new(),
    };
    for pair in pairs {
        let (key, value) = pair.split_once('=').ok_or_else(|| format!("`{pair}` is not KEY=VALUE"))?;
        let kind = schema["properties"][key]["type"].as_str().unwrap_or("");
        let typed = match kind {
            "string" => Json::String(value.to_string()),
            "number" | "integer" | "boolean" | "object" | "array" | "null" => serde_json::from_str(value)
                .map_err(|_| format!("`{key}` must be {} {kind}", if kind == "integer" { "an" } else { "a" }))?,
            // Untyped or unknown: JSON if it reads as JSON, else a string.
            _ => serde_json::from_str(value).unwrap_or_else(|_| Json::String(value.to_string())),
        };
        arguments.insert(key.to_string(), typed);
    }
    Ok(Json::Object(arguments))
}

/// Prompt arguments: every value is a string.
pub fn string_arguments(pairs: &[String]) -> Result<Json, ()> {
    let mut arguments = Map::new();
    for pair in pairs {
        let (key, value) = pair.split_once('=').ok_or(())?;
        arguments.insert(key.to_string(), Json::String(value.to_string()));
    }
    Ok(Json::Object(arguments))
}

/// Reads `--log-level`: a syslog level as MCP names it (`debug` … `emergency`).
pub fn log_level(text: &str) -> Result<LoggingLevel, String> {
    LoggingLevel::from_wire(text).ok_or_else(|| {
        let names: Vec<&str> = LoggingLevel::ALL.iter().map(|level| level.as_str()).collect();
        format!("`{text}` is not a log level ({})", names.join(", "))
    })
}

/// How `mcp` answers the server's elicitation forms (`--elicit`).
#[derive(Clone, Debug, PartialEq)]
pub enum ElicitAnswer {
    /// `accept:{…}`: accept with this content (the form's defaults fill what it leaves out).
    Accept(Json),
    /// `decline`.
    Decline,
    /// `cancel`.
    Cancel,
}

/// Reads `--elicit`: `accept:<JSON object>` (`accept` alone: an empty object), `decline` or `cancel`.
pub fn parse_elicit(text: &str) -> Result<ElicitAnswer, String> {
    match text {
        "decline" => return Ok(ElicitAnswer::Decline),
        "cancel" => return Ok(ElicitAnswer::Cancel),
        "accept" => return Ok(ElicitAnswer::Accept(Json::Object(Map::new()))),
        _ => {}
    }
    let Some(content) = text.strip_prefix("accept:") else {
        return Err(String::from("expected accept:<JSON object>, decline or cancel"));
    };
    match serde_json::from_str(content) {
        Ok(object @ Json::Object(_)) => Ok(ElicitAnswer::Accept(object)),
        _ => Err(format!("`{content}` is not a JSON object (accept:{{\"key\":value}})")),
    }
}

/// Reads what `mcp complete` completes: `prompt:<NAME>` or `resource:<URI-TEMPLATE>`, as the
/// request's `ref`.
pub fn completion_ref(text: &str) -> Result<Json, String> {
    match text.split_once(':') {
        Some(("prompt", name)) if !name.is_empty() => Ok(serde_json::json!({"type": "ref/prompt", "name": name})),
        Some(("resource", uri)) if !uri.is_empty() => Ok(serde_json::json!({"type": "ref/resource", "uri": uri})),
        _ => Err(format!("`{text}`: expected prompt:<NAME> or resource:<URI-TEMPLATE>")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &[&str]) -> Vec<String> {
        line.iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn the_server_is_one_quoted_command_or_everything_after_two_dashes() {
        let command = |w: &[&str]| Server::Command(words(w));
        let (server, rest) = split_server(&words(&["python 'my server.py' -v", "echo", "a=1"])).unwrap();
        assert_eq!(server, command(&["python", "my server.py", "-v"]));
        assert_eq!(rest, ["echo", "a=1"]);
        let (server, rest) = split_server(&words(&["echo", "a=1", "--", "./server", "--flag"])).unwrap();
        assert_eq!(server, command(&["./server", "--flag"]));
        assert_eq!(rest, ["echo", "a=1"]);
        let (server, _) = split_server(&words(&["http://127.0.0.1:8080/mcp", "echo"])).unwrap();
        assert_eq!(server, Server::Url(String::from("http://127.0.0.1:8080/mcp")));
        assert!(split_server(&words(&["echo", "--"])).is_err());
        assert!(split_server(&words(&["'unbalanced"])).is_err());
    }

    #[test]
    fn values_are_typed_from_the_schema() {
        let schema = serde_json::json!({"properties":{"n":{"type":"integer"},"s":{"type":"string"},"b":{"type":"boolean"},"o":{"type":"object"}}});
        let pairs = words(&["n=3", "s=42", "b=true", "o={\"a\":1}", "free=[1]", "text=hi"]);
        let arguments = typed_arguments(Some(r#"{"x":1}"#), &pairs, &schema).unwrap();
        assert_eq!(arguments, serde_json::json!({"x":1,"n":3,"s":"42","b":true,"o":{"a":1},"free":[1],"text":"hi"}));
        assert_eq!(typed_arguments(None, &words(&["n=x"]), &schema).unwrap_err(), "`n` must be an integer");
        assert!(typed_arguments(None, &words(&["novalue"]), &schema).is_err());
    }

    #[test]
    fn log_levels_by_their_wire_names() {
        assert_eq!(log_level("debug"), Ok(LoggingLevel::Debug));
        assert_eq!(log_level("emergency"), Ok(LoggingLevel::Emergency));
        assert!(log_level("WARNING").unwrap_err().contains("debug, info, notice"));
        assert!(log_level("verbose").is_err());
    }

    #[test]
    fn elicitation_answers() {
        assert_eq!(parse_elicit("decline"), Ok(ElicitAnswer::Decline));
        assert_eq!(parse_elicit("cancel"), Ok(ElicitAnswer::Cancel));
        assert_eq!(parse_elicit("accept"), Ok(ElicitAnswer::Accept(serde_json::json!({}))));
        assert_eq!(
            parse_elicit(r#"accept:{"name":"Ada","ok":true}"#),
            Ok(ElicitAnswer::Accept(serde_json::json!({"name":"Ada","ok":true})))
        );
        assert!(parse_elicit("accept:[1]").is_err());
        assert!(parse_elicit("accept:{").is_err());
        assert!(parse_elicit("yes").is_err());
        assert!(parse_elicit("").is_err());
    }

    #[test]
    fn completion_references() {
        assert_eq!(completion_ref("prompt:diagnose"), Ok(serde_json::json!({"type":"ref/prompt","name":"diagnose"})));
        assert_eq!(
            completion_ref("resource:device://sensor/{name}"),
            Ok(serde_json::json!({"type":"ref/resource","uri":"device://sensor/{name}"}))
        );
        assert!(completion_ref("prompt:").is_err());
        assert!(completion_ref("tool:echo").is_err());
        assert!(completion_ref("diagnose").is_err());
    }
}
