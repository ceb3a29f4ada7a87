//! Tool functions that ask the client (elicitation, sampling, roots) through their `Context`, in
//! both eras, on tokio and on smol: in a legacy session the function awaits the answer; in
//! 2026-07-28 the call is answered `input_required` and the retry runs the function again.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use mcp_sansio::client::{self, EraPolicy, InputAnswer};
use mcp_sansio::json::JsonWriter;
use mcp_sansio::mcp::ClientCapabilities;
use mcp_sansio::mcp::input::ReceivedInput;
use mcp_sansio::server::Config;
use mcp_sansio_router::{Context, Elicitation, InputError, NoArguments, Router};
use serde_json::{Value as Json, json};

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct Confirm {
    /// Really?
    confirm: bool,
}

/// The test tools (and a prompt that asks too); `runs` counts how often `delete` started.
fn router(runs: Arc<AtomicUsize>) -> Router {
    Router::new()
        .prompt_with_context(
            mcp_sansio::server::PromptInfo::new("confirmed", "Says whether the user confirmed"),
            |_: NoArguments, ctx: Context| async move {
                let answer = match ctx.elicit::<Confirm>("Go on?").await? {
                    Elicitation::Accept(Confirm { confirm }) => format!("confirmed: {confirm}"),
                    _ => "no answer".to_owned(),
                };
                Ok::<_, InputError>(mcp_sansio_router::PromptMessages::new().user(answer))
            },
        )
        .tool_with_context("delete", "Deletes after confirmation", move |_: NoArguments, ctx: Context| {
            runs.fetch_add(1, Ordering::SeqCst);
            async move {
                match ctx.elicit::<Confirm>("Delete everything?").await? {
                    Elicitation::Accept(Confirm { confirm: true }) => Ok::<_, InputError>("deleted"),
                    Elicitation::Accept(_) => Ok("not confirmed"),
                    Elicitation::Decline => Ok("declined"),
                    Elicitation::Cancel => Ok("cancelled"),
                    _ => Ok("?"),
                }
            }
        })
        .tool_with_context("survey", "Asks three questions", |_: NoArguments, ctx: Context| async move {
            let roots = ctx.roots().await?;
            let sampled = ctx
                .sample(json!({"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":5}))
                .await?;
            let confirmed = ctx.elicit::<Confirm>("Sure?").await?;
            let uris: Vec<String> = roots.into_iter().map(|r| r.uri).collect();
            Ok::<_, InputError>(format!("{} | {} | {confirmed:?}", uris.join(","), sampled["content"]["text"]))
        })
}

