//! The example device's [`Board`] on QEMU's virt board, which has neither LED nor sensor: the LED
//! is a state in memory, the temperature is simulated, the calibration data is in flash.

use mcp_example_device::{Board, Centidegrees, SAMPLE_CALIBRATION, Sensor, simulated_temperature};
use mcp_sansio::time::Instant;

#[derive(Default)]
pub struct VirtBoard {
    led: bool,
}

impl Board for VirtBoard {
    fn temperature(&mut self, sensor: Sensor, now: Instant) -> Option<Centidegrees> {
        Some(simulated_temperature(sensor, now))
    }

    fn set_led(&mut self, on: bool) {
        self.led = on;
    }

    fn led(&self) -> bool {
        self.led
    }

    fn calibration(&self) -> &[u8] {
        &SAMPLE_CALIBRATION
    }
}
