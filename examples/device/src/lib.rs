#![no_std]
#![forbid(unsafe_code)]
//! The example "device": an MCP server for a small board, written once without `std` or an allocator.
//!
//! It offers nine tools (`echo`, `read_temperature`, `set_led`, `get_uptime`, `calibrate`,
//! `enable_blink`, `factory_reset`, `explain_status`, `export_target`, and `blink_led` while
//! blinking is enabled), two resources (`device://status` as
//! JSON text, `device://calibration` as a binary blob), a resource template (`device://sensor/{name}`)
//! and one prompt (`diagnose`), with completion of sensor names and symptoms, log messages of sensor
//! reads, progress of the calibration, `listChanged` when the LED tools change, subscriptions to
//! the status (updated with the LED), a factory reset the user confirms through elicitation, a
//! status explained by the client's model (sampling) and the host's roots asked for. The hardware is
//! behind the [`Board`] trait: the host binary `mcp-device` simulates it, firmware drives real pins
//! and sensors. Uptime is the engine's injected time, so the caller's clock epoch is "boot".

use mcp_sansio::mcp::{ListCapability, LoggingLevel, ResourceCapability, ServerCapabilities};
use mcp_sansio::num::{Decimal, ZeroPadded, div_rem};
use mcp_sansio::server::{
    CompletionRef, CompletionReply, CompletionRequest, Handler, InputRequest, ListChanges, Prompt, PromptArgument,
    PromptGet, PromptReply, Resource, ResourceRead, ResourceReply, ResourceTemplate, Role, Tool, ToolAnnotations,
    ToolCall, ToolReply,
};
use mcp_sansio::text::Plain;

mod board;

pub use board::{Board, Centidegrees, FixedBoard, SAMPLE_CALIBRATION, Sensor, SimulatedBoard, simulated_temperature};
use board::{CelsiusJson, TemperatureJson};

/// The server's name in `serverInfo`.
pub const SERVER_NAME: &str = "mcp-device";

/// Guidance for the model, sent in `initialize` and `server/discover`.
pub const INSTRUCTIONS: &str =
    "A small board with a temperature sensor and an LED. Read `device://status` for an overview.";

const ECHO_SCHEMA: &str = r#"{"type":"object","properties":{"message":{"type":"string","description":"Text to send back"}},"required":["message"]}"#;
const TEMPERATURE_SCHEMA: &str = r#"{"type":"object","properties":{"sensor":{"type":"string","enum":["board","cpu"],"description":"Which sensor (default: board)"}}}"#;
const TEMPERATURE_OUTPUT: &str = r#"{"type":"object","properties":{"sensor":{"type":"string"},"celsius":{"type":"number"}},"required":["sensor","celsius"]}"#;
const LED_SCHEMA: &str = r#"{"type":"object","properties":{"on":{"type":"boolean","description":"true to light the LED"}},"required":["on"]}"#;
const LED_OUTPUT: &str = r#"{"type":"object","properties":{"on":{"type":"boolean"}},"required":["on"]}"#;
const UPTIME_OUTPUT: &str = r#"{"type":"object","properties":{"uptimeMs":{"type":"integer"}},"required":["uptimeMs"]}"#;
const NO_ARGUMENTS: &str = r#"{"type":"object","properties":{}}"#;
const CALIBRATE_OUTPUT: &str = r#"{"type":"object","properties":{"steps":{"type":"integer"}},"required":["steps"]}"#;
const ENABLE_BLINK_SCHEMA: &str = r#"{"type":"object","properties":{"enabled":{"type":"boolean","description":"true to offer the blink_led tool"}},"required":["enabled"]}"#;
const BLINK_SCHEMA: &str = r#"{"type":"object","properties":{"times":{"type":"integer","minimum":1,"maximum":10,"description":"How often to blink"}},"required":["times"]}"#;

/// Steps of the simulated calibration, one progress notification each.
pub const CALIBRATION_STEPS: u64 = 4;

const READ_ONLY: ToolAnnotations =
    ToolAnnotations::new().with_read_only(true).with_destructive(false).with_idempotent(true).with_open_world(false);
