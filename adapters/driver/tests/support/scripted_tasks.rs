//! A scripted 2026-07-28 server that makes tasks, and the check of a call it answered: for the
//! child-client tests of each runtime (tokio, futures), which include this file.

use mcp_sansio_driver::host::RequestError;
use serde_json::Value as Json;

/// A scripted 2026-07-28 server on stdio that makes a task of every `tools/call`: `working`, then
/// a question (`confirm`) until `tasks/update` answers it, then `completed` with the answer.
pub fn serve_scripted_tasks() -> ! {
    let mut answer: Option<Json> = None;
    let mut polls = 0;
    for line in std::io::stdin().lines() {
        let Ok(message) = serde_json::from_str::<Json>(&line.unwrap_or_default()) else { break };
        let task = |status: &str| {
            serde_json::json!({"resultType": "complete", "taskId": "t-1", "status": status, "ttlMs": 60000,
                "createdAt": "2026-08-01T00:00:00Z", "lastUpdatedAt": "2026-08-01T00:00:00Z", "pollIntervalMs": 10})
        };
        let result = match message["method"].as_str() {
            Some("server/discover") => serde_json::json!({"supportedVersions": ["2026-07-28"],
                "capabilities": {"tools": {}}, "resultType": "complete"}),
            Some("tools/call") => {
                let declared = &message["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"];
                assert!(declared["extensions"]["io.modelcontextprotocol/tasks"].is_object(), "{message}");
                let mut created = task("working");
                created["resultType"] = Json::from("task");
                created
            }
            Some("tasks/get") => {
                polls += 1;
                match (&answer, polls) {
                    (None, 1) => task("working"),
                    (None, _) => {
                        let mut asking = task("input_required");
                        asking["inputRequests"] = serde_json::json!({"confirm": {"method": "elicitation/create",
                            "params": {"message": "Sure?", "requestedSchema": {"type": "object"}}}});
                        asking
                    }
                    (Some(answer), _) => {
                        let mut done = task("completed");
                        let text = format!("answered {answer} after {polls} polls");
                        done["result"] = serde_json::json!({"content": [{"type": "text", "text": text}]});
                        done
                    }
                }
            }
            Some("tasks/update") => {
                answer = Some(message["params"]["inputResponses"]["confirm"].clone());
                serde_json::json!({"resultType": "complete"})
            }
            _ => continue,
        };
        println!("{}", serde_json::json!({"jsonrpc": "2.0", "id": message["id"], "result": result}));
    }
    std::process::exit(0)
}

/// Checks a call the scripted server makes a task of: followed to its result, its question
/// answered, each poll at least `MIN_POLL_INTERVAL` (100 ms) after the last (the server asks for
/// 10 ms). The engine's clock counts whole milliseconds (`Instant::from_std` truncates), so each
/// interval it waits can be up to 1 ms short in real time: three polls take at least 297 ms.
pub fn check_followed_task(result: Result<Vec<u8>, RequestError>, elapsed: std::time::Duration) {
    let result: Json = serde_json::from_slice(&result.unwrap()).unwrap();
    let text = result["content"][0]["text"].as_str().unwrap();
    assert_eq!(text, r#"answered {"action":"accept","content":{"confirm":true}} after 3 polls"#);
    assert!(elapsed >= std::time::Duration::from_millis(3 * (100 - 1)), "{elapsed:?}");
}
