//! Tokio streams over borrowed Unix file descriptors, without tokio's blocking thread pool.
//!
//! tokio's own `stdin()`/`stdout()` hand every read and write to the blocking pool. These types
//! instead put the descriptor in non-blocking mode, register it with the runtime's epoll (or
//! kqueue) reactor through [`AsyncFd`], and call `read(2)`/`write(2)` directly when it is ready:
//! one syscall per read or write, on the driving task's own thread.
//!
//! Regular files and some character devices (`/dev/null`) cannot be registered (epoll answers
//! `EPERM`). They never block for long, so for them the types fall back to plain blocking calls
//! ([`FdMode::Blocking`]). Pipes, sockets (socketpairs included) and terminals use readiness
//! ([`FdMode::Readiness`]).
//!
//! Both implement tokio's `AsyncRead`/`AsyncWrite` and the driver's `embedded_io_async`
//! `Read`/`Write`, which [`serve_stdio`](crate::serve_stdio) uses directly.

use std::future::poll_fn;
use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd};
use std::pin::Pin;
use std::task::{Context, Poll, ready};
use std::time::{Duration, Instant};

use tokio::io::unix::AsyncFd;
use tokio::io::{AsyncRead, AsyncWrite, Interest, ReadBuf};

/// How an [`FdReader`] or [`FdWriter`] waits for its descriptor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FdMode {
    /// Non-blocking descriptor registered with the reactor: pipes, sockets, terminals.
    Readiness,
    /// Plain blocking calls on the driving thread: regular files, `/dev/null` and other
    /// descriptors the reactor refuses. Such reads and writes complete without waiting on a peer.
    Blocking,
}

/// Reads a borrowed file descriptor (e.g. standard input) as a tokio [`AsyncRead`] and an
/// [`embedded_io_async::Read`].
///
/// In [`FdMode::Readiness`] the descriptor is switched to non-blocking mode for the lifetime of the
/// reader, and switched back on drop if it was blocking before. `O_NONBLOCK` belongs to the open
/// file description, which other processes (the parent shell) and other descriptors (`dup`s, fd 1
/// and 2 when they are the same terminal) may share: they see the change until the drop. A process
/// that aborts (`panic = "abort"`, a signal) skips the drop.
#[derive(Debug)]
pub struct FdReader<'fd> {
    io: FdIo<'fd>,
    spin: Duration,
}

/// Writes a borrowed file descriptor (e.g. standard output) as a tokio [`AsyncWrite`] and an
/// [`embedded_io_async::Write`].
///
/// Same mode handling as [`FdReader`]. Writes go straight to the descriptor (nothing is buffered,
/// flush does nothing), and shutdown does not close it: the descriptor is only borrowed.
#[derive(Debug)]
pub struct FdWriter<'fd> {
    io: FdIo<'fd>,
}

impl<'fd> FdReader<'fd> {
    /// Prepares `fd` for reading on the current tokio runtime, choosing the [`FdMode`].
    ///
    /// Call from inside a runtime with IO enabled (`enable_io` or `enable_all`): registering panics
    /// otherwise. Fails if `fd` is not open or its flags cannot be changed.
    pub fn new(fd: BorrowedFd<'fd>) -> io::Result<Self> {
        Ok(FdReader { io: FdIo::new(fd, Interest::READABLE)?, spin: Duration::ZERO })
    }

    /// Whether reads wait for readiness or block.
    pub fn mode(&self) -> FdMode {
        self.io.mode()
    }

    /// Opt-in: when a read finds nothing to read ([`FdMode::Readiness`] only), retry it in a busy
    /// loop for up to `spin` before waiting on the reactor (default: zero, wait at once).
    ///
    /// A process that sleeps in `epoll_wait` is woken by the peer's write only after the kernel
    /// has scheduled it again, which on an idle machine costs tens of microseconds per request
    /// (the CPU left its idle state). A request that arrives within `spin` is read without that
    /// sleep. The cost is CPU: each wait burns up to `spin` of it (one `read(2)` per turn, on a
    /// busy machine taken from other processes), and nothing else runs on this thread meanwhile,
    /// so deadlines and jobs are served up to `spin` late. Worth it only for
    /// request/response traffic on an otherwise idle machine; keep `spin` well below 1 ms.
    pub fn spin_before_wait(mut self, spin: Duration) -> Self {
        self.spin = spin;
        self
    }
}