/// Changes the board, harmlessly and idempotently.
const SETS_STATE: ToolAnnotations =
    ToolAnnotations::new().with_read_only(false).with_destructive(false).with_idempotent(true).with_open_world(false);

const CONFIRM_FORM: &str = r#"{"type":"object","properties":{"confirm":{"type":"boolean","title":"Erase all settings?","description":"The board restarts with factory settings"}},"required":["confirm"]}"#;

/// The device's tools, in listing order; [`BLINK_TOOL`] follows them while blinking is enabled.
pub static TOOLS: [Tool<'static>; 9] = [
    Tool::new("echo", "Sends the message back unchanged; checks the link to the board.", ECHO_SCHEMA)
        .with_title("Echo")
        .with_annotations(READ_ONLY),
    Tool::new("read_temperature", "Reads a temperature sensor, in degrees Celsius.", TEMPERATURE_SCHEMA)
        .with_title("Read temperature")
        .with_output_schema(TEMPERATURE_OUTPUT)
        .with_annotations(READ_ONLY),
    Tool::new("set_led", "Switches the status LED on or off.", LED_SCHEMA)
        .with_title("Set LED")
        .with_output_schema(LED_OUTPUT)
        .with_annotations(SETS_STATE),
    Tool::new("get_uptime", "Time since the board started, in milliseconds.", NO_ARGUMENTS)
        .with_title("Uptime")
        .with_output_schema(UPTIME_OUTPUT)
        .with_annotations(READ_ONLY),
    Tool::new("calibrate", "Runs the sensor calibration (reports progress for each of its steps).", NO_ARGUMENTS)
        .with_title("Calibrate sensors")
        .with_output_schema(CALIBRATE_OUTPUT)
        .with_annotations(SETS_STATE),
    Tool::new("enable_blink", "Offers or withdraws the blink_led tool (the tool list changes).", ENABLE_BLINK_SCHEMA)
        .with_title("Enable blinking")
        .with_annotations(SETS_STATE),
    Tool::new("factory_reset", "Restores the factory settings, after the user confirms (elicitation).", NO_ARGUMENTS)
        .with_title("Factory reset")
        .with_annotations(SETS_STATE.with_destructive(true)),
    Tool::new(
        "explain_status",
        "Asks the client's model to explain the board's live status in a sentence (sampling).",
        NO_ARGUMENTS,
    )
    .with_title("Explain the status")
    .with_annotations(READ_ONLY),
    Tool::new(
        "export_target",
        "Asks the host for its roots (roots/list) and names where the calibration data would go.",
        NO_ARGUMENTS,
    )
    .with_title("Export target")
    .with_annotations(READ_ONLY),
];

/// The tool offered while blinking is enabled.
pub static BLINK_TOOL: Tool<'static> =
    Tool::new("blink_led", "Blinks the status LED a number of times, leaving it as it was.", BLINK_SCHEMA)
        .with_title("Blink LED")
        .with_annotations(SETS_STATE.with_idempotent(false));

/// Where each tool is in [`TOOLS`] (and [`BLINK_TOOL`] right after them), which
/// [`Handler::call_tool`] matches the engine's index against: a jump on the index is less flash
/// than a comparison with each name (docs/firmware.md, "Flash: code for what a build serves"). Each
/// is checked against its entry's name when the crate compiles, so the table cannot be reordered
/// without them.
mod tool_index {
    use super::{BLINK_TOOL, TOOLS};

    /// `index`, after checking that the tool there is `name`.
    const fn at(index: usize, name: &str) -> usize {
        let tool = if index == TOOLS.len() { BLINK_TOOL.name } else { TOOLS[index].name };
        assert!(tool.len() == name.len(), "a tool index names another tool");
        let mut i = 0;
        while i < name.len() {
            assert!(tool.as_bytes()[i] == name.as_bytes()[i], "a tool index names another tool");
            i += 1;
        }
        index
    }

