//! Streams over Unix file descriptors (standard input and output), without a blocking thread pool.
//!
//! async-std's and smol's `stdin()`/`stdout()` hand every read and write to a pool of blocking
//! threads. These types instead duplicate the descriptor into a [`File`], register it with
//! async-io's reactor ([`Async`]), put it in non-blocking mode and call `read(2)`/`write(2)` when it
//! is ready: one syscall per read or write, on the driving future's own thread. All of it through
//! safe APIs (`Async<File>`, rustix's `fcntl`): no `unsafe` code.
//!
//! Regular files and some character devices (`/dev/null`) cannot be registered (epoll answers
//! `EPERM`). They never block for long, so for them the types fall back to plain blocking calls
//! ([`FdMode::Blocking`]). Pipes, sockets (socketpairs included) and terminals use readiness
//! ([`FdMode::Readiness`]).
//!
//! Both implement [`futures_io`]'s `AsyncRead`/`AsyncWrite` and the driver's [`embedded_io_async`]
//! `Read`/`Write`, which [`serve_stdio`](crate::serve_stdio) uses directly.

use std::fs::File;
use std::future::poll_fn;
use std::io::{self, Read, Write};
use std::os::fd::{AsFd, BorrowedFd};
use std::os::unix::fs::FileTypeExt;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use async_io::Async;
use futures_io::{AsyncRead, AsyncWrite};
use rustix::fs::OFlags;

/// How an [`FdReader`] or [`FdWriter`] waits for its descriptor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum FdMode {
    /// Non-blocking descriptor registered with the reactor: pipes, sockets, terminals.
    Readiness,
    /// Plain blocking calls on the driving thread: regular files, `/dev/null` and other
    /// descriptors the reactor refuses. Such reads and writes complete without waiting on a peer.
    Blocking,
}

/// Reads a file descriptor (e.g. standard input) as a [`futures_io::AsyncRead`] and an
/// [`embedded_io_async::Read`].
///
/// Works on a duplicate of the descriptor, so it does not borrow it. In [`FdMode::Readiness`] the
/// descriptor is switched to non-blocking mode for the lifetime of the reader, and switched back on
/// drop if it was blocking before. `O_NONBLOCK` belongs to the open file description, which other
/// processes (the parent shell) and other descriptors (`dup`s, fd 1 and 2 when they are the same
/// terminal) may share: they see the change until the drop. A process that aborts
/// (`panic = "abort"`, a signal) skips the drop.
#[derive(Debug)]
pub struct FdReader {
    io: FdIo,
}

/// Writes a file descriptor (e.g. standard output) as a [`futures_io::AsyncWrite`] and an
/// [`embedded_io_async::Write`].
///
/// Same mode handling as [`FdReader`]. Writes go straight to the descriptor (nothing is buffered,
/// flush does nothing), and closing does not close the original descriptor.
#[derive(Debug)]
pub struct FdWriter {
    io: FdIo,
}

impl FdReader {
    /// Prepares `fd` for reading, choosing the [`FdMode`].
    ///
    /// Fails if `fd` cannot be duplicated, registered, or its flags changed.
    pub fn new(fd: BorrowedFd<'_>) -> io::Result<Self> {
        Ok(FdReader { io: FdIo::new(fd)? })
    }

    /// Whether reads wait for readiness or block.
    pub fn mode(&self) -> FdMode {
        self.io.mode()
    }

    fn poll_read(&mut self, cx: &mut Context<'_>, buf: &mut [u8]) -> Poll<io::Result<usize>> {
        self.io.poll_io(cx, Direction::Read, buf.len(), |mut file| file.read(buf))
    }
}

impl FdWriter {
    /// Prepares `fd` for writing, choosing the [`FdMode`].
    ///
    /// Same requirements as [`FdReader::new`].
    pub fn new(fd: BorrowedFd<'_>) -> io::Result<Self> {
        Ok(FdWriter { io: FdIo::new(fd)? })
    }

    /// Whether writes wait for readiness or block.
    pub fn mode(&self) -> FdMode {
        self.io.mode()
    }

    fn poll_write(&mut self, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        self.io.poll_io(cx, Direction::Write, buf.len(), |mut file| file.write(buf))
    }
}

impl AsyncRead for FdReader {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut [u8]) -> Poll<io::Result<usize>> {
        self.get_mut().poll_read(cx, buf)
    }
}

impl AsyncWrite for FdWriter {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        self.get_mut().poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_close(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

impl embedded_io_async::ErrorType for FdReader {
    type Error = io::Error;
}

/// One `read(2)` once the descriptor is readable; cancel-safe (a pending read took nothing).
impl embedded_io_async::Read for FdReader {
    async fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        poll_fn(|cx| self.poll_read(cx, buf)).await
    }
}

impl embedded_io_async::ErrorType for FdWriter {
    type Error = io::Error;
}

/// One `write(2)` once the descriptor is writable; cancel-safe (a pending write took nothing).
/// Flushing does nothing: nothing is buffered.
impl embedded_io_async::Write for FdWriter {
    async fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        poll_fn(|cx| self.poll_write(cx, buf)).await
    }