impl<'fd> FdWriter<'fd> {
    /// Prepares `fd` for writing on the current tokio runtime, choosing the [`FdMode`].
    ///
    /// Same requirements as [`FdReader::new`].
    pub fn new(fd: BorrowedFd<'fd>) -> io::Result<Self> {
        Ok(FdWriter { io: FdIo::new(fd, Interest::WRITABLE)? })
    }

    /// Whether writes wait for readiness or block.
    pub fn mode(&self) -> FdMode {
        self.io.mode()
    }
}

impl AsyncRead for FdReader<'_> {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let spin = self.spin;
        let read = ready!(self.io.poll_io(cx, Interest::READABLE, spin, |fd| read_fd(fd, buf.initialize_unfilled())))?;
        buf.advance(read);
        Poll::Ready(Ok(()))
    }
}

impl AsyncWrite for FdWriter<'_> {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        self.io.poll_io(cx, Interest::WRITABLE, Duration::ZERO, |fd| write_fd(fd, buf))
    }

    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

impl embedded_io_async::ErrorType for FdReader<'_> {
    type Error = io::Error;
}

/// One `read(2)` once the descriptor is readable; cancel-safe (a pending read took nothing).
impl embedded_io_async::Read for FdReader<'_> {
    async fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let spin = self.spin;
        poll_fn(|cx| self.io.poll_io(cx, Interest::READABLE, spin, |fd| read_fd(fd, buf))).await
    }
}

impl embedded_io_async::ErrorType for FdWriter<'_> {
    type Error = io::Error;
}

/// One `write(2)` once the descriptor is writable; cancel-safe (a pending write took nothing).
/// Flushing does nothing: nothing is buffered.
impl embedded_io_async::Write for FdWriter<'_> {
    async fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        poll_fn(|cx| self.io.poll_io(cx, Interest::WRITABLE, Duration::ZERO, |fd| write_fd(fd, buf))).await
    }

    async fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The descriptor and how to wait for it.
#[derive(Debug)]
enum FdIo<'fd> {
    Readiness {
        // Declared first so it is deregistered before the flags are restored.
        registered: AsyncFd<BorrowedFd<'fd>>,
        _nonblocking: NonBlocking<'fd>,
        /// A read or write shorter than asked means the kernel buffer was drained (pipes,
        /// sockets), so readiness can be cleared without a second call that would return `EAGAIN`.
        short_transfer_drains: bool,
    },
    Blocking(BorrowedFd<'fd>),
}

impl<'fd> FdIo<'fd> {
    fn new(fd: BorrowedFd<'fd>, interest: Interest) -> io::Result<Self> {
        // SAFETY: `BorrowedFd<'fd>` guarantees the descriptor stays open, and so refers to the same
        // open file description, for `'fd`, which the `AsyncFd<BorrowedFd<'fd>>` cannot outlive.
        match unsafe { AsyncFd::register_with_interest(fd, interest) } {
            Ok(registered) => {
                let nonblocking = NonBlocking::set(fd)?;
                Ok(FdIo::Readiness {
                    registered,
                    _nonblocking: nonblocking,
                    short_transfer_drains: is_pipe_or_socket(fd)?,
                })
            }
            Err(refused) => {
                let (_, error) = refused.into_parts();
                // epoll refuses descriptors without readiness semantics: regular files, /dev/null.
                if error.raw_os_error() == Some(libc::EPERM) { Ok(FdIo::Blocking(fd)) } else { Err(error) }
            }
        }
    }

    fn mode(&self) -> FdMode {
        match self {
            FdIo::Readiness { .. } => FdMode::Readiness,
            FdIo::Blocking(_) => FdMode::Blocking,
        }
    }

