//! The official MCP JSON schemas (committed under `spec/`) and validators for their definitions.
//!
//! Older schemas (draft-07) keep their definitions under `definitions`, newer ones (2020-12) under
//! `$defs`. A validator for one definition is built from the whole schema document with a top-level
//! `$ref` to that definition, so every internal reference resolves as the spec authors intended.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::PathBuf;
use std::rc::Rc;

use jsonschema::Validator;
use serde_json::{Value, json};

/// Every protocol version the engine speaks, oldest first.
pub const VERSIONS: [&str; 5] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"];
/// The only modern version.
pub const MODERN: &str = "2026-07-28";

/// The directory of the committed spec files.
pub fn spec_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("spec")
}

/// The result definition of a request method, if the method has a result.
pub fn result_definition_name(method: &str) -> Option<&'static str> {
    Some(match method {
        "initialize" => "InitializeResult",
        "ping" | "logging/setLevel" | "resources/subscribe" | "resources/unsubscribe" => "EmptyResult",
        "server/discover" => "DiscoverResult",
        "tools/list" => "ListToolsResult",
        "tools/call" => "CallToolResult",
        "resources/list" => "ListResourcesResult",
        "resources/templates/list" => "ListResourceTemplatesResult",
        "resources/read" => "ReadResourceResult",
        "prompts/list" => "ListPromptsResult",
        "prompts/get" => "GetPromptResult",
        "completion/complete" => "CompleteResult",
        "subscriptions/listen" => "SubscriptionsListenResult",
        _ => return None,
    })
}

/// The definition of a request the server sends to the client, by method.
pub fn request_definition_name(method: &str) -> Option<&'static str> {
    Some(match method {
        "ping" => "PingRequest",
        "elicitation/create" => "ElicitRequest",
        "sampling/createMessage" => "CreateMessageRequest",
        "roots/list" => "ListRootsRequest",
        _ => return None,
    })
}

/// The definition of a notification the server sends, by method.
pub fn notification_definition_name(method: &str) -> Option<&'static str> {
    Some(match method {
        "notifications/message" => "LoggingMessageNotification",
        "notifications/progress" => "ProgressNotification",
        "notifications/cancelled" => "CancelledNotification",
        "notifications/tools/list_changed" => "ToolListChangedNotification",
        "notifications/prompts/list_changed" => "PromptListChangedNotification",
        "notifications/resources/list_changed" => "ResourceListChangedNotification",
        "notifications/resources/updated" => "ResourceUpdatedNotification",
        "notifications/subscriptions/acknowledged" => "SubscriptionsAcknowledgedNotification",
        _ => return None,
    })
}

/// One version's schema document.
pub struct Schema {
    version: &'static str,
    document: Value,
    defs_key: &'static str,
    validators: RefCell<HashMap<String, Rc<Validator>>>,
}

/// A definition a message was checked against.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checked {
    /// The definition's name.
    pub definition: String,
    /// Which part of the message: `""` for the whole message, `"/result"` or `"/error"`.
    pub pointer: &'static str,
}

impl Schema {
    /// Loads `spec/<version>/schema.json`.
    pub fn load(version: &'static str) -> Schema {
        let path = spec_dir().join(version).join("schema.json");
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        let document: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let defs_key = if document.get("$defs").is_some() { "$defs" } else { "definitions" };
        assert!(document.get(defs_key).is_some_and(Value::is_object), "{} has no definitions", path.display());
        Schema { version, document, defs_key, validators: RefCell::new(HashMap::new()) }
    }

