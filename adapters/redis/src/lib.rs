#![warn(missing_docs)]
//! Redis stores for [`mcp_sansio_http`]'s Streamable HTTP server on several replicas behind a load
//! balancer with no session affinity.
//!
//! [`RedisSessions`] keeps each legacy session's negotiated state (version, client capabilities,
//! log level, subscriptions: [`SessionState::encode`], 57 bytes) under `<prefix>session:<id>`,
//! living for the server's idle timeout after its last use, so that any replica continues any
//! session ([`mcp_sansio_http::shared`] tells what is shared and when it is read and written). The
//! replicas' messages to each other (a client's answer to relay, an announced change) go through
//! the pub/sub channel `<prefix>bus`. A 2026-07-28 task is recorded under `<prefix>task:<id>` (the
//! process running it and its `TaskRecord`) for its time to live, and each replica's process that
//! runs tasks says it is alive under `<prefix>worker:<its random number>` every second (for 3 s).
//! Each DPoP proof a replica accepts is claimed under `<prefix>dpop:<key thumbprint>:<jti>` for as
//! long as it could be replayed, so that no other replica accepts it again.
//!
//! ```no_run
//! # use mcp_sansio::server::{Config, Handler};
//! # use mcp_sansio_http::{HttpConfig, McpHttp};
//! # struct App;
//! # impl Handler for App {}
//! # fn run(addr: std::net::SocketAddr) -> Result<(), mcp_sansio_http::StoreError> {
//! let mut config = HttpConfig::new(Config::new("app", "1.0.0"), addr);
//! config.replica = 1; // each replica its own number
//! let sessions = mcp_sansio_redis::RedisSessions::open("redis://127.0.0.1:6379/")?;
//! let endpoint = McpHttp::new(App, config).with_shared_sessions(sessions);
//! # Ok(()) }
//! ```
//!
//! # Failures
//! The connection is made on first use and made again after it breaks; an operation waits at most
//! [`RedisSessions::with_timeout`] (1 s) for Redis to answer, and the endpoint bounds the whole
//! wait by [`HttpConfig::store_timeout`](mcp_sansio_http::HttpConfig::store_timeout). While Redis
//! is down or slow, the requests that need it get 503 (logged at `warn`), nothing hangs, and the
//! replica serves again as soon as Redis answers: no restart.
//!
//! [`SessionState::encode`]: mcp_sansio::server::SessionState::encode

use std::time::Duration;

use futures_util::StreamExt;
use mcp_sansio::http::SessionId;
use mcp_sansio_http::shared::{EventsRead, SharedEvent, StoreFuture};
use mcp_sansio_http::{SharedSessions, StoreError};
use redis::AsyncConnectionConfig;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};

/// The default prefix of the keys ([`RedisSessions::with_prefix`]).
pub const DEFAULT_PREFIX: &str = "mcp:";

/// Legacy sessions in Redis, shared by a server's replicas: a [`SharedSessions`] (see the
/// [crate docs](crate)).
#[derive(Clone)]
pub struct RedisSessions {
    client: redis::Client,
    connection: ConnectionManager,
    prefix: String,
    timeout: Duration,
}

impl std::fmt::Debug for RedisSessions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisSessions").field("prefix", &self.prefix).field("timeout", &self.timeout).finish()
    }
}

fn store_error(error: &redis::RedisError) -> StoreError {
    StoreError::new(format!("redis: {error}"))
}

/// How long an operation waits for Redis by default.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(1);

fn connect(client: redis::Client, timeout: Duration) -> Result<ConnectionManager, StoreError> {
    let config = ConnectionManagerConfig::new()
        .set_connection_timeout(Some(timeout))
        .set_response_timeout(Some(timeout))
        // One quick attempt within a request; the next request tries again.
        .set_number_of_retries(1)
        .set_max_delay(Duration::from_millis(100));
    ConnectionManager::new_lazy_with_config(client, config).map_err(|e| store_error(&e))
}

