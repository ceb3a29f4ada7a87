//! The three tools of rmcp's `examples/servers/src/structured_output.rs` (`get_weather`,
//! `calculate`, `get_info`) with the core's `no_std` layer: typed arguments, structured output,
//! `Result` errors as `isError`, one `ToolSet`, no allocator (heapless types, const schemas);
//! served in a legacy session and in 2026-07-28.

use heapless::{String, Vec};
use mcp_sansio::connection::Connection;
use mcp_sansio::server::{Buffers, Config, Handler, Server, Structured, Tool, ToolCall, ToolReply, ToolSet};
use mcp_sansio::time::Instant;
use serde::{Deserialize, Serialize};

#[derive(Deserialize)]
struct WeatherRequest<'a> {
    #[allow(dead_code, reason = "the weather is simulated, as in rmcp's example")]
    city: &'a str,
    units: Option<&'a str>,
}

#[derive(Serialize)]
struct WeatherResponse {
    temperature: f64,
    description: &'static str,
    humidity: u8,
    wind_speed: f64,
}

#[derive(Deserialize)]
struct CalculationRequest<'a> {
    numbers: Vec<i32, 64>,
    operation: &'a str,
}

#[derive(Serialize)]
struct CalculationResult<'a> {
    result: f64,
    operation: &'a str,
    input_count: usize,
}

const WEATHER_IN: &str = r#"{"type":"object","properties":{"city":{"type":"string"},"units":{"type":["string","null"]}},"required":["city"]}"#;
const WEATHER_OUT: &str = r#"{"type":"object","properties":{"temperature":{"type":"number"},"description":{"type":"string"},"humidity":{"type":"integer","minimum":0,"maximum":255},"wind_speed":{"type":"number"}},"required":["temperature","description","humidity","wind_speed"]}"#;
const CALCULATE_IN: &str = r#"{"type":"object","properties":{"numbers":{"type":"array","items":{"type":"integer"},"maxItems":64},"operation":{"type":"string"}},"required":["numbers","operation"]}"#;
const CALCULATE_OUT: &str = r#"{"type":"object","properties":{"result":{"type":"number"},"operation":{"type":"string"},"input_count":{"type":"integer","minimum":0}},"required":["result","operation","input_count"]}"#;

struct StructuredOutput;

const TOOLS: ToolSet<StructuredOutput, 3> = ToolSet::new([
    (
        Tool::new("get_weather", "Get current weather for a city", WEATHER_IN).with_output_schema(WEATHER_OUT),
        |_, call, reply| {
            call.run(reply, |request: WeatherRequest<'_>| {
                let temperature = if request.units == Some("fahrenheit") { 72.5 } else { 22.5 };
                Structured(WeatherResponse {
                    temperature,
                    description: "Partly cloudy",
                    humidity: 65,
                    wind_speed: 12.5,
                })
            })
        },
    ),
    (
        Tool::new("calculate", "Perform calculations on numbers", CALCULATE_IN).with_output_schema(CALCULATE_OUT),
        |_, call, reply| {
            call.run(reply, |request: CalculationRequest<'_>| {
                let numbers = &request.numbers;
                if numbers.is_empty() {
                    return Err(String::<64>::try_from("No numbers provided").unwrap_or_default());
                }
                let sum = numbers.iter().map(|&n| f64::from(n)).sum::<f64>();
                let result = match request.operation {
                    "sum" => sum,
                    "average" => sum / numbers.len() as f64,
                    "product" => numbers.iter().map(|&n| f64::from(n)).product(),
                    other => {
                        let mut error = String::<64>::new();
                        let _ = core::fmt::write(&mut error, format_args!("Unknown operation: {other}"));
                        return Err(error);
                    }
                };
                Ok(Structured(CalculationResult { result, operation: request.operation, input_count: numbers.len() }))
            })
        },
    ),
    (Tool::new("get_info", "Get server information", r#"{"type":"object"}"#), |_, _, reply| {
        reply.send("Structured Output Example Server v1.0")
    }),
]);

impl Handler for StructuredOutput {
    const TOOLS: &'static [Tool<'static>] = TOOLS.tools();

    fn call_tool(&mut self, call: ToolCall<'_>, reply: ToolReply<'_>) {
        TOOLS.call(self, call, reply)
    }
}

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

/// The answer to `tools/call` of `name` with `arguments`, in a legacy session (`modern: false`) or
/// in 2026-07-28.
fn call(modern: bool, name: &str, arguments: &str) -> serde_json::Value {
    let (mut rx, mut tx) = ([0u8; 4096], [0u8; 4096]);
    let mut server: Server<'_, StructuredOutput> =
        Server::new(StructuredOutput, Config::new("structured-output", "1.0.0"), Buffers { rx: &mut rx, tx: &mut tx });
    let call = if modern {
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"{name}","arguments":{arguments},{META}}}}}"#
        )
    } else {
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"{name}","arguments":{arguments}}}}}"#
        )
    };
    let mut lines = std::vec::Vec::new();
    if !modern {
        lines.push(r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#.to_owned());
        lines.push(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_owned());
    }
    lines.push(call);
    let mut out = std::vec::Vec::new();
    for line in lines {
        let line = line + "\n";
        assert_eq!(server.handle_input(Instant::ZERO, line.as_bytes()), line.len());
        while let Some(bytes) = server.poll_transmit() {
            out.extend_from_slice(bytes);
            let n = bytes.len();
            server.transmit_done(Instant::ZERO, n);
        }
    }
    let last = out.split(|&b| b == b'\n').rfind(|l| !l.is_empty()).unwrap();
    serde_json::from_slice(last).unwrap()
}

#[test]
fn the_three_tools_answer_in_both_eras() {
    for modern in [false, true] {
        let weather = call(modern, "get_weather", r#"{"city":"Oslo","units":"fahrenheit"}"#);
        let structured = &weather["result"]["structuredContent"];
        assert_eq!((structured["temperature"].as_f64(), structured["humidity"].as_u64()), (Some(72.5), Some(65)));
        let text: serde_json::Value =
            serde_json::from_str(weather["result"]["content"][0]["text"].as_str().unwrap()).unwrap();
        assert_eq!(&text, structured, "the text block is the structured content");
        let average = call(modern, "calculate", r#"{"numbers":[1,2,3,4],"operation":"average"}"#);
        assert_eq!(average["result"]["structuredContent"]["result"], 2.5);
        assert_eq!(average["result"]["structuredContent"]["input_count"], 4);
        let unknown = call(modern, "calculate", r#"{"numbers":[1],"operation":"modulo"}"#);
        assert_eq!(
            (unknown["result"]["isError"].as_bool(), unknown["result"]["content"][0]["text"].as_str()),
            (Some(true), Some("Unknown operation: modulo"))
        );
        let empty = call(modern, "calculate", r#"{"numbers":[],"operation":"sum"}"#);
        assert_eq!(empty["result"]["content"][0]["text"], "No numbers provided");
        let info = call(modern, "get_info", "{}");
        assert_eq!(info["result"]["content"][0]["text"], "Structured Output Example Server v1.0");
        let invalid = call(modern, "calculate", r#"{"numbers":"1,2","operation":"sum"}"#);
        assert_eq!(invalid["result"]["isError"], true);
        assert_eq!(
            invalid["result"]["content"][0]["text"],
            "Invalid arguments: numbers: invalid type: string \"1,2\", expected a sequence"
        );
    }
}
