//! Packet-based transmit sides (USB bulk endpoints): whole packets and zero-length packets.

use embedded_io_async::{ErrorType, Write};

/// The transmit side of a packet link, such as a USB CDC-ACM bulk IN endpoint.
///
/// Implemented for embassy-usb's `cdc_acm::Sender` with the `embassy-usb` feature.
#[allow(async_fn_in_trait)] // Single-threaded executors are the target; no `Send` bound wanted.
pub trait PacketWrite: ErrorType {
    /// The largest packet [`PacketWrite::write_packet`] accepts; a packet of exactly this size does
    /// not end a USB transfer.
    fn max_packet_size(&self) -> usize;

    /// Sends one packet of at most [`PacketWrite::max_packet_size`] bytes; an empty `packet` is a
    /// zero-length packet (ZLP).
    async fn write_packet(&mut self, packet: &[u8]) -> Result<(), Self::Error>;
}

/// An [`embedded_io_async::Write`] over a [`PacketWrite`], for NDJSON output.
///
/// - Each `write` sends one packet of up to `max_packet_size` bytes and returns how many it took;
///   the driver offers the rest again (`write_all` semantics, messages stay whole and in order).
/// - A USB host delivers a transfer when a packet shorter than `max_packet_size` ends it. When a
///   frame (a line ending in `\n`) ends exactly on a packet boundary, a zero-length packet follows
///   at once, so the frame is not held back until the next answer. Any other full-size last packet
///   gets its zero-length packet at `flush`.
#[derive(Debug)]
pub struct PacketWriter<P> {
    inner: P,
    /// The last packet sent was full-size and no zero-length packet followed it.
    zlp_owed: bool,
}

impl<P> PacketWriter<P> {
    /// Wraps `inner`.
    pub const fn new(inner: P) -> Self {
        PacketWriter { inner, zlp_owed: false }
    }

    /// The wrapped packet writer.
    pub fn get_ref(&self) -> &P {
        &self.inner
    }

    /// The wrapped packet writer, mutably (for example to wait for the USB host to connect).
    pub fn get_mut(&mut self) -> &mut P {
        &mut self.inner
    }

    /// Unwraps the packet writer.
    pub fn into_inner(self) -> P {
        self.inner
    }
}

impl<P: ErrorType> ErrorType for PacketWriter<P> {
    type Error = P::Error;
}

impl<P: PacketWrite> Write for PacketWriter<P> {
    async fn write(&mut self, buf: &[u8]) -> Result<usize, Self::Error> {
        if buf.is_empty() {
            return Ok(0);
        }
        let max = self.inner.max_packet_size().max(1);
        let packet = &buf[..buf.len().min(max)];
        self.inner.write_packet(packet).await?;
        self.zlp_owed = packet.len() == max;
        if self.zlp_owed && packet.ends_with(b"\n") {
            // A frame ends on a packet boundary. If the ZLP fails, the packet was still sent:
            // report it, and let `flush` (or the next write) meet the error.
            if self.inner.write_packet(&[]).await.is_ok() {
                self.zlp_owed = false;
            }
        }
        Ok(packet.len())
    }

    async fn flush(&mut self) -> Result<(), Self::Error> {
        if self.zlp_owed {
            self.inner.write_packet(&[]).await?;
            self.zlp_owed = false;
        }
        Ok(())
    }
}

#[cfg(feature = "embassy-usb")]
impl<'d, D: embassy_usb::driver::Driver<'d>> PacketWrite for embassy_usb::class::cdc_acm::Sender<'d, D> {
    fn max_packet_size(&self) -> usize {
        usize::from(embassy_usb::class::cdc_acm::Sender::max_packet_size(self))
    }

    async fn write_packet(&mut self, packet: &[u8]) -> Result<(), Self::Error> {
        // `BufferOverflow` cannot happen: packets are at most `max_packet_size` bytes.
        embassy_usb::class::cdc_acm::Sender::write_packet(self, packet)
            .await
            .map_err(|_| embassy_usb::class::cdc_acm::CdcAcmError::NotConnected)
    }
}
