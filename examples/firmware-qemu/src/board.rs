//! The example device's [`Board`] on the lm3s6965evb: the status LED on GPIO port F pin 0, a
//! simulated temperature (QEMU models no sensor), and calibration data in flash.

use core::ptr::{read_volatile, write_volatile};

use mcp_example_device::{Board, Centidegrees, SAMPLE_CALIBRATION, Sensor, simulated_temperature};
use mcp_sansio::time::Instant;

const SYSCTL_RCGC2: usize = 0x400F_E108;
const GPIOF: usize = 0x4002_5000;
/// Data register, with address bits [9:2] masking pin 0 only.
const GPIOF_DATA_PIN0: usize = GPIOF + (1 << 2);
const GPIO_DIR: usize = 0x400;
const GPIO_DEN: usize = 0x51C;

pub struct QemuBoard {
    led: bool,
}

impl QemuBoard {
    /// Enables port F and makes PF0 a digital output, LED off.
    pub fn new() -> Self {
        // SAFETY: System Control clock gating and GPIO port F registers, owned by this board.
        unsafe {
            write_volatile(SYSCTL_RCGC2 as *mut u32, read_volatile(SYSCTL_RCGC2 as *const u32) | 1 << 5);
            let dir = (GPIOF + GPIO_DIR) as *mut u32;
            write_volatile(dir, read_volatile(dir) | 1);
            let den = (GPIOF + GPIO_DEN) as *mut u32;
            write_volatile(den, read_volatile(den) | 1);
        }
        let mut board = QemuBoard { led: true };
        board.set_led(false);
        board
    }
}

impl Board for QemuBoard {
    fn temperature(&mut self, sensor: Sensor, now: Instant) -> Option<Centidegrees> {
        // QEMU's board has no sensor: the shared simulation.
        Some(simulated_temperature(sensor, now))
    }

    fn set_led(&mut self, on: bool) {
        // SAFETY: the masked data register of PF0.
        unsafe { write_volatile(GPIOF_DATA_PIN0 as *mut u32, u32::from(on)) };
        self.led = on;
    }

    fn led(&self) -> bool {
        self.led
    }

    fn calibration(&self) -> &[u8] {
        &SAMPLE_CALIBRATION
    }
}
