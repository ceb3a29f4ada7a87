//! Resource, template and completion functions with the request's `Context`, in both eras:
//! progress and log messages written ahead of the answer, and questions to the client from a
//! resource or template function (legacy: a request to the client that the function awaits;
//! 2026-07-28: the read is answered `input_required` and its retry runs the function again). A
//! completion function's questions are refused in both eras (2026-07-28 defines no
//! `input_required` answer to `completion/complete`).
//!
//! Progress and the 2026-07-28 round are read off the wire (this project's client asks for
//! progress on `tools/call` only); the template's question and the completion's refusal go through
//! the client.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use mcp_sansio::client::EraPolicy;
use mcp_sansio::server::{ResourceInfo, TemplateInfo};
use mcp_sansio_router::{CompletionQuery, Context, InputError, Router};
use mcp_sansio_tokio::host::{ClientHandle, RequestError};
use serde_json::{Value as Json, json};

mod common;

use common::{Wire, confirmed, report};

#[derive(serde::Deserialize)]
struct Note {
    key: String,
}

#[derive(serde::Deserialize)]
struct Item {
    item: String,
}

/// A resource, a template and a completion that report progress and log; a resource and a
/// template that ask; `runs` counts how often the asking resource started.
fn router(runs: Arc<AtomicUsize>) -> Router {
    Router::new()
        .resource_with_context(ResourceInfo::new("memo://steps", "steps"), |ctx: Context| async move {
            report(&ctx, "reading").await;
            "read"
        })
        .resource_template_with_context(
            TemplateInfo::new("notes://{key}", "notes"),
            |uri: String, Note { key }, ctx: Context| async move {
                report(&ctx, "noting").await;
                format!("note {key} at {uri}")
            },
        )
        .resource_with_context(ResourceInfo::new("memo://secret", "secret"), move |ctx: Context| {
            runs.fetch_add(1, Ordering::SeqCst);
            async move {
                match confirmed(&ctx, "Show the secret?").await? {
                    true => Ok::<_, InputError>("the secret"),
                    false => Ok("hidden"),
                }
            }
        })
        .resource_template_with_context(
            TemplateInfo::new("vault://{item}", "vault"),
            |_uri: String, Item { item }, ctx: Context| async move {
                let confirmed = confirmed(&ctx, &format!("Open {item}?")).await?;
                Ok::<_, InputError>(format!("{item} opened: {confirmed}"))
            },
        )
        .completion_with_context(|query: CompletionQuery, ctx: Context| async move {
            report(&ctx, "completing").await;
            if query.value == "ask" {
                confirmed(&ctx, "Complete?").await?;
            }
            Ok::<_, InputError>(vec!["alpha", "alps"])
        })
}

#[tokio::test]
async fn progress_and_logs_come_ahead_of_the_answer_in_both_eras() {
    for era in [EraPolicy::Legacy, EraPolicy::Modern] {
        let mut wire = Wire::start(router(Arc::default()), era).await;
        let template = json!({"type":"ref/resource","uri":"notes://{key}"});
        let requests = [
            (1, "resources/read", json!({"uri":"memo://steps"}), "reading"),
            (2, "resources/read", json!({"uri":"notes://today"}), "noting"),
            (3, "completion/complete", json!({"ref":template,"argument":{"name":"key","value":"al"}}), "completing"),
        ];
        for (id, method, params, what) in requests {
            let answer = wire.reported(id, method, params, what).await;
            match id {
                1 => assert_eq!(answer["contents"][0]["text"], "read", "{era:?}: {answer}"),
                2 => assert_eq!(answer["contents"][0]["text"], "note today at notes://today", "{era:?}: {answer}"),
                _ => assert_eq!(answer["completion"]["values"], json!(["alpha", "alps"]), "{era:?}: {answer}"),
            }
        }
    }
}