    pub(super) const ECHO: usize = at(0, "echo");
    pub(super) const READ_TEMPERATURE: usize = at(1, "read_temperature");
    pub(super) const SET_LED: usize = at(2, "set_led");
    pub(super) const GET_UPTIME: usize = at(3, "get_uptime");
    pub(super) const CALIBRATE: usize = at(4, "calibrate");
    pub(super) const ENABLE_BLINK: usize = at(5, "enable_blink");
    pub(super) const FACTORY_RESET: usize = at(6, "factory_reset");
    pub(super) const EXPLAIN_STATUS: usize = at(7, "explain_status");
    pub(super) const EXPORT_TARGET: usize = at(8, "export_target");
    pub(super) const BLINK_LED: usize = at(TOOLS.len(), "blink_led");
}

const SENSOR_TEMPLATE: &str = "device://sensor/{name}";

/// The device's resource templates.
pub static RESOURCE_TEMPLATES: [ResourceTemplate<'static>; 1] = [ResourceTemplate::new(SENSOR_TEMPLATE, "sensor")
    .with_title("Sensor reading")
    .with_description("One temperature sensor (board or cpu), read now, as JSON.")
    .with_mime_type("application/json")];

/// Symptoms offered when completing the `diagnose` prompt's argument.
const SYMPTOMS: [&str; 4] = ["LED does not light", "no answer from the sensor", "overheating", "resets by itself"];

/// What the device declares: its tables, `listChanged` for tools, resource subscriptions (the
/// status changes with the LED), logging and completions.
pub const CAPABILITIES: ServerCapabilities = ServerCapabilities::NONE
    .with_tools(ListCapability { list_changed: true })
    .with_resources(ResourceCapability { subscribe: true, list_changed: false })
    .with_prompts(ListCapability { list_changed: false })
    .with_logging()
    .with_completions();

const STATUS_URI: &str = "device://status";
/// `device://status` (resource 0) in [`ListChanges::updated`].
const STATUS_UPDATED: u32 = 1 << 0;
const CALIBRATION_URI: &str = "device://calibration";

/// The device's resources.
pub static RESOURCES: [Resource<'static>; 2] = [
    Resource::new(STATUS_URI, "status")
        .with_title("Board status")
        .with_description("LED state, uptime and board temperature, as JSON.")
        .with_mime_type("application/json"),
    Resource::new(CALIBRATION_URI, "calibration")
        .with_title("Calibration data")
        .with_description("The sensor calibration table, as raw bytes.")
        .with_mime_type("application/octet-stream"),
];

