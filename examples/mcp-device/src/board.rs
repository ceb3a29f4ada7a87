//! The simulated board every handler instance of `mcp-device` drives.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use mcp_example_device::{Board, Centidegrees, SAMPLE_CALIBRATION, Sensor, simulated_temperature};
use mcp_sansio::time::Instant;

/// A board with neither LED nor sensor, as [`mcp_example_device::SimulatedBoard`], whose clones are
/// one board: the LED and the blink setting are shared, so that what one handler instance sets
/// (with `--http`, there is one per shard) every other sees.
#[derive(Clone, Debug, Default)]
pub struct SharedBoard(Arc<State>);

/// The board's state: independent flags, each read and written whole.
#[derive(Debug, Default)]
struct State {
    led: AtomicBool,
    blink: AtomicBool,
}

impl Board for SharedBoard {
    fn temperature(&mut self, sensor: Sensor, now: Instant) -> Option<Centidegrees> {
        Some(simulated_temperature(sensor, now))
    }

    fn set_led(&mut self, on: bool) {
        self.0.led.store(on, Ordering::Relaxed);
    }

    fn led(&self) -> bool {
        self.0.led.load(Ordering::Relaxed)
    }

    fn calibration(&self) -> &[u8] {
        &SAMPLE_CALIBRATION
    }

    fn blink_setting(&self) -> Option<bool> {
        Some(self.0.blink.load(Ordering::Relaxed))
    }

    fn set_blink_setting(&mut self, enabled: bool) {
        self.0.blink.store(enabled, Ordering::Relaxed);
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
