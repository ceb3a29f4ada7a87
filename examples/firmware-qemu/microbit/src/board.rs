//! The example device's [`Board`] on the micro:bit: the status LED is the top-left LED of the 5x5
//! matrix (row 1 on P0.13 high, column 1 on P0.04 low), the temperature is simulated (QEMU models
//! no TEMP peripheral), the calibration data is in flash.

use core::ptr::write_volatile;

use mcp_example_device::{Board, Centidegrees, SAMPLE_CALIBRATION, Sensor, simulated_temperature};
use mcp_sansio::time::Instant;

const GPIO: usize = 0x5000_0000;
const OUTSET: usize = 0x508;
const OUTCLR: usize = 0x50C;
const DIRSET: usize = 0x518;
const ROW1: u32 = 1 << 13;
const COL1: u32 = 1 << 4;

fn write_reg(offset: usize, value: u32) {
    // SAFETY: an aligned GPIO register; the LED's pins are this board's.
    unsafe { write_volatile((GPIO + offset) as *mut u32, value) }
}

pub struct Microbit {
    led: bool,
}

impl Microbit {
    /// Makes the LED's row and column outputs, LED off.
    pub fn new() -> Self {
        write_reg(OUTCLR, ROW1 | COL1);
        write_reg(DIRSET, ROW1 | COL1);
        Microbit { led: false }
    }
}

impl Board for Microbit {
    fn temperature(&mut self, sensor: Sensor, now: Instant) -> Option<Centidegrees> {
        Some(simulated_temperature(sensor, now))
    }

    fn set_led(&mut self, on: bool) {
        write_reg(if on { OUTSET } else { OUTCLR }, ROW1);
        self.led = on;
    }

    fn led(&self) -> bool {
        self.led
    }

    fn calibration(&self) -> &[u8] {
        &SAMPLE_CALIBRATION
    }
}
