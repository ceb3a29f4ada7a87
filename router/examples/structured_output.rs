//! The three tools of rmcp's `examples/servers/src/structured_output.rs` (`get_weather`,
//! `calculate`, `get_info`) with the router's `#[tools]`: structured output with generated
//! schemas, and plain text. Serves stdio: `cargo run -p mcp-sansio-router --example structured_output`.

use std::sync::Arc;

use mcp_sansio::server::Config;
use mcp_sansio_router::{Router, Structured, tools};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Deserialize, JsonSchema)]
pub struct WeatherRequest {
    pub city: String,
    pub units: Option<String>,
}

#[derive(Serialize, JsonSchema)]
pub struct WeatherResponse {
    pub temperature: f64,
    pub description: String,
    pub humidity: u8,
    pub wind_speed: f64,
}

#[derive(Deserialize, JsonSchema)]
pub struct CalculationRequest {
    pub numbers: Vec<i32>,
    pub operation: String,
}

#[derive(Serialize, JsonSchema)]
pub struct CalculationResult {
    pub result: f64,
    pub operation: String,
    pub input_count: usize,
}

pub struct StructuredOutputServer;

#[tools]
impl StructuredOutputServer {
    /// Get current weather for a city
    #[tool]
    async fn get_weather(&self, request: WeatherRequest) -> Structured<WeatherResponse> {
        let temperature = if request.units.as_deref() == Some("fahrenheit") { 72.5 } else { 22.5 };
        let description = format!("Partly cloudy in {}", request.city);
        Structured(WeatherResponse { temperature, description, humidity: 65, wind_speed: 12.5 })
    }

    /// Perform calculations on numbers
    #[tool]
    async fn calculate(&self, request: CalculationRequest) -> Result<Structured<CalculationResult>, String> {
        let numbers = &request.numbers;
        if numbers.is_empty() {
            return Err("No numbers provided".into());
        }
        let result = match request.operation.as_str() {
            "sum" => numbers.iter().sum::<i32>() as f64,
            "average" => numbers.iter().sum::<i32>() as f64 / numbers.len() as f64,
            "product" => numbers.iter().product::<i32>() as f64,
            _ => return Err(format!("Unknown operation: {}", request.operation)),
        };
        Ok(Structured(CalculationResult { result, operation: request.operation, input_count: numbers.len() }))
    }

    /// Get server information
    #[tool]
    async fn get_info(&self) -> &'static str {
        "Structured Output Example Server v1.0"
    }
}

pub fn router() -> Router {
    Arc::new(StructuredOutputServer).router()
}

#[allow(dead_code, reason = "the tests use `router` only")]
#[tokio::main(flavor = "current_thread")]
async fn main() -> std::io::Result<()> {
    let (mut server, jobs) = router().into_server(Config::new("structured-output", "1.0.0"), |future| {
        tokio::spawn(future);
    });
    mcp_sansio_tokio::serve_stdio_with_jobs(&mut server, jobs).await
}
