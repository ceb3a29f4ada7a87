//! The three tools of rmcp's `examples/servers/src/structured_output.rs` (`get_weather`,
//! `calculate`, `get_info`) with the core's `no_std` typed layer: typed arguments
//! ([`ToolCall::run`]), structured output ([`Structured`]), `Result` errors as `isError`, one
//! [`ToolSet`] (each name written once), `const` schemas, no allocator (heapless types).
//!
//! The same tools as the router's `examples/structured_output.rs`, answering alike, so the same
//! interop suite (`tests/interop/typed_tools.py`) checks both. Served on a microcontroller by
//! `examples/firmware-qemu/src/bin/typed.rs`; `tests/both_eras.rs` runs them in both eras on the host,
//! and checks the `const` schemas against what the types read and write.
#![no_std]

use core::fmt::Write as _;

use heapless::{String, Vec};
use mcp_sansio::server::{Config, Handler, Structured, Tool, ToolCall, ToolReply, ToolSet};
use serde::{Deserialize, Serialize};

/// `get_weather`'s arguments.
#[derive(Deserialize)]
pub struct WeatherRequest {
    /// The city (copied, escapes read: it is written back in the description).
    pub city: String<64>,
    /// `"fahrenheit"` for °F; anything else (or nothing, or `null`) for °C.
    pub units: Option<String<16>>,
}

/// `get_weather`'s structured output.
#[derive(Serialize)]
pub struct WeatherResponse {
    /// In the units asked for.
    pub temperature: f64,
    /// "Partly cloudy in CITY".
    pub description: String<96>,
    /// Relative humidity, percent.
    pub humidity: u8,
    /// Wind speed.
    pub wind_speed: f64,
}

/// `calculate`'s arguments.
#[derive(Deserialize)]
pub struct CalculationRequest<'a> {
    /// At most 64 (the schema's `maxItems`).
    pub numbers: Vec<i32, 64>,
    /// `sum`, `average` or `product`.
    pub operation: &'a str,
}

/// `calculate`'s structured output.
#[derive(Serialize)]
pub struct CalculationResult<'a> {
    /// The sum, average or product.
    pub result: f64,
    /// The operation asked for.
    pub operation: &'a str,
    /// How many numbers were given.
    pub input_count: usize,
}

/// `get_weather`'s input schema.
pub const WEATHER_IN: &str = r#"{"type":"object","properties":{"city":{"type":"string","maxLength":64},"units":{"type":["string","null"],"maxLength":16}},"required":["city"]}"#;
/// `get_weather`'s output schema.
pub const WEATHER_OUT: &str = r#"{"type":"object","properties":{"temperature":{"type":"number"},"description":{"type":"string"},"humidity":{"type":"integer","minimum":0,"maximum":255},"wind_speed":{"type":"number"}},"required":["temperature","description","humidity","wind_speed"]}"#;
/// `calculate`'s input schema.
pub const CALCULATE_IN: &str = r#"{"type":"object","properties":{"numbers":{"type":"array","items":{"type":"integer","minimum":-2147483648,"maximum":2147483647},"maxItems":64},"operation":{"type":"string"}},"required":["numbers","operation"]}"#;
/// `calculate`'s output schema.
pub const CALCULATE_OUT: &str = r#"{"type":"object","properties":{"result":{"type":"number"},"operation":{"type":"string"},"input_count":{"type":"integer","minimum":0}},"required":["result","operation","input_count"]}"#;
/// `get_info`'s input schema: no arguments.
pub const INFO_IN: &str = r#"{"type":"object"}"#;

/// The server's name and version, as the router's example names itself.
pub fn config() -> Config<'static> {
    Config::new("structured-output", "1.0.0")
}

/// The handler: no state.
pub struct StructuredOutput;

/// The tools and their functions.
pub const TOOLS: ToolSet<StructuredOutput, 3> = ToolSet::new([
    (
        Tool::new("get_weather", "Get current weather for a city", WEATHER_IN).with_output_schema(WEATHER_OUT),
        |_, call, reply| call.run(reply, get_weather),
    ),
    (
        Tool::new("calculate", "Perform calculations on numbers", CALCULATE_IN).with_output_schema(CALCULATE_OUT),
        |_, call, reply| call.run(reply, calculate),
    ),
    (Tool::new("get_info", "Get server information", INFO_IN), |_, _, reply| {
        reply.send("Structured Output Example Server v1.0")
    }),
]);

impl Handler for StructuredOutput {
    const TOOLS: &'static [Tool<'static>] = TOOLS.tools();

    fn call_tool(&mut self, call: ToolCall<'_>, reply: ToolReply<'_>) {
        TOOLS.call(self, call, reply)
    }
}

/// The weather is simulated, as in rmcp's example.
fn get_weather(request: WeatherRequest) -> Structured<WeatherResponse> {
    let fahrenheit = request.units.as_deref() == Some("fahrenheit");
    let mut description = String::new();
    // 17 + 64 bytes: the city always fits.
    let _ = write!(description, "Partly cloudy in {}", request.city);
    Structured(WeatherResponse {
        temperature: if fahrenheit { 72.5 } else { 22.5 },
        description,
        humidity: 65,
        wind_speed: 12.5,
    })
}

fn calculate(request: CalculationRequest<'_>) -> Result<Structured<CalculationResult<'_>>, String<64>> {
    let numbers = &request.numbers;
    if numbers.is_empty() {
        return Err(String::try_from("No numbers provided").unwrap_or_default());
    }
    let sum = numbers.iter().map(|&n| f64::from(n)).sum::<f64>();
    let result = match request.operation {
        "sum" => sum,
        "average" => sum / numbers.len() as f64,
        "product" => numbers.iter().map(|&n| f64::from(n)).product(),
        other => {
            let mut error = String::new();
            let _ = write!(error, "Unknown operation: {other}");
            return Err(error);
        }
    };
    Ok(Structured(CalculationResult { result, operation: request.operation, input_count: numbers.len() }))
}
