//! The simulated board every handler instance of `mcp-device` drives.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use mcp_example_device::{Board, Centidegrees, SAMPLE_CALIBRATION, Sensor, simulated_temperature};
use mcp_sansio::time::Instant;

/// A board with neither LED nor sensor, as [`mcp_example_device::SimulatedBoard`], whose clones are
/// one board: the LED and the blink setting are shared, so that what one handler instance sets
/// (with `--http`, there is one per shard) every other sees. With `--redis` they are kept in Redis
/// ([`SharedBoard::in_redis`]), so that every replica drives the same board.
#[derive(Clone, Debug, Default)]
pub struct SharedBoard {
    local: Arc<State>,
    #[cfg(feature = "redis")]
    redis: Option<redis_board::RedisState>,
}

/// The board's state: independent flags, each read and written whole.
#[derive(Debug, Default)]
struct State {
    led: AtomicBool,
    blink: AtomicBool,
}

/// The flags of a board.
#[derive(Clone, Copy, Debug)]
enum Flag {
    Led,
    Blink,
}

impl SharedBoard {
    /// The board kept in the Redis server at `url` (what every replica connected to it drives).
    #[cfg(feature = "redis")]
    pub fn in_redis(url: &str) -> Result<Self, String> {
        Ok(SharedBoard { local: Arc::default(), redis: Some(redis_board::RedisState::open(url)?) })
    }

    fn get(&self, flag: Flag) -> bool {
        #[cfg(feature = "redis")]
        if let Some(value) = self.redis.as_ref().and_then(|redis| redis.get(flag)) {
            return value;
        }
        self.local_flag(flag).load(Ordering::Relaxed)
    }

    fn set(&self, flag: Flag, on: bool) {
        #[cfg(feature = "redis")]
        if let Some(redis) = &self.redis {
            redis.set(flag, on);
        }
        self.local_flag(flag).store(on, Ordering::Relaxed);
    }

    fn local_flag(&self, flag: Flag) -> &AtomicBool {
        match flag {
            Flag::Led => &self.local.led,
            Flag::Blink => &self.local.blink,
        }
    }
}

impl Board for SharedBoard {
    fn temperature(&mut self, sensor: Sensor, now: Instant) -> Option<Centidegrees> {
        Some(simulated_temperature(sensor, now))
    }

    fn set_led(&mut self, on: bool) {
        self.set(Flag::Led, on);
    }

    fn led(&self) -> bool {
        self.get(Flag::Led)
    }

    fn calibration(&self) -> &[u8] {
        &SAMPLE_CALIBRATION
    }

    fn uptime_ms(&self, now: Instant) -> u64 {
        #[cfg(feature = "redis")]
        if let Some(redis) = &self.redis {
            return redis.uptime_ms();
        }
        now.as_millis()
    }

    fn blink_setting(&self) -> Option<bool> {
        Some(self.get(Flag::Blink))
    }

    fn set_blink_setting(&mut self, enabled: bool) {
        self.set(Flag::Blink, enabled);
    }
}

/// The flags in Redis: `mcp-device:led` and `mcp-device:blink`, `1` or `0`, read and written with
/// one blocking command each, and the board's start, `mcp-device:booted` (ms since 1970, set by
/// the first replica) (a loopback round trip; the device handler is synchronous). Redis
/// unreachable: the flag is read as this process last knew it, and a write is logged and kept here.
#[cfg(feature = "redis")]
mod redis_board {
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    use super::Flag;

    #[derive(Clone)]
    pub(super) struct RedisState {
        connection: Arc<Mutex<redis::Connection>>,
        /// When the board started (ms since 1970): the first replica's start, kept in Redis.
        booted_unix_ms: u64,
    }

    fn unix_ms() -> u64 {
        u64::try_from(std::time::UNIX_EPOCH.elapsed().unwrap_or_default().as_millis()).unwrap_or(u64::MAX)
    }

    impl std::fmt::Debug for RedisState {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("RedisState")
        }
    }

    fn key(flag: Flag) -> &'static str {
        match flag {
            Flag::Led => "mcp-device:led",
            Flag::Blink => "mcp-device:blink",
        }
    }

    impl RedisState {
        pub(super) fn open(url: &str) -> Result<Self, String> {
            let wait = Duration::from_secs(1);
            let client = redis::Client::open(url).map_err(|e| format!("{url}: {e}"))?;
            let connection = client.get_connection_with_timeout(wait).map_err(|e| format!("{url}: {e}"))?;
            connection.set_read_timeout(Some(wait)).map_err(|e| e.to_string())?;
            connection.set_write_timeout(Some(wait)).map_err(|e| e.to_string())?;
            let mut connection = connection;
            // The board started with the first replica: its time is kept, later ones read it.
            let keep = redis::cmd("SET").arg("mcp-device:booted").arg(unix_ms()).arg("NX").to_owned();
            keep.query::<Option<String>>(&mut connection).map_err(|e| format!("{url}: {e}"))?;
            let read = redis::cmd("GET").arg("mcp-device:booted").to_owned();
            let booted = read.query::<Option<u64>>(&mut connection).map_err(|e| format!("{url}: {e}"))?;
            Ok(RedisState { connection: Arc::new(Mutex::new(connection)), booted_unix_ms: booted.unwrap_or(unix_ms()) })
        }

        /// Milliseconds since the board started (the wall clock: the replicas' clocks agree on it).
        pub(super) fn uptime_ms(&self) -> u64 {
            unix_ms().saturating_sub(self.booted_unix_ms)
        }

        /// The flag in Redis (unset: off); `None` if Redis did not answer.
        pub(super) fn get(&self, flag: Flag) -> Option<bool> {
            let mut connection = self.connection.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            match redis::cmd("GET").arg(key(flag)).query::<Option<u8>>(&mut *connection) {
                Ok(value) => Some(value == Some(1)),
                Err(error) => {
                    eprintln!("mcp-device: {} not read from Redis: {error}", key(flag));
                    None
                }
            }
        }

        pub(super) fn set(&self, flag: Flag, on: bool) {
            let mut connection = self.connection.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            if let Err(error) = redis::cmd("SET").arg(key(flag)).arg(u8::from(on)).query::<()>(&mut *connection) {
                eprintln!("mcp-device: {} not written to Redis: {error}", key(flag));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_example_device::Device;
    use mcp_sansio::server::Handler;

    /// The blink_led tool's index: after the nine fixed tools.
    const BLINK: usize = mcp_example_device::TOOLS.len();

    #[test]
    fn clones_share_the_led_and_the_blink_setting() {
        let mut board = SharedBoard::default();
        let other = Device::new(board.clone());
        assert!(!other.board().led() && other.tool(BLINK).is_none());
        board.set_led(true);
        board.set_blink_setting(true);
        assert!(other.board().led());
        assert_eq!(other.tool(BLINK).map(|tool| tool.name), Some("blink_led"));
        board.factory_reset();
        assert!(!other.board().led());
    }
}
