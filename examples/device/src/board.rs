//! The hardware side: the [`Board`] trait the device drives, its sensors and temperatures, and
//! the boards without hardware (fixed answers for tests, a simulation for the host binary).

use mcp_sansio::json::JsonStr;
use mcp_sansio::num::{Decimal, ZeroPadded, div_rem};
use mcp_sansio::time::Instant;

/// A temperature sensor on the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sensor {
    /// The board's ambient sensor.
    Board,
    /// The microcontroller's internal sensor.
    Cpu,
}

impl Sensor {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Sensor::Board => "board",
            Sensor::Cpu => "cpu",
        }
    }

    pub(crate) fn from_name(name: JsonStr<'_>) -> Option<Self> {
        Sensor::ALL.iter().copied().find(|s| name.eq_str(s.name()))
    }

    pub(crate) const ALL: [Sensor; 2] = [Sensor::Board, Sensor::Cpu];
}

/// A temperature in hundredths of a degree Celsius (`Centidegrees(2150)` is 21.50 °C). Sensors
/// report integers (the nRF52840's in quarter degrees), so firmware needs no floating point for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Centidegrees(pub i32);

impl Centidegrees {
    /// Writes the degrees with two decimals (`21.50`), or with one when the second is a zero and
    /// `trim` (`21.5`, `41.0`). Each part goes straight to the formatter: a `write!` here would
    /// nest a formatting run in the caller's, deeper on the stack.
    fn show(self, f: &mut core::fmt::Formatter<'_>, trim: bool) -> core::fmt::Result {
        use core::fmt::Display;
        let (degrees, hundredths) = (self.0.unsigned_abs() / 100, self.0.unsigned_abs() % 100);
        f.write_str(if self.0 < 0 { "-" } else { "" })?;
        Decimal(u64::from(degrees)).fmt(f)?;
        f.write_str(".")?;
        match trim && hundredths % 10 == 0 {
            true => Decimal(u64::from(hundredths / 10)).fmt(f),
            false => ZeroPadded(u64::from(hundredths), 2).fmt(f),
        }
    }
}

/// Two decimals, as the text content shows a reading: `21.50`.
impl core::fmt::Display for Centidegrees {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        self.show(f, false)
    }
}

/// A reading as a JSON number, without a last zero decimal (`21.5`, `41.0`, `23.55`: what a float
/// formatter writes for such a value); `null` for no reading.
pub(crate) struct CelsiusJson(pub(crate) Option<Centidegrees>);

impl core::fmt::Display for CelsiusJson {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self.0 {
            Some(reading) => reading.show(f, true),
            None => f.write_str("null"),
        }
    }
}

/// `{"sensor":…,"celsius":…}`: the structured result of `read_temperature` and the contents of a
/// sensor resource, written as JSON text (no serde: the firmware's flash).
pub(crate) struct TemperatureJson {
    pub(crate) sensor: Sensor,
    pub(crate) reading: Centidegrees,
}

impl core::fmt::Display for TemperatureJson {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        // Straight to the formatter, as `Centidegrees::show`: no formatting run nested in the caller's.
        f.write_str(r#"{"sensor":""#)?;
        f.write_str(self.sensor.name())?;
        f.write_str(r#"","celsius":"#)?;
        self.reading.show(f, true)?;
        f.write_str("}")
    }
}

/// The hardware the device logic needs.
pub trait Board {
    /// Reads a temperature; `None` if the sensor did not answer.
    fn temperature(&mut self, sensor: Sensor, now: Instant) -> Option<Centidegrees>;
    /// Switches the LED.
    fn set_led(&mut self, on: bool);
    /// The LED's state.
    fn led(&self) -> bool;
    /// Factory calibration data.
    fn calibration(&self) -> &[u8];
    /// The blink setting (whether `blink_led` is offered) if the board keeps it, as a real board
    /// would in flash and as a board shared by several [`Device`](crate::Device)s must; `None`
    /// (the default): each `Device` keeps its own, in memory.
    fn blink_setting(&self) -> Option<bool> {
        None
    }
    /// Stores the blink setting, if the board keeps it ([`Board::blink_setting`]).
    fn set_blink_setting(&mut self, _enabled: bool) {}
    /// Milliseconds since the board started, at the engine's `now`: by default `now` itself (the
    /// engine's clock starts with the board).
    fn uptime_ms(&self, now: Instant) -> u64 {
        now.as_millis()
    }
    /// Restores the factory state (the LED off; a real board would also clear its settings).
    fn factory_reset(&mut self) {
        self.set_led(false);
    }
}

/// Calibration bytes of the simulated boards (host binary, QEMU firmware).
pub const SAMPLE_CALIBRATION: [u8; 10] = [0x4d, 0x43, 0x50, 0x01, 0x00, 0x10, 0xff, 0x7f, 0x02, 0x9a];

/// A board whose sensors always read 21.50 °C, whose LED stays off and whose calibration is
/// [`SAMPLE_CALIBRATION`]: the device with predictable answers, for tests and benchmarks.
#[derive(Clone, Copy, Debug, Default)]
pub struct FixedBoard;

impl Board for FixedBoard {
    fn temperature(&mut self, _sensor: Sensor, _now: Instant) -> Option<Centidegrees> {
        Some(Centidegrees(2150))
    }
    fn set_led(&mut self, _on: bool) {}
    fn led(&self) -> bool {
        false
    }
    fn calibration(&self) -> &[u8] {
        &SAMPLE_CALIBRATION
    }
}

/// The temperature a simulated board reports: a fixed base per sensor with a slow, bounded drift over
/// time (0.05 °C a second, for 20 s), so that successive readings differ.
pub fn simulated_temperature(sensor: Sensor, now: Instant) -> Centidegrees {
    let drift = div_rem(div_rem(now.as_millis(), 1000).0, 20).1 as i32 * 5;
    match sensor {
        Sensor::Board => Centidegrees(2350 + drift),
        Sensor::Cpu => Centidegrees(4100 + drift),
    }
}

/// A board with neither LED nor sensor: the LED a state in memory, the temperature
/// [simulated](simulated_temperature), the calibration data [`SAMPLE_CALIBRATION`] (the host's
/// `mcp-device`, QEMU's RISC-V `virt`).
#[derive(Debug, Default)]
pub struct SimulatedBoard {
    led: bool,
}

impl Board for SimulatedBoard {
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