    /// Runs `transfer` (one `read` or `write`, returning the byte count) once the descriptor is
    /// ready for `interest`. `transfer` gets a retry if it reports `WouldBlock`, after readiness is
    /// re-armed. When the descriptor is not ready, `transfer` is retried in a busy loop for up to
    /// `spin` before this returns `Pending` (see [`FdReader::spin_before_wait`]).
    fn poll_io(
        &self,
        cx: &mut Context<'_>,
        interest: Interest,
        spin: Duration,
        mut transfer: impl FnMut(BorrowedFd<'_>) -> io::Result<Transfer>,
    ) -> Poll<io::Result<usize>> {
        let (registered, short_transfer_drains) = match self {
            FdIo::Blocking(fd) => return Poll::Ready(transfer(*fd).map(|done| done.count)),
            FdIo::Readiness { registered, short_transfer_drains, .. } => (registered, *short_transfer_drains),
        };
        loop {
            let ready =
                if interest.is_readable() { registered.poll_read_ready(cx) } else { registered.poll_write_ready(cx) };
            let mut guard = match ready {
                Poll::Ready(guard) => guard?,
                // The waker is registered, so returning `Pending` after a fruitless spin is sound,
                // and a wake-up after a successful one is only spurious.
                Poll::Pending if !spin.is_zero() => {
                    return match spin_transfer(registered.get_ref().as_fd(), spin, &mut transfer) {
                        Some(result) => Poll::Ready(result.map(|done| done.count)),
                        None => Poll::Pending,
                    };
                }
                Poll::Pending => return Poll::Pending,
            };
            match guard.try_io(|registered| transfer(registered.get_ref().as_fd())) {
                Ok(Ok(done)) => {
                    if short_transfer_drains && done.count > 0 && done.count < done.asked {
                        guard.clear_ready();
                    }
                    return Poll::Ready(Ok(done.count));
                }
                Ok(Err(error)) => return Poll::Ready(Err(error)),
                // `try_io` cleared readiness: wait for the next edge.
                Err(_would_block) => {}
            }
        }
    }
}

/// Retries `transfer` until it does not report `WouldBlock` or `spin` has passed (`None`).
fn spin_transfer(
    fd: BorrowedFd<'_>,
    spin: Duration,
    transfer: &mut impl FnMut(BorrowedFd<'_>) -> io::Result<Transfer>,
) -> Option<io::Result<Transfer>> {
    let deadline = Instant::now() + spin;
    loop {
        match transfer(fd) {
            Err(error) if error.kind() == io::ErrorKind::WouldBlock => {
                if Instant::now() >= deadline {
                    return None;
                }
                std::hint::spin_loop();
            }
            result => return Some(result),
        }
    }
}

/// Result of one `read`/`write`: bytes moved and bytes asked for.
struct Transfer {
    count: usize,
    asked: usize,
}

/// Largest count passed to one `read`/`write` (POSIX leaves larger than `SSIZE_MAX` undefined).
const MAX_TRANSFER: usize = isize::MAX as usize;

/// One `read(2)` into `buf`, retried on `EINTR`.
fn read_fd(fd: BorrowedFd<'_>, buf: &mut [u8]) -> io::Result<Transfer> {
    let asked = buf.len().min(MAX_TRANSFER);
    // SAFETY: `buf` is valid for writes of `asked` bytes and `fd` is open.
    retry_on_eintr(asked, || unsafe { libc::read(fd.as_raw_fd(), buf.as_mut_ptr().cast(), asked) })
}

/// One `write(2)` of `buf`, retried on `EINTR`. A closed peer gives `BrokenPipe` (Rust programs
/// ignore `SIGPIPE` by default, so the process is not killed).
fn write_fd(fd: BorrowedFd<'_>, buf: &[u8]) -> io::Result<Transfer> {
    let asked = buf.len().min(MAX_TRANSFER);
    // SAFETY: `buf` is valid for reads of `asked` bytes and `fd` is open.
    retry_on_eintr(asked, || unsafe { libc::write(fd.as_raw_fd(), buf.as_ptr().cast(), asked) })
}

/// Runs a `read`/`write` system call of `asked` bytes until it is not interrupted by a signal.
fn retry_on_eintr(asked: usize, mut syscall: impl FnMut() -> isize) -> io::Result<Transfer> {
    loop {
        match usize::try_from(syscall()) {
            Ok(count) => return Ok(Transfer { count, asked }),
            Err(_) => {
                let error = io::Error::last_os_error();
                if error.kind() != io::ErrorKind::Interrupted {
                    return Err(error);
                }
            }
        }
    }
}

/// `true` for pipes (FIFOs) and sockets, whose short reads and writes mean "drained" / "full".
/// Terminals are excluded: in canonical mode a read returns one line even if more are queued.
fn is_pipe_or_socket(fd: BorrowedFd<'_>) -> io::Result<bool> {
    let mut stat = std::mem::MaybeUninit::<libc::stat>::uninit();
    // SAFETY: `stat` is valid for writes and `fd` is open.
    if unsafe { libc::fstat(fd.as_raw_fd(), stat.as_mut_ptr()) } == -1 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `fstat` succeeded, so it initialised `stat`.
    let kind = unsafe { stat.assume_init() }.st_mode & libc::S_IFMT;
    Ok(kind == libc::S_IFIFO || kind == libc::S_IFSOCK)
}

/// Sets `O_NONBLOCK` on a descriptor and clears it again on drop, unless it was already set.
#[derive(Debug)]
struct NonBlocking<'fd> {
    fd: BorrowedFd<'fd>,
    /// `false` if the description was already non-blocking (then drop leaves it alone).
    restore: bool,
}

impl<'fd> NonBlocking<'fd> {
    fn set(fd: BorrowedFd<'fd>) -> io::Result<Self> {
        let flags = get_status_flags(fd)?;
        if flags & libc::O_NONBLOCK != 0 {
            return Ok(NonBlocking { fd, restore: false });
        }
        set_status_flags(fd, flags | libc::O_NONBLOCK)?;
        Ok(NonBlocking { fd, restore: true })
    }
}

impl Drop for NonBlocking<'_> {
    fn drop(&mut self) {
        if !self.restore {
            return;
        }
        // Clear only our flag, keeping whatever else changed meanwhile. Best effort: there is no
        // one to report a failure to.
        if let Ok(flags) = get_status_flags(self.fd) {
            let _ = set_status_flags(self.fd, flags & !libc::O_NONBLOCK);
        }
    }
}

