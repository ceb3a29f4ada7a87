//! `PacketWriter` over a fake USB bulk IN endpoint: whole packets, zero-length packets after frames
//! that end on a packet boundary, and a host that only delivers a transfer once a short packet ends it.

#[path = "../../driver/tests/support/mod.rs"]
mod support;

use embedded_io_async::{ErrorKind, ErrorType, Write};
use mcp_sansio_embedded::{PacketWrite, PacketWriter, run};
use support::*;

/// A fake bulk IN endpoint: records packets, like a host controller would see them.
struct FakeEndpoint {
    max_packet: usize,
    packets: Vec<Vec<u8>>,
    /// The next `write_packet` calls fail while this is non-zero.
    fail_next: usize,
}

impl FakeEndpoint {
    fn new(max_packet: usize) -> Self {
        FakeEndpoint { max_packet, packets: Vec::new(), fail_next: 0 }
    }

    fn sizes(&self) -> Vec<usize> {
        self.packets.iter().map(Vec::len).collect()
    }

    /// What a USB host hands to its application: transfers, each complete once a packet shorter
    /// than `max_packet` ends it. Returns the delivered bytes and the bytes still held back.
    fn host_view(&self) -> (Vec<u8>, Vec<u8>) {
        let (mut delivered, mut transfer) = (Vec::new(), Vec::new());
        for packet in &self.packets {
            transfer.extend_from_slice(packet);
            if packet.len() < self.max_packet {
                delivered.append(&mut transfer);
            }
        }
        (delivered, transfer)
    }
}

impl ErrorType for FakeEndpoint {
    type Error = ErrorKind;
}

impl PacketWrite for FakeEndpoint {
    fn max_packet_size(&self) -> usize {
        self.max_packet
    }

    async fn write_packet(&mut self, packet: &[u8]) -> Result<(), ErrorKind> {
        assert!(packet.len() <= self.max_packet, "packet of {} bytes", packet.len());
        if self.fail_next > 0 {
            self.fail_next -= 1;
            return Err(ErrorKind::NotConnected);
        }
        self.packets.push(packet.to_vec());
        Ok(())
    }
}

/// Writes `data` with `write_all` semantics, then flushes.
fn write_all_and_flush(writer: &mut PacketWriter<FakeEndpoint>, data: &[u8]) {
    block_on(async {
        writer.write_all(data).await.unwrap();
        writer.flush().await.unwrap();
    })
    .unwrap();
}

fn frame(len: usize) -> Vec<u8> {
    let mut frame = vec![b'x'; len - 1];
    frame.push(b'\n');
    frame
}

#[test]
fn a_write_sends_at_most_one_packet() {
    let mut writer = PacketWriter::new(FakeEndpoint::new(64));
    let n = block_on(writer.write(&[b'a'; 200])).unwrap().unwrap();
    assert_eq!(n, 64);
    assert_eq!(writer.get_ref().sizes(), vec![64]);
    assert_eq!(block_on(writer.write(&[])).unwrap(), Ok(0));
    assert_eq!(writer.get_ref().sizes(), vec![64], "an empty write sends nothing");
}

#[test]
fn frames_ending_on_a_packet_boundary_get_a_zero_length_packet() {
    for (len, sizes) in [
        (64, vec![64, 0]),
        (128, vec![64, 64, 0]),
        (100, vec![64, 36]),
        (63, vec![63]),
        (65, vec![64, 1]),
        (1, vec![1]),
    ] {
        let mut writer = PacketWriter::new(FakeEndpoint::new(64));
        write_all_and_flush(&mut writer, &frame(len));
        assert_eq!(writer.get_ref().sizes(), sizes, "frame of {len} bytes");
        let (delivered, held) = writer.get_ref().host_view();
        assert_eq!((delivered.len(), held.len()), (len, 0));
    }
}

#[test]
fn the_zero_length_packet_follows_the_frame_at_once_not_at_flush() {
    // Two frames in one buffer: the first ends on the boundary and must not wait for the second.
    let mut data = frame(64);
    data.extend_from_slice(&frame(10));
    let mut writer = PacketWriter::new(FakeEndpoint::new(64));
    block_on(writer.write_all(&data)).unwrap().unwrap();
    assert_eq!(writer.get_ref().sizes(), vec![64, 0, 10]);
    block_on(writer.flush()).unwrap().unwrap();
    assert_eq!(writer.get_ref().sizes(), vec![64, 0, 10], "nothing owed");
}

