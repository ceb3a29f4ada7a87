//! The three tools of rmcp's `structured_output.rs` with the core's `no_std` layer
//! (`mcp_example_structured_output`), served in a legacy session and in 2026-07-28.

use mcp_example_structured_output::{StructuredOutput, config};
use mcp_sansio::connection::Connection;
use mcp_sansio::server::{Buffers, Server};
use mcp_sansio::time::Instant;

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

/// The answer to `tools/call` of `name` with `arguments`, in a legacy session (`modern: false`) or
/// in 2026-07-28.
fn call(modern: bool, name: &str, arguments: &str) -> serde_json::Value {
    let (mut rx, mut tx) = ([0u8; 4096], [0u8; 4096]);
    let mut server: Server<'_, StructuredOutput> =
        Server::new(StructuredOutput, config(), Buffers { rx: &mut rx, tx: &mut tx });
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
        assert_eq!(structured["description"], "Partly cloudy in Oslo");
        // An escaped city is read (copied, unescaped) and written back escaped.
        let escaped = call(modern, "get_weather", r#"{"city":"Saint \"Ville\" \u00e9","units":null}"#);
        let structured = &escaped["result"]["structuredContent"];
        assert_eq!(
            (structured["temperature"].as_f64(), &structured["description"]),
            (Some(22.5), &"Partly cloudy in Saint \"Ville\" \u{e9}".into())
        );
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