/// Answers every question: confirms forms (or declines them if `decline`), one root, a sampled
/// "hello". Counts the questions.
fn answer(decline: bool, asked: Arc<AtomicUsize>) -> impl FnMut(ReceivedInput<'_>, &mut JsonWriter<'_>) -> InputAnswer {
    move |input, result| {
        asked.fetch_add(1, Ordering::SeqCst);
        match input {
            ReceivedInput::ElicitForm { requested_schema, .. } => {
                let schema: Json = serde_json::from_slice(requested_schema.as_bytes()).unwrap();
                assert_eq!(schema["properties"]["confirm"]["type"], "boolean", "{schema}");
                result.raw(match decline {
                    true => br#"{"action":"decline"}"#,
                    false => br#"{"action":"accept","content":{"confirm":true}}"#,
                });
            }
            ReceivedInput::ListRoots => result.raw(br#"{"roots":[{"uri":"file:///work","name":"work"}]}"#),
            ReceivedInput::Sample { .. } => {
                result.raw(br#"{"role":"assistant","content":{"type":"text","text":"hello"},"model":"m"}"#)
            }
            _ => return InputAnswer::Refused,
        }
        InputAnswer::Written
    }
}

fn everything() -> ClientCapabilities {
    ClientCapabilities::NONE.with_roots(false).with_sampling(false).with_elicitation_form()
}

fn parse(bytes: &[u8]) -> Json {
    serde_json::from_slice(bytes).unwrap()
}

mod on_tokio {
    use mcp_sansio_tokio::host::{self, ClientHandle, Host};

    use super::*;

    async fn serve(
        era: EraPolicy,
        capabilities: ClientCapabilities,
        host: Host,
        runs: Arc<AtomicUsize>,
    ) -> ClientHandle {
        let (server_io, client_io) = tokio::io::duplex(1 << 16);
        let (mut server, jobs) = router(runs).into_server(Config::new("asker", "1.0.0"), |future| {
            tokio::spawn(future);
        });
        let (server_in, server_out) = tokio::io::split(server_io);
        tokio::spawn(async move { mcp_sansio_tokio::run_with_jobs(&mut server, server_in, server_out, jobs).await });
        let config = client::Config::new("asked", "1.0.0").with_era(era).with_capabilities(capabilities);
        let (handle, mut conn, jobs) = host::connection(config, host, 1 << 16, 1 << 16);
        let (client_in, client_out) = tokio::io::split(client_io);
        tokio::spawn(async move { mcp_sansio_tokio::run_with_jobs(&mut conn, client_in, client_out, jobs).await });
        handle.connect().await.unwrap();
        handle
    }

    #[tokio::test]
    async fn a_tool_elicits_confirmation_in_both_eras() {
        for era in [EraPolicy::Legacy, EraPolicy::Modern] {
            for decline in [false, true] {
                let (runs, asked) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
                let host = Host::new().with_input(Box::new(answer(decline, asked.clone())));
                let client = serve(era, everything(), host, runs.clone()).await;
                let result = parse(&client.call_tool("delete", "{}").await.unwrap());
                let expected = if decline { "declined" } else { "deleted" };
                assert_eq!(result["content"][0]["text"], expected, "{era:?}: {result}");
                assert_eq!(asked.load(Ordering::SeqCst), 1, "{era:?}: asked once");
                // Legacy: the function awaited the answer; 2026-07-28: it ran again on the retry.
                let expected_runs = if era == EraPolicy::Legacy { 1 } else { 2 };
                assert_eq!(runs.load(Ordering::SeqCst), expected_runs, "{era:?}");
            }
        }
    }

    #[tokio::test]
    async fn a_prompt_asks_too_in_both_eras() {
        for era in [EraPolicy::Legacy, EraPolicy::Modern] {
            let asked = Arc::new(AtomicUsize::new(0));
            let host = Host::new().with_input(Box::new(answer(false, asked.clone())));
            let client = serve(era, everything(), host, Arc::default()).await;
            let prompt = parse(&client.get_prompt("confirmed", None).await.unwrap());
            assert_eq!(prompt["messages"][0]["content"]["text"], "confirmed: true", "{era:?}: {prompt}");
            assert_eq!(asked.load(Ordering::SeqCst), 1, "{era:?}");
        }
    }

    #[tokio::test]
    async fn a_tool_asks_several_questions_in_turn_in_both_eras() {
        for era in [EraPolicy::Legacy, EraPolicy::Modern] {
            let asked = Arc::new(AtomicUsize::new(0));
            let host = Host::new().with_input(Box::new(answer(false, asked.clone())));
            let client = serve(era, everything(), host, Arc::default()).await;
            let result = parse(&client.call_tool("survey", "{}").await.unwrap());
            assert_eq!(
                result["content"][0]["text"], r#"file:///work | "hello" | Accept(Confirm { confirm: true })"#,
                "{era:?}: {result}"
            );
            // Each question once: earlier answers come back with the sealed state.
            assert_eq!(asked.load(Ordering::SeqCst), 3, "{era:?}");
        }
    }

    #[tokio::test]
    async fn a_client_without_the_capability_is_not_asked() {
        for era in [EraPolicy::Legacy, EraPolicy::Modern] {
            let asked = Arc::new(AtomicUsize::new(0));
            let host = Host::new().with_input(Box::new(answer(false, asked.clone())));
            let client = serve(era, ClientCapabilities::NONE, host, Arc::default()).await;
            let result = parse(&client.call_tool("delete", "{}").await.unwrap());
            assert_eq!(result["isError"], true, "{era:?}: {result}");
            assert_eq!(result["content"][0]["text"], InputError::NotSupported("elicitation").to_string());
            assert_eq!(asked.load(Ordering::SeqCst), 0);
        }
    }

    /// More calls asking at once than a legacy engine has slots for requests to the client
    /// (`OUTBOUND`): the questions past the slots wait for one, and every call completes.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn more_questions_than_slots_wait_for_one_in_a_legacy_session() {
        let asked = Arc::new(AtomicUsize::new(0));
        let mut answer = answer(false, asked.clone());
        // A slow user: the server asks the next questions while this one is answered.
        let host = Host::new().with_input(Box::new(move |input, result| {
            std::thread::sleep(std::time::Duration::from_millis(5));
            answer(input, result)
        }));
        let client = Arc::new(serve(EraPolicy::Legacy, everything(), host, Arc::default()).await);
        let calls: Vec<_> = (0..3 * mcp_sansio_router::OUTBOUND)
            .map(|_| {
                let client = client.clone();
                tokio::spawn(async move { parse(&client.call_tool("delete", "{}").await.unwrap()) })
            })
            .collect();
        for call in calls {
            let result = call.await.unwrap();
            assert_eq!(result["content"][0]["text"], "deleted", "{result}");
        }
        assert_eq!(asked.load(Ordering::SeqCst), 3 * mcp_sansio_router::OUTBOUND);
    }

    #[tokio::test]
    async fn a_refused_question_is_an_error_the_function_sees() {
        for era in [EraPolicy::Legacy, EraPolicy::Modern] {
            let host = Host::new().with_input(Box::new(|_, _| InputAnswer::Refused));
            let client = serve(era, everything(), host, Arc::default()).await;
            let result = client.call_tool("delete", "{}").await;
            match era {
                // The client's error reaches the function, which fails the call with it.
                EraPolicy::Legacy => {
                    let result = parse(&result.unwrap());
                    assert_eq!(result["isError"], true, "{result}");
                    assert!(result["content"][0]["text"].as_str().unwrap().starts_with("the client refused (-32603)"));
                }
                // 2026-07-28: a client that cannot answer does not retry; it is left with the
                // input-required result.
                _ => assert_eq!(parse(&result.unwrap())["resultType"], "input_required"),
            }
        }
    }
}

mod on_smol {
    use mcp_sansio_futures::host::{self, Host};
    use smol::net::unix::UnixStream;

    use super::*;

    #[test]
    fn a_tool_elicits_confirmation_on_smol_in_both_eras() {
        smol::block_on(async {
            for era in [EraPolicy::Legacy, EraPolicy::Modern] {
                let (server_io, client_io) = UnixStream::pair().unwrap();
                let runs = Arc::new(AtomicUsize::new(0));
                let (mut server, jobs) = router(runs.clone()).into_server(Config::new("asker", "1.0.0"), |future| {
                    smol::spawn(future).detach();
                });
                smol::spawn(async move {
                    mcp_sansio_futures::run_with_jobs(&mut server, server_io.clone(), server_io, jobs).await
                })
                .detach();
                let config = client::Config::new("asked", "1.0.0").with_era(era).with_capabilities(everything());
                let asked = Arc::new(AtomicUsize::new(0));
                let host = Host::new().with_input(Box::new(answer(false, asked.clone())));
                let (client, mut conn, jobs) = host::connection(config, host, 1 << 16, 1 << 16);
                smol::spawn(async move {
                    mcp_sansio_futures::run_with_jobs(&mut conn, client_io.clone(), client_io, jobs).await
                })
                .detach();
                client.connect().await.unwrap();
                let result = parse(&client.call_tool("delete", "{}").await.unwrap());
                assert_eq!(result["content"][0]["text"], "deleted", "{era:?}: {result}");
                assert_eq!(asked.load(Ordering::SeqCst), 1);
                assert_eq!(runs.load(Ordering::SeqCst), if era == EraPolicy::Legacy { 1 } else { 2 });
            }
        });
    }
}