static DIAGNOSE_ARGUMENTS: [PromptArgument<'static>; 1] =
    [PromptArgument::new("symptom", true).with_description("What looks wrong with the board")];

/// The device's prompts.
pub static PROMPTS: [Prompt<'static>; 1] = [Prompt::new("diagnose", &DIAGNOSE_ARGUMENTS)
    .with_title("Diagnose the board")
    .with_description("Asks the model to troubleshoot the board from a symptom and its live status.")];

/// The device: its MCP handler over a [`Board`]. Several devices may drive one board (a board type
/// that shares its state, and keeps the [blink setting](Board::blink_setting)); each announces the
/// list changes of its own requests.
pub struct Device<B> {
    board: B,
    blink: bool,
    changes: ListChanges,
}

impl<B: Board> Device<B> {
    /// The device logic driving `board`.
    pub const fn new(board: B) -> Self {
        Device { board, blink: false, changes: ListChanges::NONE }
    }

    /// The board.
    pub fn board(&self) -> &B {
        &self.board
    }

    /// Whether `blink_led` is offered: the board's setting, or this device's.
    fn blink_enabled(&self) -> bool {
        self.board.blink_setting().unwrap_or(self.blink)
    }

    /// Offers or withdraws `blink_led`, announcing the change.
    fn set_blink_enabled(&mut self, enabled: bool) {
        if enabled != self.blink_enabled() {
            self.blink = enabled;
            self.board.set_blink_setting(enabled);
            self.changes.tools = true;
        }
    }

    #[inline(never)]
    fn read_temperature(&mut self, call: &ToolCall<'_>, mut reply: ToolReply<'_>) {
        let sensor = match call.argument("sensor") {
            None => Sensor::Board,
            Some(value) => match value.as_str().and_then(Sensor::from_name) {
                Some(sensor) => sensor,
                None => return reply.finish_error_text("\"sensor\" must be \"board\" or \"cpu\""),
            },
        };
        let reading = self.board.temperature(sensor, call.context.now);
        // Sent if the client asked for log messages; a full window only costs the message.
        let _ = match reading {
            Some(celsius) => reply.log(
                LoggingLevel::Info,
                Some("sensors"),
                format_args!("{} sensor read: {celsius} °C", Plain(sensor.name())),
            ),
            None => reply.log(
                LoggingLevel::Warning,
                Some("sensors"),
                format_args!("{} sensor: no answer", Plain(sensor.name())),
            ),
        };
        match reading {
            Some(celsius) => reply
                .structured_fmt(format_args!("{}", TemperatureJson { sensor, reading: celsius }))
                .finish_text_fmt(format_args!("{}: {celsius} °C", Plain(sensor.name()))),
            None => reply.finish_error_text("the sensor did not answer"),
        }
    }

    #[inline(never)]
    fn get_uptime(&mut self, call: &ToolCall<'_>, reply: ToolReply<'_>) {
        let uptime_ms = self.board.uptime_ms(call.context.now);
        let (seconds, millis) = div_rem(uptime_ms, 1000);
        reply
            .structured_fmt(format_args!(r#"{{"uptimeMs":{}}}"#, Decimal(uptime_ms)))
            // `ZeroPadded` for the milliseconds: a `u16`'s own `Display` (and `{:03}`) would link
            // core's integer formatting and its digit table (362 B of firmware flash) for this alone.
            .finish_text_fmt(format_args!("uptime {}.{} s", Decimal(seconds), ZeroPadded(u64::from(millis), 3)))
    }

    #[inline(never)]
    fn set_led(&mut self, call: &ToolCall<'_>, reply: ToolReply<'_>) {
        match call.argument("on").and_then(|v| v.as_bool()) {
            Some(on) => {
                self.board.set_led(on);
                self.changes.updated |= STATUS_UPDATED;
                reply.structured_fmt(format_args!(r#"{{"on":{}}}"#, Plain::bool(on))).finish_text(if on {
                    "LED on"
                } else {
                    "LED off"
                })
            }
            None => reply.finish_error_text("\"on\" must be a boolean"),
        }
    }
}

impl<B: Board> Device<B> {
    /// `calibrate`: one progress notification per step (if the client sent a `progressToken`).
    #[inline(never)]
    fn calibrate(&mut self, mut reply: ToolReply<'_>) {
        for step in 1..=CALIBRATION_STEPS {
            let _ = reply.progress(step, Some(CALIBRATION_STEPS), Some("calibrating"));
        }
        reply
            .structured_fmt(format_args!(r#"{{"steps":{}}}"#, Decimal(CALIBRATION_STEPS)))
            .finish_text("calibration done")
    }

    #[inline(never)]
    fn enable_blink(&mut self, call: &ToolCall<'_>, reply: ToolReply<'_>) {
        match call.argument("enabled").and_then(|v| v.as_bool()) {
            Some(enabled) => {
                self.set_blink_enabled(enabled);
                reply.finish_text(if enabled { "blink_led is offered" } else { "blink_led is withdrawn" })
            }
            None => reply.finish_error_text("\"enabled\" must be a boolean"),
        }
    }

    #[inline(never)]
    fn blink(&mut self, call: &ToolCall<'_>, reply: ToolReply<'_>) {
        match call.argument("times").and_then(|v| v.as_u64()).filter(|n| (1..=10).contains(n)) {
            Some(times) => {
                let was = self.board.led();
                for _ in 0..times {
                    self.board.set_led(!was);
                    self.board.set_led(was);
                }
                self.changes.updated |= STATUS_UPDATED;
                reply.finish_text_fmt(format_args!("blinked {} times", Decimal(times)))
            }
            None => reply.finish_error_text("\"times\" must be an integer from 1 to 10"),
        }
    }

    /// `factory_reset`: asks the user first (an elicitation form), then resets on "accept" with
    /// `confirm: true`.
    #[inline(never)]
    fn factory_reset(&mut self, call: &ToolCall<'_>, reply: ToolReply<'_>) {
        let Some(answer) = call.context.input("confirm") else {
            if !call.context.client.elicitation_form {
                return reply.finish_error_text("this client cannot ask the user to confirm a factory reset");
            }
            let ask = InputRequest::ElicitForm {
                message: "Reset the board to its factory settings?",
                requested_schema: CONFIRM_FORM,
            };
            return reply.input_required().request("confirm", ask).finish();
        };
        let accepted = answer.get("action").and_then(|a| a.as_str()).is_some_and(|a| a.eq_str("accept"));
        let confirmed = answer.get("content").and_then(|c| c.get("confirm")).and_then(|c| c.as_bool());
        if accepted && confirmed == Some(true) {
            self.board.factory_reset();
            self.changes.updated |= STATUS_UPDATED;
            self.set_blink_enabled(false);
            reply.finish_text("factory settings restored")
        } else {
            reply.finish_text("factory reset cancelled; nothing changed")
        }
    }

    /// `explain_status`: the client's model explains the live status (sampling).
    #[inline(never)]
    fn explain_status(&mut self, call: &ToolCall<'_>, reply: ToolReply<'_>) {
        if let Some(answer) = call.context.input("explanation") {
            return match answer.get("content").and_then(|c| c.get("text")).and_then(|t| t.as_str()) {
                Some(text) => reply.finish_text_fmt(format_args!("the model says: {text}")),
                None => reply.finish_error_text("the model gave no text"),
            };
        }
        if !call.context.client.sampling {
            return reply.finish_error_text("this client offers no model to ask (no sampling capability)");
        }
        let celsius = self.board.temperature(Sensor::Board, call.context.now);
        // Formatted straight into the answer: no buffer for the params on the stack.
        let params = format_args!(
            r#"{{"messages":[{{"role":"user","content":{{"type":"text","text":"In one sentence, explain this board status to its owner: LED {}, board temperature {} C, up {} ms."}}}}],"maxTokens":100}}"#,
            Plain(if self.board.led() { "on" } else { "off" }),
            celsius.unwrap_or(Centidegrees(0)),
            Decimal(call.context.now.as_millis())
        );
        reply.input_required().sample_fmt("explanation", params).finish()
    }

    /// `export_target`: asks the host for its roots and names the first one.
    #[inline(never)]
    fn export_target(&mut self, call: &ToolCall<'_>, reply: ToolReply<'_>) {
        let Some(answer) = call.context.input("roots") else {
            if call.context.client.roots.is_none() {
                return reply.finish_error_text("this client shares no roots (no roots capability)");
            }
            return reply.input_required().request("roots", InputRequest::ListRoots).finish();
        };
        let first = answer.get("roots").and_then(|r| r.elements().next()).and_then(|r| r.get("uri"));
        match first.and_then(|uri| uri.as_str()) {
            Some(uri) => reply.finish_text_fmt(format_args!("the calibration would be exported under {uri}")),
            None => reply.finish_error_text("the host shares no roots"),
        }
    }

    fn read_sensor(&mut self, read: &ResourceRead<'_>, reply: ResourceReply<'_>) {
        let sensor = read
            .variable(&RESOURCE_TEMPLATES[0], "name")
            .and_then(|name| Sensor::ALL.iter().copied().find(|s| s.name() == name));
        let Some(sensor) = sensor else { return reply.not_found(read.uri) };
        match self.board.temperature(sensor, read.context.now) {
            Some(reading) => reply
                .text_fmt(read.uri, Some("application/json"), format_args!("{}", TemperatureJson { sensor, reading }))
                .finish(),
            None => reply.fail(mcp_sansio::jsonrpc::code::INTERNAL_ERROR, "the sensor did not answer"),
        }
    }
}

impl<B: Board> Handler for Device<B> {
    // The fixed tools, listed first by `tool` below: a call naming one of them with an escape is
    // given this table's name (no copy of it on the stack).
    const TOOLS: &'static [Tool<'static>] = &TOOLS;
    const RESOURCES: &'static [Resource<'static>] = &RESOURCES;
    const PROMPTS: &'static [Prompt<'static>] = &PROMPTS;
    const RESOURCE_TEMPLATES: &'static [ResourceTemplate<'static>] = &RESOURCE_TEMPLATES;

    fn capabilities(&self) -> ServerCapabilities {
        CAPABILITIES
    }

    // Out of line: the engine looks tools up in three places (-60 B in the full firmware).
    #[inline(never)]
    fn tool(&self, index: usize) -> Option<Tool<'_>> {
        match TOOLS.get(index) {
            Some(tool) => Some(*tool),
            None => (self.blink_enabled() && index == TOOLS.len()).then_some(BLINK_TOOL),
        }
    }

    fn take_list_changes(&mut self) -> ListChanges {
        core::mem::take(&mut self.changes)
    }

    #[inline(never)]
    fn complete(&mut self, request: CompletionRequest<'_>, reply: CompletionReply<'_>) {
        let candidates: &[&str] = match (request.reference, request.argument) {
            (CompletionRef::ResourceTemplate { .. }, "name") => &["board", "cpu"],
            (CompletionRef::Prompt { .. }, "symptom") => &SYMPTOMS,
            _ => &[],
        };
        reply.values(candidates.iter().copied().filter(|c| c.starts_with(request.value))).finish()
    }

    #[inline(never)]
    fn call_tool(&mut self, call: ToolCall<'_>, reply: ToolReply<'_>) {
        match call.index {
            tool_index::ECHO => match call.argument("message").and_then(|v| v.as_str()) {
                Some(message) => reply.text_json(message).finish(),
                None => reply.finish_error_text("\"message\" must be a string"),
            },
            tool_index::READ_TEMPERATURE => self.read_temperature(&call, reply),
            tool_index::SET_LED => self.set_led(&call, reply),
            tool_index::CALIBRATE => self.calibrate(reply),
            tool_index::ENABLE_BLINK => self.enable_blink(&call, reply),
            tool_index::BLINK_LED => self.blink(&call, reply),
            tool_index::FACTORY_RESET => self.factory_reset(&call, reply),
            tool_index::EXPLAIN_STATUS => self.explain_status(&call, reply),
            tool_index::EXPORT_TARGET => self.export_target(&call, reply),
            tool_index::GET_UPTIME => self.get_uptime(&call, reply),
            // The engine only calls with the index of a tool `tool` lists.
            _ => reply.finish_error_text("unknown tool"),
        }
    }

    #[inline(never)]
    fn read_resource(&mut self, read: ResourceRead<'_>, reply: ResourceReply<'_>) {
        match read.uri {
            STATUS_URI => {
                let status = format_args!(
                    r#"{{"led":{},"uptimeMs":{},"boardCelsius":{}}}"#,
                    Plain::bool(self.board.led()),
                    Decimal(self.board.uptime_ms(read.context.now)),
                    CelsiusJson(self.board.temperature(Sensor::Board, read.context.now)),
                );
                reply.text_fmt(STATUS_URI, Some("application/json"), status).finish()
            }
            CALIBRATION_URI => {
                reply.blob(CALIBRATION_URI, Some("application/octet-stream"), self.board.calibration()).finish()
            }
            _ if read.template.is_some() => self.read_sensor(&read, reply),
            uri => reply.not_found(uri),
        }
    }

    #[inline(never)]
    fn get_prompt(&mut self, get: PromptGet<'_>, reply: PromptReply<'_>) {
        // The engine checked that `symptom` is present.
        let symptom = get.argument("symptom");
        let led = Plain(if self.board.led() { "on" } else { "off" });
        let uptime_ms = Decimal(get.context.now.as_millis());
        let reply = reply.description("Troubleshoot the board");
        match symptom {
            Some(symptom) => reply.text_fmt(
                Role::User,
                format_args!(
                    "My board shows this symptom: {symptom}. Its LED is {led} and it has been up for {uptime_ms} ms. \
                     Use the read_temperature, set_led and get_uptime tools to find the cause, then suggest a fix."
                ),
            ),
            None => reply.text(Role::User, "Check the board."),
        }
        .finish()
    }
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::*;
    use mcp_sansio::json::parse;
    use mcp_sansio::time::Instant;

    #[test]
    fn temperatures_show_two_decimals() {
        use std::string::ToString;
        assert_eq!(Centidegrees(2350).to_string(), "23.50");
        assert_eq!(Centidegrees(2146).to_string(), "21.46");
        assert_eq!(Centidegrees(5).to_string(), "0.05");
        assert_eq!(Centidegrees(0).to_string(), "0.00");
        assert_eq!(Centidegrees(-326).to_string(), "-3.26");
        assert_eq!(Centidegrees(-1).to_string(), "-0.01");
        assert_eq!(Centidegrees(i32::MIN).to_string(), "-21474836.48");
        assert_eq!(Centidegrees(i32::MAX).to_string(), "21474836.47");
    }

    #[test]
    fn temperatures_are_json_numbers_to_a_hundredth() {
        let json =
            |centi: i32| std::format!("{}", TemperatureJson { sensor: Sensor::Cpu, reading: Centidegrees(centi) });
        assert_eq!(json(2355), r#"{"sensor":"cpu","celsius":23.55}"#);
        assert_eq!(json(2150), r#"{"sensor":"cpu","celsius":21.5}"#);
        assert_eq!(json(4100), r#"{"sensor":"cpu","celsius":41.0}"#);
        assert_eq!(json(5), r#"{"sensor":"cpu","celsius":0.05}"#);
        assert_eq!(json(0), r#"{"sensor":"cpu","celsius":0.0}"#);
        assert_eq!(json(-326), r#"{"sensor":"cpu","celsius":-3.26}"#);
        assert_eq!(json(-50), r#"{"sensor":"cpu","celsius":-0.5}"#);
        assert_eq!(std::format!("{}", CelsiusJson(None)), "null");
        // Every simulated reading (and the test boards' 21.5 and 47.25) is written as a float
        // formatter writes that value (`{:?}` is the shortest round trip), and is valid JSON.
        let simulated = Sensor::ALL
            .into_iter()
            .flat_map(|sensor| (0..40).map(move |s| simulated_temperature(sensor, Instant::from_millis(s * 1000))));
        for reading in simulated.chain([Centidegrees(2150), Centidegrees(4725)]) {
            let text = json(reading.0);
            assert_eq!(text, std::format!(r#"{{"sensor":"cpu","celsius":{:?}}}"#, reading.0 as f64 / 100.0));
            assert!(parse(text.as_bytes(), 2).is_ok(), "{text}");
        }
    }

    #[test]
    fn simulated_readings_drift_by_a_twentieth_of_a_degree_a_second_for_twenty_seconds() {
        let at = |sensor, s: u64| simulated_temperature(sensor, Instant::from_millis(s * 1000)).0;
        assert_eq!((at(Sensor::Board, 0), at(Sensor::Cpu, 0)), (2350, 4100));
        assert_eq!((at(Sensor::Board, 19), at(Sensor::Cpu, 19)), (2445, 4195));
        assert_eq!(at(Sensor::Board, 20), 2350);
    }

    #[test]
    fn every_schema_is_valid_json() {
        for tool in TOOLS.iter().chain([&BLINK_TOOL]) {
            assert!(parse(tool.input_schema.as_bytes(), 32).is_ok(), "{}", tool.name);
            if let Some(schema) = tool.output_schema {
                assert!(parse(schema.as_bytes(), 32).is_ok(), "{}", tool.name);
            }
        }
    }
}