    /// The protocol version.
    pub fn version(&self) -> &'static str {
        self.version
    }

    /// `"definitions"` (draft-07 schemas) or `"$defs"` (2020-12 schemas).
    pub fn defs_key(&self) -> &'static str {
        self.defs_key
    }

    /// The definition `name`, if this version has it.
    pub fn definition(&self, name: &str) -> Option<&Value> {
        self.document[self.defs_key].get(name)
    }

    /// The names of all definitions.
    pub fn definition_names(&self) -> impl Iterator<Item = &str> {
        self.document[self.defs_key].as_object().into_iter().flat_map(|defs| defs.keys().map(String::as_str))
    }

    /// A validator for the definition `name`: the whole document with a top-level `$ref` to it.
    pub fn validator(&self, name: &str) -> Rc<Validator> {
        if let Some(validator) = self.validators.borrow().get(name) {
            return Rc::clone(validator);
        }
        assert!(self.definition(name).is_some(), "{} has no definition {name}", self.version);
        let mut wrapped = self.document.clone();
        wrapped["$ref"] = json!(format!("#/{}/{name}", self.defs_key));
        let validator = jsonschema::options()
            .should_validate_formats(true)
            .build(&wrapped)
            .unwrap_or_else(|e| panic!("{}: cannot build a validator for {name}: {e}", self.version));
        let validator = Rc::new(validator);
        self.validators.borrow_mut().insert(name.to_owned(), Rc::clone(&validator));
        validator
    }

    /// Validates `instance` against the definition `name`; the error lists every violation with its
    /// location in the instance.
    pub fn validate(&self, name: &str, instance: &Value) -> Result<(), String> {
        let validator = self.validator(name);
        let errors: Vec<String> =
            validator.iter_errors(instance).map(|e| format!("at '{}': {e}", e.instance_path())).collect();
        if errors.is_empty() { Ok(()) } else { Err(errors.join("\n    ")) }
    }

    /// Whether this version has a request or notification `method` (a definition whose `method`
    /// property is that constant).
    pub fn has_method(&self, method: &str) -> bool {
        let defs = &self.document[self.defs_key];
        self.definition_names()
            .any(|name| defs[name].pointer("/properties/method/const").and_then(Value::as_str) == Some(method))
    }

    /// The definition of the result of `method` in this version; `None` when the version has no
    /// such method (`ping` in 2026-07-28) or no such definition.
    pub fn result_definition(&self, method: &str) -> Option<&'static str> {
        result_definition_name(method).filter(|name| self.has_method(method) && self.definition(name).is_some())
    }

    /// The definition of a whole successful response to `method`, where this version has one
    /// (2026-07-28: `ListToolsResultResponse` and friends).
    pub fn result_response_definition(&self, method: &str) -> Option<String> {
        let name = format!("{}Response", result_definition_name(method)?);
        self.definition(&name).is_some().then_some(name)
    }

    /// The generic successful-response definition: `JSONRPCResponse` until 2025-06-18,
    /// `JSONRPCResultResponse` since 2025-11-25.
    pub fn generic_result_response(&self) -> &'static str {
        ["JSONRPCResultResponse", "JSONRPCResponse"]
            .into_iter()
            .find(|name| self.definition(name).is_some_and(|d| d.pointer("/properties/result").is_some()))
            .unwrap_or_else(|| panic!("{} has no result response definition", self.version))
    }

    /// The generic error-response definition: `JSONRPCError` until 2025-06-18,
    /// `JSONRPCErrorResponse` since 2025-11-25.
    pub fn generic_error_response(&self) -> &'static str {
        ["JSONRPCErrorResponse", "JSONRPCError"]
            .into_iter()
            .find(|name| self.definition(name).is_some())
            .unwrap_or_else(|| panic!("{} has no error response definition", self.version))
    }

    /// The definitions made for one error code, with the part of a message each one describes:
    /// `-32022` → `UnsupportedProtocolVersionError` (a whole response), `-32602` →
    /// `InvalidParamsError` (the error object), … Found by their `code` constant, so a version
    /// without such definitions (all before 2025-11-25) gives none.
    pub fn specific_error_definitions(&self, code: i64) -> Vec<Checked> {
        let mut found = Vec::new();
        for name in self.definition_names() {
            let definition = &self.document[self.defs_key][name];
            if definition.pointer("/properties/code/const").and_then(Value::as_i64) == Some(code) {
                found.push(Checked { definition: name.to_owned(), pointer: "/error" });
            }
            let parts = definition.pointer("/properties/error/allOf").and_then(Value::as_array);
            if parts
                .into_iter()
                .flatten()
                .any(|p| p.pointer("/properties/code/const").and_then(Value::as_i64) == Some(code))
            {
                found.push(Checked { definition: name.to_owned(), pointer: "" });
            }
        }
        found.sort_by(|a, b| a.definition.cmp(&b.definition));
        found
    }

    /// Checks one message the server wrote: a response to `method` (when known), or an error. Every
    /// applicable definition is checked: the whole message against `JSONRPCMessage`, the generic
    /// result or error response, and the method's response definition; a result against the
    /// method's result definition; an error against the definitions made for its code.
    ///
    /// Returns the definitions checked, or a report naming the message, the definition and the
    /// violations.
    pub fn check_message(&self, method: Option<&str>, message: &Value) -> Result<Vec<Checked>, String> {
        let mut checks = vec![Checked { definition: "JSONRPCMessage".to_owned(), pointer: "" }];
        if message.pointer("/result/resultType").and_then(Value::as_str) == Some("input_required") {
            // An InputRequiredResult answers tools/call, prompts/get and resources/read alike.
            checks.push(Checked { definition: self.generic_result_response().to_owned(), pointer: "" });
            checks.push(Checked { definition: "InputRequiredResult".to_owned(), pointer: "/result" });
        } else if message.get("result").is_some() {
            checks.push(Checked { definition: self.generic_result_response().to_owned(), pointer: "" });
            let method = method.ok_or_else(|| format!("a result to an unknown request: {message}"))?;
            let result = self
                .result_definition(method)
                .ok_or_else(|| format!("{}: no result definition for {method}, yet it was answered", self.version))?;
            checks.push(Checked { definition: result.to_owned(), pointer: "/result" });
            if let Some(response) = self.result_response_definition(method) {
                checks.push(Checked { definition: response, pointer: "" });
            }
        } else if let Some(code) = message.pointer("/error/code").and_then(Value::as_i64) {
            checks.push(Checked { definition: self.generic_error_response().to_owned(), pointer: "" });
            checks.extend(self.specific_error_definitions(code));
        } else if let (Some(method), Some(_)) = (message.get("method").and_then(Value::as_str), message.get("id")) {
            // A request to the client (legacy sessions).
            let definition =
                request_definition_name(method).filter(|name| self.definition(name).is_some()).ok_or_else(|| {
                    format!("{}: the server sent a {method} request, which this version lacks", self.version)
                })?;
            checks.push(Checked { definition: definition.to_owned(), pointer: "" });
            checks.push(Checked { definition: "ServerRequest".to_owned(), pointer: "" });
        } else if let (Some(method), None) = (message.get("method").and_then(Value::as_str), message.get("id")) {
            let definition = notification_definition_name(method)
                .filter(|name| self.definition(name).is_some())
                .ok_or_else(|| format!("{}: the server sent {method}, which this version lacks", self.version))?;
            checks.push(Checked { definition: definition.to_owned(), pointer: "" });
            checks.push(Checked { definition: "ServerNotification".to_owned(), pointer: "" });
        } else {
            return Err(format!("{}: neither a result nor an error: {message}", self.version));
        }
        for check in &checks {
            let part = message.pointer(check.pointer).unwrap_or(&Value::Null);
            if let Err(errors) = self.validate(&check.definition, part) {
                return Err(format!(
                    "{version}: the message does not match {definition} (at '{pointer}'):\n  message: {message}\n  violations:\n    {errors}",
                    version = self.version,
                    definition = check.definition,
                    pointer = check.pointer,
                ));
            }
        }
        Ok(checks)
    }
}
