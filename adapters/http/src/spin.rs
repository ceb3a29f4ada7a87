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

    /// Writes `bytes` from another thread after 20 ms, on `client` (a std stream, given back).
    fn write_later(client: std::net::TcpStream, bytes: &'static [u8]) -> std::thread::JoinHandle<std::net::TcpStream> {
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(20));
            std::io::Write::write_all(&mut &client, bytes).unwrap();
            client
        })
    }

    #[tokio::test]
    async fn a_read_spins_only_after_an_answer_then_waits_on_the_reactor() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let client = TcpStream::connect(listener.local_addr().unwrap()).await.unwrap();
        let (server, _) = listener.accept().await.unwrap();
        let mut spinning = SpinningStream::new(server, Duration::from_secs(5));
        assert_eq!(spinning.is_write_vectored(), spinning.stream.is_write_vectored());
        let mut buf = [0u8; 16];

        // No answer written yet: the read does not spin (it could delay the answer), so the
        // bytes written meanwhile are not seen by this poll (the single-threaded runtime cannot
        // wake it; only a spin could see them).
        let mut client = client.into_std().unwrap();
        let writer = write_later(client, b"early");
        assert!(poll_once(&mut spinning, &mut buf).await.is_pending());
        client = writer.join().unwrap();
        let n = spinning.read(&mut buf).await.unwrap();
        assert_eq!(&buf[..n], b"early");

        // After an answer (`write_all`, then `write_vectored`, the form hyper uses), with nothing
        // to read yet, the next read spins and gets the bytes another thread writes meanwhile.
        for round in 0..2 {
            if round == 0 {
                spinning.write_all(b"answer").await.unwrap();
            } else {
                let written =
                    spinning.write_vectored(&[io::IoSlice::new(b"ans"), io::IoSlice::new(b"wer")]).await.unwrap();
                assert_eq!(written, 6);
            }
            let mut answer = [0u8; 6];
            std::io::Read::read_exact(&mut &client, &mut answer).unwrap();
            assert_eq!(&answer, b"answer");
            let word: &'static [u8] = if round == 0 { b"ping" } else { b"pong" };
            let writer = write_later(client, word);
            let first = poll_once(&mut spinning, &mut buf).await;
            assert!(matches!(first, Poll::Ready(Ok(4))), "round {round}: {first:?}");
            assert_eq!(&buf[..4], word);
            client = writer.join().unwrap();
        }
        let mut client = TcpStream::from_std(client).unwrap();

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
        client.write_all(b"last").await.unwrap();
        let (got, mut short) = read.await.unwrap();
        assert_eq!(got, b"last");

        // Writes pass through, and so does a shutdown (the peer reads the end); the peer's close
        // reads as the end.
        short.write_all(b"done").await.unwrap();
        short.flush().await.unwrap();
        short.shutdown().await.unwrap();
        let mut back = Vec::new();
        client.read_to_end(&mut back).await.unwrap();
        assert_eq!(back, b"done");
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