#[test]
fn a_full_packet_that_is_not_a_frame_end_gets_its_zero_length_packet_at_flush() {
    let mut writer = PacketWriter::new(FakeEndpoint::new(8));
    block_on(writer.write_all(b"12345678")).unwrap().unwrap();
    assert_eq!(writer.get_ref().sizes(), vec![8]);
    assert_eq!(writer.get_ref().host_view().1.len(), 8, "held back by the host");
    block_on(writer.flush()).unwrap().unwrap();
    assert_eq!(writer.get_ref().sizes(), vec![8, 0]);
    // More data after a full packet makes the owed ZLP unnecessary.
    block_on(writer.write_all(b"abcdefgh")).unwrap().unwrap();
    block_on(writer.write_all(b"ij\n")).unwrap().unwrap();
    block_on(writer.flush()).unwrap().unwrap();
    assert_eq!(writer.get_ref().sizes(), vec![8, 0, 8, 3]);
}

/// Fails exactly its second `write_packet` call.
struct FailSecond(FakeEndpoint, usize);

impl ErrorType for FailSecond {
    type Error = ErrorKind;
}

impl PacketWrite for FailSecond {
    fn max_packet_size(&self) -> usize {
        self.0.max_packet
    }
    async fn write_packet(&mut self, packet: &[u8]) -> Result<(), ErrorKind> {
        self.1 += 1;
        if self.1 == 2 {
            return Err(ErrorKind::NotConnected);
        }
        self.0.write_packet(packet).await
    }
}

#[test]
fn a_failed_zero_length_packet_is_not_a_lost_write_and_flush_retries_it() {
    let mut writer = PacketWriter::new(FailSecond(FakeEndpoint::new(8), 0));
    assert_eq!(block_on(writer.write(b"1234567\n")).unwrap(), Ok(8), "the data packet was sent");
    assert_eq!(writer.get_ref().0.sizes(), vec![8]);
    assert_eq!(block_on(writer.flush()).unwrap(), Ok(()), "flush sends the owed ZLP");
    assert_eq!(writer.get_ref().0.sizes(), vec![8, 0]);

    // A ZLP that fails at flush is reported there.
    let mut writer = PacketWriter::new(FakeEndpoint::new(8));
    block_on(writer.write(b"12345678")).unwrap().unwrap();
    writer.get_mut().fail_next = 1;
    assert_eq!(block_on(writer.flush()).unwrap(), Err(ErrorKind::NotConnected));
    assert_eq!(block_on(writer.flush()).unwrap(), Ok(()));
    assert_eq!(writer.get_ref().sizes(), vec![8, 0]);
}

#[test]
fn every_answer_reaches_the_host_whatever_its_length() {
    // Echo messages of every length modulo the packet size: some answers end on a boundary.
    for max_packet in [8usize, 64] {
        let mut messages = vec![INITIALIZE.to_string()];
        for len in 0..(max_packet + 3) {
            messages.push(echo(10 + len as u32, &"m".repeat(len)));
        }
        let input = lines(&messages.iter().map(String::as_str).collect::<Vec<_>>());
        let mut boundary_endings = 0;
        // One request per read, so every answer is the end of a burst.
        let mut reader = ScriptedReader::chunked(&input, 1, false);
        let mut writer = PacketWriter::new(FakeEndpoint::new(max_packet));
        with_device(1024, 2048, |server| {
            block_on(run(server, &mut reader, &mut writer, &mut FrozenClock)).unwrap().unwrap();
        });
        let endpoint = writer.into_inner();
        let (delivered, held) = endpoint.host_view();
        assert!(held.is_empty(), "{} bytes held back by the host", held.len());
        let answers = messages_of(&delivered);
        assert_eq!(answers.len(), max_packet + 4);
        for line in delivered.split_inclusive(|&b| b == b'\n') {
            boundary_endings += usize::from(line.len() % max_packet == 0);
        }
        assert!(boundary_endings > 0, "no answer ended on a {max_packet}-byte boundary: the test proves nothing");
        assert!(endpoint.packets.iter().all(|p| p.len() <= max_packet));
    }
}

fn messages_of(bytes: &[u8]) -> Vec<serde_json::Value> {
    messages(bytes)
}
