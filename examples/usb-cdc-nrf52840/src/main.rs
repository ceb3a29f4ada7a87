//! `usb-cdc-nrf52840`: the example device (`mcp-example-device`, the same source as `mcp-device` and
//! `firmware-qemu`) as MCP firmware on an nRF52840 (for example the nRF52840-DK), served over USB
//! CDC-ACM with embassy-usb. Build-only in CI; on a board, flash it and run
//! `mcp-serial /dev/ttyACM0` as the MCP host's stdio server.
//!
//! The driver is `mcp-sansio-embedded`: the CDC-ACM `Sender` goes through a `PacketWriter` (whole
//! packets, a zero-length packet after a frame that ends on a packet boundary), the `Receiver`
//! is buffered (cancel-safe reads), and time is embassy-time's. When the host closes the port or the
//! cable is pulled, the run ends with an error and starts again once the host reconnects; the
//! MCP session state survives in the server.
#![no_std]
#![no_main]

use core::panic::PanicInfo;
use core::ptr::addr_of_mut;

use embassy_executor::Spawner;
use embassy_futures::join::join;
use embassy_nrf::gpio::{Level, Output, OutputDrive};
use embassy_nrf::usb::Driver;
use embassy_nrf::usb::vbus_detect::HardwareVbusDetect;
use embassy_nrf::{bind_interrupts, pac, peripherals, usb};
use embassy_usb::class::cdc_acm::{CdcAcmClass, State};
use embassy_usb::{Builder, Config as UsbConfig};
use mcp_example_device::{Board, Centidegrees, Device, INSTRUCTIONS, SERVER_NAME, Sensor};
use mcp_sansio::server::{Buffers, CacheHints, CacheScope, Config, Server};
use mcp_sansio::time::Instant;
use mcp_sansio_embedded::{EmbassyClock, PacketWriter};

bind_interrupts!(struct Irqs {
    USBD => usb::InterruptHandler<peripherals::USBD>;
    CLOCK_POWER => usb::vbus_detect::InterruptHandler;
});

/// Full-speed bulk endpoints: 64-byte packets.
const MAX_PACKET: u16 = 64;
/// Receive buffer: the longest message accepted.
const RX_BYTES: usize = 1024;
/// Transmit buffer: the largest answer.
const TX_BYTES: usize = 4096;

/// Everything the USB stack and the server borrow for the program's lifetime.
struct Memory {
    config_descriptor: [u8; 256],
    bos_descriptor: [u8; 256],
    control: [u8; 64],
    cdc_state: State<'static>,
    packet: [u8; MAX_PACKET as usize],
    rx: [u8; RX_BYTES],
    tx: [u8; TX_BYTES],
}

static mut MEMORY: Memory = Memory {
    config_descriptor: [0; 256],
    bos_descriptor: [0; 256],
    control: [0; 64],
    cdc_state: State::new(),
    packet: [0; MAX_PACKET as usize],
    rx: [0; RX_BYTES],
    tx: [0; TX_BYTES],
};

/// The nRF52840-DK: LED1 on P0.13 (active low); the die temperature sensor stands in for both
/// sensors' readings here (a simulated offset for the board sensor).
struct Nrf52840Dk {
    led: Output<'static>,
    on: bool,
}

impl Board for Nrf52840Dk {
    fn temperature(&mut self, sensor: Sensor, _now: Instant) -> Option<Centidegrees> {
        let die = die_temperature()?;
        Some(match sensor {
            Sensor::Cpu => die,
            Sensor::Board => Centidegrees(die.0 - 800),
        })
    }

    fn set_led(&mut self, on: bool) {
        self.on = on;
        if on { self.led.set_low() } else { self.led.set_high() }
    }

    fn led(&self) -> bool {
        self.on
    }

    fn calibration(&self) -> &[u8] {
        &[0x4d, 0x43, 0x50, 0x01, 0x00, 0x10, 0xff, 0x7f, 0x02, 0x9a]
    }
}

/// One blocking reading of the TEMP peripheral (about 36 µs).
fn die_temperature() -> Option<Centidegrees> {
    let temp = pac::TEMP;
    temp.events_datardy().write_value(0);
    temp.tasks_start().write_value(1);
    let mut spins = 0u32;
    while temp.events_datardy().read() == 0 {
        spins += 1;
        if spins > 100_000 {
            return None;
        }
    }
    temp.events_datardy().write_value(0);
    // Quarter degrees, two's complement: 25 hundredths each.
    Some(Centidegrees((temp.temp().read() as i32).saturating_mul(25)))
}

#[embassy_executor::main]
async fn main(_spawner: Spawner) {
    let p = embassy_nrf::init(Default::default());
    // USB needs the external high-frequency crystal.
    pac::CLOCK.tasks_hfclkstart().write_value(1);
    while pac::CLOCK.events_hfclkstarted().read() != 1 {}

    // SAFETY: `main` runs once, and nothing else touches `MEMORY`.
    let memory: &'static mut Memory = unsafe { &mut *addr_of_mut!(MEMORY) };

    let driver = Driver::new(p.USBD, Irqs, HardwareVbusDetect::new(Irqs));
    let mut usb_config = UsbConfig::new(0x1209, 0x0001); // pid.codes test VID/PID
    usb_config.manufacturer = Some("mcp-sansio");
    usb_config.product = Some("MCP example device");
    usb_config.serial_number = Some("0001");
    usb_config.max_power = 100;
    usb_config.max_packet_size_0 = 64;
    let mut builder = Builder::new(
        driver,
        usb_config,
        &mut memory.config_descriptor,
        &mut memory.bos_descriptor,
        &mut [],
        &mut memory.control,
    );
    let class = CdcAcmClass::new(&mut builder, &mut memory.cdc_state, MAX_PACKET);
    let mut usb = builder.build();

    let (sender, receiver) = class.split();
    let mut reader = receiver.into_buffered(&mut memory.packet);
    let mut writer = PacketWriter::new(sender);

    let config = Config::new(SERVER_NAME, env!("CARGO_PKG_VERSION"))
        .with_title("Example MCP device (nRF52840, USB)")
        .with_instructions(INSTRUCTIONS)
        .with_list_cache(CacheHints::new(60_000, CacheScope::Public));
    let board = Nrf52840Dk { led: Output::new(p.P0_13, Level::High, OutputDrive::Standard), on: false };
    let mut server: Server<'static, Device<Nrf52840Dk>, 0> =
        Server::new(Device::new(board), config, Buffers { rx: &mut memory.rx, tx: &mut memory.tx });
    let mut clock = EmbassyClock::new();

    let serve = async {
        loop {
            writer.get_mut().wait_connection().await;
            // Ends with `NotConnected` when the host goes away; the session carries on after.
            let _ = mcp_sansio_embedded::run(&mut server, &mut reader, &mut writer, &mut clock).await;
        }
    };
    join(usb.run(), serve).await;
}

#[panic_handler]
fn panic(_info: &PanicInfo<'_>) -> ! {
    cortex_m::peripheral::SCB::sys_reset()
}