impl RedisSessions {
    /// Sessions in the Redis server at `url` (`redis://host:port/db`). Nothing is connected yet:
    /// a replica starts while Redis is down, and connects on first use. Must be called within a
    /// tokio runtime. `Err` for a URL that is not a Redis URL.
    pub fn open(url: &str) -> Result<Self, StoreError> {
        let client = redis::Client::open(url).map_err(|e| store_error(&e))?;
        let connection = connect(client.clone(), DEFAULT_TIMEOUT)?;
        Ok(RedisSessions { client, connection, prefix: DEFAULT_PREFIX.to_owned(), timeout: DEFAULT_TIMEOUT })
    }

    /// The same sessions under keys starting with `prefix` instead of [`DEFAULT_PREFIX`] (several
    /// servers sharing one Redis).
    #[must_use]
    pub fn with_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// The same sessions, each operation waiting at most `timeout` to connect and to be answered.
    pub fn with_timeout(self, timeout: Duration) -> Result<Self, StoreError> {
        let connection = connect(self.client.clone(), timeout)?;
        Ok(RedisSessions { connection, timeout, ..self })
    }

    fn key(&self, id: SessionId) -> String {
        format!("{}session:{}", self.prefix, id.as_str())
    }
}

/// Runs `command`, once more if the connection had broken (the manager has made a new one by
/// then): the first request after Redis came back is served, not failed.
async fn run<T: redis::FromRedisValue>(
    command: &redis::Cmd,
    connection: &mut ConnectionManager,
) -> Result<T, StoreError> {
    match command.query_async(connection).await {
        Err(error) if error.is_io_error() || error.is_connection_dropped() || error.is_unrecoverable_error() => {
            command.query_async(connection).await.map_err(|e| store_error(&e))
        }
        result => result.map_err(|e| store_error(&e)),
    }
}

/// A lifetime in milliseconds for Redis (at least 1).
fn millis(ttl: Duration) -> u64 {
    u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX).max(1)
}

