//! What the load generators (`mcp-bench`, `mcp-bench-http`) read off a server process and how they
//! summarise it: CPU time and memory from `/proc`, percentiles and medians, decimal ids; and the
//! receive buffer both read the server's answers into.

/// utime + stime of the process (all its threads), in seconds.
pub fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // Fields after the command name (which may hold spaces): state is field 3; utime 14, stime 15.
    let fields: Vec<&str> =
        stat.rsplit_once(')').map(|(_, rest)| rest.split_whitespace().collect()).unwrap_or_default();
    let field = |n: usize| fields.get(n - 3).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0);
    (field(14) + field(15)) as f64 / clock_ticks_per_second()
}

fn clock_ticks_per_second() -> f64 {
    // SAFETY: sysconf has no preconditions.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if ticks > 0 { ticks as f64 } else { 100.0 }
}

/// A `/proc/<pid>/status` field in kB (`VmHWM`, `VmRSS`); 0 if it cannot be read.
pub fn status_kib(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix(field).and_then(|v| v.strip_prefix(':')))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// The `p`th percentile (nearest rank) of `sorted`; NaN if it is empty.
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = ((p / 100.0) * (sorted.len() - 1) as f64).round() as usize;
    sorted[rank.min(sorted.len() - 1)]
}

/// The median of `values`, leaving out NaNs (a metric a repetition could not measure).
pub fn median(mut values: Vec<f64>) -> f64 {
    values.retain(|v| !v.is_nan());
    values.sort_by(f64::total_cmp);
    percentile(&values, 50.0)
}

/// Appends `n` in decimal.
pub fn push_decimal(out: &mut Vec<u8>, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[at..]);
}

/// The room to read into after the unread bytes `buf[*start..*end]`: those are moved to the front
/// first, and `buf` doubles when they fill it.
pub fn read_room<'b>(buf: &'b mut Vec<u8>, start: &mut usize, end: &mut usize) -> &'b mut [u8] {
    if *start > 0 {
        buf.copy_within(*start..*end, 0);
        *end -= *start;
        *start = 0;
    }
    if *end == buf.len() {
        buf.resize(buf.len() * 2, 0);
    }
    &mut buf[*end..]
}