    async fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Direction {
    Read,
    Write,
}

/// The duplicated descriptor and how to wait for it.
#[derive(Debug)]
enum FdIo {
    Readiness(Registered),
    Blocking(File),
}

/// A descriptor registered with the reactor, non-blocking until dropped.
#[derive(Debug)]
struct Registered {
    file: Async<File>,
    /// Clear `O_NONBLOCK` again on drop (it was not set before).
    restore_blocking: bool,
    /// A read or write shorter than asked means the kernel buffer was drained or filled (pipes,
    /// sockets), so the next transfer waits for readiness first instead of making a call that
    /// would return `EAGAIN`.
    short_transfer_drains: bool,
    /// The last transfer drained the buffer: wait for readiness before the next one.
    wait_first: bool,
}

impl FdIo {
    fn new(fd: BorrowedFd<'_>) -> io::Result<Self> {
        let file = File::from(fd.try_clone_to_owned()?);
        let short_transfer_drains = {
            let kind = file.metadata()?.file_type();
            kind.is_fifo() || kind.is_socket()
        };
        match Async::new_nonblocking(file) {
            Ok(file) => {
                let flags = rustix::fs::fcntl_getfl(&file)?;
                let restore_blocking = !flags.contains(OFlags::NONBLOCK);
                if restore_blocking {
                    rustix::fs::fcntl_setfl(&file, flags | OFlags::NONBLOCK)?;
                }
                Ok(FdIo::Readiness(Registered { file, restore_blocking, short_transfer_drains, wait_first: false }))
            }
            // epoll refuses descriptors without readiness semantics: regular files, /dev/null.
            // (The refused duplicate was closed with the error.)
            Err(error) if error.raw_os_error() == Some(rustix::io::Errno::PERM.raw_os_error()) => {
                Ok(FdIo::Blocking(File::from(fd.try_clone_to_owned()?)))
            }
            Err(error) => Err(error),
        }
    }

    fn mode(&self) -> FdMode {
        match self {
            FdIo::Readiness(_) => FdMode::Readiness,
            FdIo::Blocking(_) => FdMode::Blocking,
        }
    }

    /// Runs `transfer` (one `read` or `write` of up to `asked` bytes) once the descriptor is ready
    /// for `direction`, retrying it on `EINTR` and, after waiting for readiness, on `EAGAIN`.
    fn poll_io(
        &mut self,
        cx: &mut Context<'_>,
        direction: Direction,
        asked: usize,
        mut transfer: impl FnMut(&File) -> io::Result<usize>,
    ) -> Poll<io::Result<usize>> {
        let registered = match self {
            FdIo::Blocking(file) => loop {
                match transfer(&*file) {
                    Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
                    result => return Poll::Ready(result),
                }
            },
            FdIo::Readiness(registered) => registered,
        };
        loop {
            if registered.wait_first {
                ready!(match direction {
                    Direction::Read => registered.file.poll_readable(cx),
                    Direction::Write => registered.file.poll_writable(cx),
                })?;
                registered.wait_first = false;
            }
            match transfer(registered.file.get_ref()) {
                Ok(count) => {
                    registered.wait_first = registered.short_transfer_drains && count > 0 && count < asked;
                    return Poll::Ready(Ok(count));
                }
                Err(error) if error.kind() == io::ErrorKind::WouldBlock => registered.wait_first = true,
                Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
                Err(error) => return Poll::Ready(Err(error)),
            }
        }
    }
}

impl Drop for Registered {
    fn drop(&mut self) {
        if !self.restore_blocking {
            return;
        }
        // Clear only our flag, keeping whatever else changed meanwhile. Best effort: there is no
        // one to report a failure to. (The duplicate shares the original's file description.)
        if let Ok(flags) = rustix::fs::fcntl_getfl(self.file.as_fd()) {
            let _ = rustix::fs::fcntl_setfl(self.file.as_fd(), flags - OFlags::NONBLOCK);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn is_nonblocking(fd: BorrowedFd<'_>) -> bool {
        rustix::fs::fcntl_getfl(fd).unwrap().contains(OFlags::NONBLOCK)
    }

    #[test]
    fn regular_files_fall_back_to_blocking_and_keep_their_flags() {
        let file = File::open("/dev/null").unwrap();
        let reader = FdReader::new(file.as_fd()).unwrap();
        assert_eq!(reader.mode(), FdMode::Blocking);
        assert!(!is_nonblocking(file.as_fd()));
        let file = tempfile_in_target();
        assert_eq!(FdWriter::new(file.as_fd()).unwrap().mode(), FdMode::Blocking);
    }

    #[test]
    fn pipes_use_readiness_while_the_stream_lives() {
        let (reader, writer) = std::io::pipe().unwrap();
        let fd_reader = FdReader::new(reader.as_fd()).unwrap();
        let fd_writer = FdWriter::new(writer.as_fd()).unwrap();
        assert_eq!((fd_reader.mode(), fd_writer.mode()), (FdMode::Readiness, FdMode::Readiness));
        assert!(is_nonblocking(reader.as_fd()) && is_nonblocking(writer.as_fd()));
        drop((fd_reader, fd_writer));
        assert!(!is_nonblocking(reader.as_fd()) && !is_nonblocking(writer.as_fd()));
    }

    #[test]
    fn an_already_nonblocking_descriptor_is_left_nonblocking() {
        let (reader, _writer) = std::io::pipe().unwrap();
        let outer = FdReader::new(reader.as_fd()).unwrap();
        // A second stream on the same description (fd 0 and fd 1 sharing a socket) must not undo
        // the first one's change.
        drop(FdReader::new(reader.as_fd()).unwrap());
        assert!(is_nonblocking(reader.as_fd()));
        drop(outer);
        assert!(!is_nonblocking(reader.as_fd()));
    }

    /// A regular file that deletes itself when dropped (closed descriptors keep working).
    fn tempfile_in_target() -> File {
        let path = std::env::temp_dir().join(format!("mcp-sansio-futures-fd-{}", std::process::id()));
        let file = File::create(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        file
    }
}