impl SharedSessions for RedisSessions {
    fn load(&self, id: SessionId, ttl: Duration) -> StoreFuture<'_, Option<Vec<u8>>> {
        let mut connection = self.connection.clone();
        let key = self.key(id);
        Box::pin(async move {
            // Read and renewed in one command (Redis 6.2 and later).
            let command = redis::cmd("GETEX").arg(&key).arg("PX").arg(millis(ttl)).to_owned();
            run(&command, &mut connection).await
        })
    }

    fn save(&self, id: SessionId, state: Vec<u8>, ttl: Duration) -> StoreFuture<'_, ()> {
        let mut connection = self.connection.clone();
        let key = self.key(id);
        Box::pin(async move {
            let command = redis::cmd("SET").arg(&key).arg(state).arg("PX").arg(millis(ttl)).to_owned();
            run(&command, &mut connection).await
        })
    }

    fn remove(&self, id: SessionId) -> StoreFuture<'_, ()> {
        let mut connection = self.connection.clone();
        let key = self.key(id);
        Box::pin(async move {
            let command = redis::cmd("DEL").arg(&key).to_owned();
            run::<u64>(&command, &mut connection).await.map(drop)
        })
    }

    fn save_task(&self, id: String, record: Vec<u8>, ttl: Duration) -> StoreFuture<'_, ()> {
        let mut connection = self.connection.clone();
        let key = format!("{}task:{id}", self.prefix);
        Box::pin(async move {
            let command = redis::cmd("SET").arg(&key).arg(record).arg("PX").arg(millis(ttl)).to_owned();
            run(&command, &mut connection).await
        })
    }

    fn load_task(&self, id: String) -> StoreFuture<'_, Option<Vec<u8>>> {
        let mut connection = self.connection.clone();
        let key = format!("{}task:{id}", self.prefix);
        Box::pin(async move { run(&redis::cmd("GET").arg(&key).to_owned(), &mut connection).await })
    }

    fn beat(&self, worker: u64, ttl: Duration) -> StoreFuture<'_, ()> {
        let mut connection = self.connection.clone();
        let key = format!("{}worker:{worker:016x}", self.prefix);
        Box::pin(async move {
            let command = redis::cmd("SET").arg(&key).arg(1).arg("PX").arg(millis(ttl)).to_owned();
            run(&command, &mut connection).await
        })
    }

    fn is_alive(&self, worker: u64) -> StoreFuture<'_, bool> {
        let mut connection = self.connection.clone();
        let key = format!("{}worker:{worker:016x}", self.prefix);
        Box::pin(
            async move { run::<u64>(&redis::cmd("EXISTS").arg(&key).to_owned(), &mut connection).await.map(|n| n > 0) },
        )
    }

    fn claim_once(&self, key: String, ttl: Duration) -> StoreFuture<'_, bool> {
        let mut connection = self.connection.clone();
        let key = format!("{}{key}", self.prefix);
        Box::pin(async move {
            // SET NX: "OK" for the first claim, nil while the key is kept.
            let command = redis::cmd("SET").arg(&key).arg(1).arg("NX").arg("PX").arg(millis(ttl)).to_owned();
            run::<Option<String>>(&command, &mut connection).await.map(|set| set.is_some())
        })
    }

    fn publish(&self, message: Vec<u8>) -> StoreFuture<'_, ()> {
        let mut connection = self.connection.clone();
        let channel = self.bus_channel();
        Box::pin(async move {
            let command = redis::cmd("PUBLISH").arg(&channel).arg(message).to_owned();
            run::<u64>(&command, &mut connection).await.map(drop)
        })
    }

    fn append_events(&self, events: Vec<SharedEvent>, ttl: Duration) -> StoreFuture<'_, ()> {
        let mut connection = self.connection.clone();
        let mut pipe = redis::pipe();
        for event in &events {
            let key = self.events_key(event.session, event.stream);
            let mut add = redis::cmd("XADD");
            add.arg(&key).arg("MAXLEN").arg("~").arg(MAX_STREAM_EVENTS).arg(format!("0-{}", event.sequence));
            add.arg("e").arg(event.event.as_ref());
            pipe.add_command(add).ignore();
            pipe.cmd("PEXPIRE").arg(&key).arg(millis(ttl)).ignore();
        }
        Box::pin(async move { pipe.query_async::<()>(&mut connection).await.map_err(|e| store_error(&e)) })
    }

    fn read_events(&self, session: SessionId, stream: u32, after: u64, wait: Duration) -> StoreFuture<'_, EventsRead> {
        let mut connection = self.connection.clone();
        let (client, key) = (self.client.clone(), self.events_key(session, stream));
        Box::pin(async move {
            let range = redis::cmd("XRANGE").arg(&key).arg(format!("(0-{after}")).arg("+").to_owned();
            let entries: redis::Value = run(&range, &mut connection).await?;
            let mut read = events_of(&entries);
            if read.events.is_empty() && !read.ended && !wait.is_zero() {
                // A connection of its own for a blocking read: the shared one must not wait.
                let config = AsyncConnectionConfig::new().set_response_timeout(None);
                let mut blocking =
                    client.get_multiplexed_async_connection_with_config(&config).await.map_err(|e| store_error(&e))?;
                let block = redis::cmd("XREAD")
                    .arg("BLOCK")
                    .arg(u64::try_from(wait.as_millis()).unwrap_or(u64::MAX).max(1))
                    .arg("STREAMS")
                    .arg(&key)
                    .arg(format!("0-{after}"))
                    .to_owned();
                let reply: redis::Value = block.query_async(&mut blocking).await.map_err(|e| store_error(&e))?;
                // [[key, entries]], or nil when nothing came in time.
                if let redis::Value::Array(streams) = reply
                    && let Some(redis::Value::Array(pair)) = streams.into_iter().next()
                    && let Some(entries) = pair.get(1)
                {
                    read = events_of(entries);
                }
            }
            Ok(read)
        })
    }

    fn subscribe(&self, into: tokio::sync::mpsc::Sender<Vec<u8>>) {
        let (client, channel) = (self.client.clone(), self.bus_channel());
        tokio::spawn(async move {
            let mut delay = RESUBSCRIBE_DELAY;
            while !into.is_closed() {
                let started = tokio::time::Instant::now();
                let result = forward(&client, &channel, &into).await;
                // A subscription that lasted starts the waits over; failed attempts wait longer.
                delay = if started.elapsed() > MAX_RESUBSCRIBE_DELAY { RESUBSCRIBE_DELAY } else { delay * 2 };
                delay = delay.min(MAX_RESUBSCRIBE_DELAY);
                if let Err(error) = result {
                    tracing::warn!(%error, "replicas' messages: no subscription; subscribing again in {delay:?}");
                }
                tokio::time::sleep(delay).await;
            }
        });
    }
}

