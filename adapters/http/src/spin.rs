//! A connection that spins briefly before it waits for its next request
//! ([`HttpConfig::spin_before_wait`](crate::HttpConfig::spin_before_wait)).
//!
//! A connection with nothing to read parks its task; when the next request arrives, the reactor
//! wakes the thread, which on a virtual machine costs tens of microseconds (the CPU left its idle
//! state). Retrying the read in a busy loop for a short, capped time first serves a request that
//! arrives within it without that sleep, at the price of the CPU the loop burns.

use std::io;
use std::os::fd::{AsRawFd, RawFd};
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;

/// A TCP stream whose reads, when nothing is ready and an answer went out since the last read,
/// retry `recv(2)` for up to `spin` before the task waits on the reactor. Writes are the stream's
/// own.
pub(crate) struct SpinningStream {
    stream: TcpStream,
    spin: Duration,
    /// Bytes were written since the last read: an answer is out, and the next request may come
    /// soon. Only then does a read spin, so that it never delays an answer that hyper writes
    /// after an attempt to read ahead.
    answered: bool,
}

impl SpinningStream {
    pub(crate) fn new(stream: TcpStream, spin: Duration) -> Self {
        SpinningStream { stream, spin, answered: false }
    }
}

impl AsyncRead for SpinningStream {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let this = &mut *self;
        let answered = std::mem::take(&mut this.answered);
        match Pin::new(&mut this.stream).poll_read(cx, buf) {
            // The reactor holds the waker now: returning `Pending` after a fruitless spin is
            // sound, and a wake-up after a successful one is only spurious (the next read finds
            // nothing, and tokio clears its readiness).
            Poll::Pending if answered && !this.spin.is_zero() => {
                match spin_recv(this.stream.as_raw_fd(), this.spin, buf) {
                    Some(result) => Poll::Ready(result),
                    None => Poll::Pending,
                }
            }
            other => other,
        }
    }
}

impl AsyncWrite for SpinningStream {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let written = Pin::new(&mut self.stream).poll_write(cx, buf);
        self.answered |= matches!(written, Poll::Ready(Ok(1..)));
        written
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let written = Pin::new(&mut self.stream).poll_write_vectored(cx, bufs);
        self.answered |= matches!(written, Poll::Ready(Ok(1..)));
        written
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}

/// Retries a non-blocking `recv(2)` into `buf` until it reads (or fails) or `spin` has passed
/// (`None`).
fn spin_recv(fd: RawFd, spin: Duration, buf: &mut ReadBuf<'_>) -> Option<io::Result<()>> {
    let deadline = Instant::now() + spin;
    loop {
        let unfilled = buf.initialize_unfilled();
        // SAFETY: `unfilled` is valid for writes of its length, and `fd` is the open socket the
        // caller owns for the duration of the call.
        let read = unsafe { libc::recv(fd, unfilled.as_mut_ptr().cast(), unfilled.len(), libc::MSG_DONTWAIT) };
        if let Ok(count) = usize::try_from(read) {
            buf.advance(count);
            return Some(Ok(()));
        }
        let error = io::Error::last_os_error();
        match error.kind() {
            io::ErrorKind::WouldBlock => {}
            io::ErrorKind::Interrupted => continue,
            _ => return Some(Err(error)),
        }
        if Instant::now() >= deadline {
            return None;
        }
        std::hint::spin_loop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::future::poll_fn;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    /// One poll of a read into `buf`.
    async fn poll_once(stream: &mut SpinningStream, buf: &mut [u8]) -> Poll<io::Result<usize>> {
        poll_fn(|cx| {
            let mut read = ReadBuf::new(&mut *buf);
            Poll::Ready(Pin::new(&mut *stream).poll_read(cx, &mut read).map_ok(|()| read.filled().len()))
        })
        .await
    }

    #[tokio::test]
    async fn a_read_spins_for_bytes_then_waits_on_the_reactor() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let client = TcpStream::connect(listener.local_addr().unwrap()).await.unwrap();
        let (server, _) = listener.accept().await.unwrap();

        // No answer written yet: a read does not spin (it could delay the answer).
        let mut spinning = SpinningStream::new(server, Duration::from_secs(5));
        let mut buf = [0u8; 16];
        assert!(poll_once(&mut spinning, &mut buf).await.is_pending());
        // After an answer, with nothing to read yet, the next read spins, and gets the bytes
        // another thread writes meanwhile (the single-threaded runtime cannot wake it: only the
        // spin can see them).
        spinning.write_all(b"answer").await.unwrap();
        let mut client = client;
        let mut answer = [0u8; 6];
        client.read_exact(&mut answer).await.unwrap();
        let client = client.into_std().unwrap();
        let writer = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(20));
            std::io::Write::write_all(&mut &client, b"ping").unwrap();
            client
        });
        let first = poll_once(&mut spinning, &mut buf).await;
        assert!(matches!(first, Poll::Ready(Ok(4))), "{first:?}");
        assert_eq!(&buf[..4], b"ping");
        let mut client = TcpStream::from_std(writer.join().unwrap()).unwrap();

        // A spin that finds nothing leaves the read pending on the reactor, which completes it
        // when bytes come.
        let mut short = SpinningStream::new(spinning.stream, Duration::from_micros(50));
        short.answered = true;
        assert!(poll_once(&mut short, &mut buf).await.is_pending());
        assert!(!short.answered, "one spin per answer");
        let read = tokio::spawn(async move {
            let mut buf = [0u8; 16];
            let n = short.read(&mut buf).await.unwrap();
            (buf[..n].to_vec(), short)
        });
        tokio::time::sleep(Duration::from_millis(20)).await;
        client.write_all(b"pong").await.unwrap();
        let (got, mut short) = read.await.unwrap();
        assert_eq!(got, b"pong");

        // Writes pass through; the peer's close reads as the end.
        short.write_all(b"done").await.unwrap();
        let mut back = [0u8; 4];
        client.read_exact(&mut back).await.unwrap();
        assert_eq!(&back, b"done");
        drop(client);
        assert_eq!(short.read(&mut buf).await.unwrap(), 0);
    }

    #[tokio::test]
    async fn without_a_spin_the_first_poll_waits() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let _client = TcpStream::connect(listener.local_addr().unwrap()).await.unwrap();
        let (server, _) = listener.accept().await.unwrap();
        let mut stream = SpinningStream::new(server, Duration::ZERO);
        stream.answered = true;
        assert!(poll_once(&mut stream, &mut [0u8; 4]).await.is_pending());
    }
}