fn get_status_flags(fd: BorrowedFd<'_>) -> io::Result<libc::c_int> {
    // SAFETY: F_GETFL takes no argument and only reads the descriptor's flags.
    let flags = unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_GETFL) };
    if flags == -1 { Err(io::Error::last_os_error()) } else { Ok(flags) }
}

fn set_status_flags(fd: BorrowedFd<'_>, flags: libc::c_int) -> io::Result<()> {
    // SAFETY: F_SETFL takes an int of status flags.
    if unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_SETFL, flags) } == -1 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn is_nonblocking(fd: BorrowedFd<'_>) -> bool {
        get_status_flags(fd).unwrap() & libc::O_NONBLOCK != 0
    }

    #[test]
    fn nonblocking_is_undone_on_drop() {
        let (reader, _writer) = std::io::pipe().unwrap();
        assert!(!is_nonblocking(reader.as_fd()));
        let guard = NonBlocking::set(reader.as_fd()).unwrap();
        assert!(is_nonblocking(reader.as_fd()));
        drop(guard);
        assert!(!is_nonblocking(reader.as_fd()));
    }

    #[test]
    fn already_nonblocking_descriptor_is_left_nonblocking() {
        let (reader, _writer) = std::io::pipe().unwrap();
        let outer = NonBlocking::set(reader.as_fd()).unwrap();
        // A second guard on the same description (fd 0 and fd 1 sharing a socket) must not undo
        // the first one's change.
        drop(NonBlocking::set(reader.as_fd()).unwrap());
        assert!(is_nonblocking(reader.as_fd()));
        drop(outer);
        assert!(!is_nonblocking(reader.as_fd()));
    }

    #[test]
    fn pipes_and_sockets_drain_on_short_transfers_files_do_not() {
        let (reader, _writer) = std::io::pipe().unwrap();
        assert!(is_pipe_or_socket(reader.as_fd()).unwrap());
        let (socket, _peer) = std::os::unix::net::UnixStream::pair().unwrap();
        assert!(is_pipe_or_socket(socket.as_fd()).unwrap());
        let file = std::fs::File::open("/dev/null").unwrap();
        assert!(!is_pipe_or_socket(file.as_fd()).unwrap());
    }

    #[tokio::test]
    async fn regular_files_fall_back_to_blocking_and_keep_their_flags() {
        let file = std::fs::File::open("/dev/null").unwrap();
        let reader = FdReader::new(file.as_fd()).unwrap();
        assert_eq!(reader.mode(), FdMode::Blocking);
        assert!(!is_nonblocking(file.as_fd()));
    }

    #[tokio::test]
    async fn pipes_use_readiness_while_the_stream_lives() {
        let (reader, writer) = std::io::pipe().unwrap();
        let fd_reader = FdReader::new(reader.as_fd()).unwrap();
        let fd_writer = FdWriter::new(writer.as_fd()).unwrap();
        assert_eq!((fd_reader.mode(), fd_writer.mode()), (FdMode::Readiness, FdMode::Readiness));
        assert!(is_nonblocking(reader.as_fd()) && is_nonblocking(writer.as_fd()));
        drop((fd_reader, fd_writer));
        assert!(!is_nonblocking(reader.as_fd()) && !is_nonblocking(writer.as_fd()));
    }
}