/// How long the subscription to the replicas' messages waits before it is made again after it
/// broke (doubling while it fails, up to [`MAX_RESUBSCRIBE_DELAY`]). Messages published meanwhile
/// are lost to this replica (pub/sub keeps nothing): a relayed answer's request times out.
const RESUBSCRIBE_DELAY: Duration = Duration::from_millis(100);
const MAX_RESUBSCRIBE_DELAY: Duration = Duration::from_secs(2);

impl RedisSessions {
    /// The Redis stream of a session's SSE stream's events.
    fn events_key(&self, session: SessionId, stream: u32) -> String {
        format!("{}events:{}:{stream}", self.prefix, session.as_str())
    }

    /// The pub/sub channel of the replicas' messages.
    fn bus_channel(&self) -> String {
        format!("{}bus", self.prefix)
    }
}

/// Most events kept in one SSE stream's Redis stream (trimmed approximately, oldest first).
const MAX_STREAM_EVENTS: usize = 1024;

/// The events of an `XRANGE` reply (or one stream of an `XREAD` reply): `[[id, [field, value]]...]`,
/// ids `0-<sequence>`; the end's id is [`SharedEvent::END`].
fn events_of(entries: &redis::Value) -> EventsRead {
    let mut read = EventsRead::default();
    let redis::Value::Array(entries) = entries else { return read };
    for entry in entries {
        let redis::Value::Array(parts) = entry else { continue };
        let (Some(redis::Value::BulkString(id)), Some(redis::Value::Array(fields))) = (parts.first(), parts.get(1))
        else {
            continue;
        };
        let sequence = std::str::from_utf8(id).ok().and_then(|id| id.strip_prefix("0-")?.parse::<u64>().ok());
        match sequence {
            Some(SharedEvent::END) => read.ended = true,
            Some(sequence) => {
                if let Some(redis::Value::BulkString(event)) = fields.get(1) {
                    read.events.push((sequence, bytes::Bytes::copy_from_slice(event)));
                }
            }
            None => {}
        }
    }
    read
}

/// Subscribes to `channel` and forwards each message into `into`, until the subscription breaks
/// (`Err`) or `into` is closed (`Ok`).
async fn forward(
    client: &redis::Client,
    channel: &str,
    into: &tokio::sync::mpsc::Sender<Vec<u8>>,
) -> Result<(), redis::RedisError> {
    let mut pubsub = client.get_async_pubsub().await?;
    pubsub.subscribe(channel).await?;
    let mut messages = pubsub.on_message();
    while let Some(message) = messages.next().await {
        if into.send(message.get_payload_bytes().to_vec()).await.is_err() {
            return Ok(());
        }
    }
    Err(redis::RedisError::from(std::io::Error::new(std::io::ErrorKind::ConnectionAborted, "subscription ended")))
}
