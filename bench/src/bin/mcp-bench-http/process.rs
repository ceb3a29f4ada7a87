//! The server processes: started on a free loopback port, watched through `/proc`, stopped.

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub struct ServerSpec {
    pub label: String,
    /// The command; `{port}` in an argument is replaced by the port chosen.
    pub argv: Vec<String>,
}

pub struct Process {
    child: Child,
    pub addr: SocketAddr,
    log: std::path::PathBuf,
}

pub fn fail(label: &str, what: impl std::fmt::Display) -> ! {
    eprintln!("mcp-bench-http: {label}: {what}");
    std::process::exit(1)
}

fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
    listener.local_addr().expect("local address").port()
}

impl Process {
    /// Starts the server and waits until its port accepts connections.
    pub fn start(spec: &ServerSpec) -> Process {
        let port = free_port();
        let argv: Vec<String> = spec.argv.iter().map(|a| a.replace("{port}", &port.to_string())).collect();
        let log = std::env::temp_dir().join(format!("mcp-bench-http-{}.log", spec.label));
        let stderr = std::fs::File::create(&log).unwrap_or_else(|e| fail(&spec.label, format!("{log:?}: {e}")));
        let child = Command::new(&argv[0])
            .args(&argv[1..])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(stderr)
            .spawn()
            .unwrap_or_else(|e| fail(&spec.label, format!("cannot start {argv:?}: {e}")));
        let addr: SocketAddr = ([127, 0, 0, 1], port).into();
        let mut process = Process { child, addr, log };
        let started = Instant::now();
        while TcpStream::connect(addr).is_err() {
            if let Ok(Some(status)) = process.child.try_wait() {
                process.fail(&spec.label, format!("exited with {status} before listening"));
            }
            if started.elapsed() > Duration::from_secs(10) {
                process.fail(&spec.label, "not listening after 10 s");
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        process
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Fails, showing the end of the server's stderr.
    pub fn fail(&mut self, label: &str, what: impl std::fmt::Display) -> ! {
        let _ = self.child.kill();
        let log = std::fs::read_to_string(&self.log).unwrap_or_default();
        let tail: Vec<&str> = log.lines().rev().take(20).collect();
        for line in tail.iter().rev() {
            eprintln!("  {label} stderr: {line}");
        }
        fail(label, what)
    }

    /// SIGTERM, then SIGKILL if it has not exited within 5 s.
    pub fn stop(mut self) {
        // SAFETY: kill has no memory preconditions; the pid is our own child, not yet reaped.
        unsafe { libc::kill(self.child.id() as libc::pid_t, libc::SIGTERM) };
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(5) {
            if let Ok(Some(_)) = self.child.try_wait() {
                let _ = std::fs::remove_file(&self.log);
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_file(&self.log);
    }
}