#[tokio::test]
async fn a_resource_asks_the_client_in_both_eras() {
    for era in [EraPolicy::Legacy, EraPolicy::Modern] {
        let runs = Arc::new(AtomicUsize::new(0));
        let mut wire = Wire::start(router(runs.clone()), era).await;
        wire.request(1, "resources/read", json!({"uri":"memo://secret"})).await;
        let confirm = json!({"action":"accept","content":{"confirm":true}});
        let answer = match era {
            // Legacy: the question is a request to the client; the function awaits its answer.
            EraPolicy::Legacy => {
                let question = wire.next_request().await;
                assert_eq!(question["method"], "elicitation/create", "{question}");
                assert_eq!(question["params"]["message"], "Show the secret?");
                assert_eq!(question["params"]["requestedSchema"]["properties"]["confirm"]["type"], "boolean");
                wire.send(json!({"jsonrpc":"2.0","id":question["id"],"result":confirm})).await;
                wire.until_answer(1).await.pop().unwrap()
            }
            // 2026-07-28: the read is answered `input_required`; the retry carries the answer and
            // the sealed state, and runs the function again.
            _ => {
                let first = wire.until_answer(1).await.pop().unwrap();
                let result = &first["result"];
                assert_eq!(result["resultType"], "input_required", "{first}");
                let (key, question) = result["inputRequests"].as_object().unwrap().iter().next().unwrap();
                assert_eq!(question["method"], "elicitation/create", "{first}");
                assert_eq!(question["params"]["message"], "Show the secret?");
                let mut retry = json!({"uri":"memo://secret","inputResponses":{key.as_str(): confirm}});
                if let Some(state) = result.get("requestState") {
                    retry["requestState"] = state.clone();
                }
                wire.request(2, "resources/read", retry).await;
                wire.until_answer(2).await.pop().unwrap()
            }
        };
        assert_eq!(answer["result"]["contents"][0]["text"], "the secret", "{era:?}: {answer}");
        assert_eq!(runs.load(Ordering::SeqCst), if era == EraPolicy::Legacy { 1 } else { 2 }, "{era:?}");
    }
}

/// A client of `era` of the test router, declaring form elicitation; `asked` counts the
/// questions it answers (it confirms each).
async fn client(era: EraPolicy, asked: Arc<AtomicUsize>) -> ClientHandle {
    common::client(router(Arc::default()), era, asked).await
}

#[tokio::test]
async fn a_template_asks_through_the_client_in_both_eras() {
    for era in [EraPolicy::Legacy, EraPolicy::Modern] {
        let asked = Arc::new(AtomicUsize::new(0));
        let client = client(era, asked.clone()).await;
        let read: Json = serde_json::from_slice(&client.read_resource("vault://box").await.unwrap()).unwrap();
        assert_eq!(read["contents"][0]["text"], "box opened: true", "{era:?}: {read}");
        assert_eq!(asked.load(Ordering::SeqCst), 1, "{era:?}");
    }
}

#[tokio::test]
async fn a_completion_cannot_ask_in_either_era() {
    let template = r#"{"type":"ref/resource","uri":"notes://{key}"}"#;
    for era in [EraPolicy::Legacy, EraPolicy::Modern] {
        let asked = Arc::new(AtomicUsize::new(0));
        let client = client(era, asked.clone()).await;
        let refused = client.complete(template, "key", "ask").await;
        let Err(RequestError::Server { code, message, .. }) = refused else { panic!("{era:?}: {refused:?}") };
        assert_eq!(code, -32603, "{era:?}");
        assert_eq!(message, InputError::NotAllowed("completion/complete").to_string(), "{era:?}");
        assert_eq!(asked.load(Ordering::SeqCst), 0, "{era:?}: the client was not asked");
        let completed: Json = serde_json::from_slice(&client.complete(template, "key", "al").await.unwrap()).unwrap();
        assert_eq!(completed["completion"]["values"], json!(["alpha", "alps"]), "{era:?}");
    }
}
