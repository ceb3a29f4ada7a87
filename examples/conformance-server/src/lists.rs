//! Whether `test_dynamic_tool` and `test_dynamic_prompt` are listed: this process's own flags, or,
//! with `--redis` (replicas), counters in Redis that every replica reads, so that a change made
//! through one replica is listed by all at once (the suite lists the tools twice in a row, and
//! through replicas each probe may reach another one).
//!
//! Redis is read with a blocking command when a list reaches the dynamic entry (once per
//! `tools/list` or `prompts/list`, a loopback round trip): the fixtures' handler is synchronous.

use std::sync::Mutex;
use std::time::Duration;

/// The lists with an entry added and removed at run time.
#[derive(Clone, Copy, Debug)]
pub enum Dynamic {
    Tool,
    Prompt,
}

impl Dynamic {
    fn key(self) -> &'static str {
        match self {
            Dynamic::Tool => "conformance:dynamic-tool",
            Dynamic::Prompt => "conformance:dynamic-prompt",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// Whether each dynamic entry is listed (see the module).
pub struct DynamicLists {
    local: [bool; 2],
    /// With replicas: the connection to Redis, where each toggle counts one up (odd: listed).
    shared: Option<Mutex<redis::Connection>>,
}

impl DynamicLists {
    /// Flags of this process alone.
    pub fn local() -> Self {
        DynamicLists { local: [false; 2], shared: None }
    }

    /// Flags in the Redis server at `url`, shared by every replica connected to it.
    pub fn shared(url: &str) -> Result<Self, String> {
        let wait = Duration::from_secs(1);
        let client = redis::Client::open(url).map_err(|e| format!("{url}: {e}"))?;
        let connection = client.get_connection_with_timeout(wait).map_err(|e| format!("{url}: {e}"))?;
        connection.set_read_timeout(Some(wait)).map_err(|e| e.to_string())?;
        connection.set_write_timeout(Some(wait)).map_err(|e| e.to_string())?;
        Ok(DynamicLists { local: [false; 2], shared: Some(Mutex::new(connection)) })
    }

    /// Whether `list`'s dynamic entry is listed now (Redis unreachable: as this process last knew).
    pub fn listed(&self, list: Dynamic) -> bool {
        let Some(shared) = &self.shared else { return self.local[list.index()] };
        let mut connection = shared.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        match redis::cmd("GET").arg(list.key()).query::<Option<u64>>(&mut *connection) {
            Ok(count) => count.unwrap_or(0) % 2 == 1,
            Err(error) => {
                eprintln!("conformance-server: {} not read from Redis: {error}", list.key());
                self.local[list.index()]
            }
        }
    }

    /// Adds `list`'s dynamic entry if it is not listed, removes it if it is; whether it is listed now.
    pub fn toggle(&mut self, list: Dynamic) -> bool {
        let listed = match &self.shared {
            None => !self.local[list.index()],
            Some(shared) => {
                let mut connection = shared.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
                match redis::cmd("INCR").arg(list.key()).query::<u64>(&mut *connection) {
                    Ok(count) => count % 2 == 1,
                    Err(error) => {
                        eprintln!("conformance-server: {} not changed in Redis: {error}", list.key());
                        !self.local[list.index()]
                    }
                }
            }
        };
        self.local[list.index()] = listed;
        listed
    }
}
