//! Resident memory and CPU time of a server: the process and every descendant (nginx runs a
//! master and workers), read from `/proc/PID/status` (`VmRSS`) and `/proc/PID/stat`.

use anyhow::Context;

/// Resident set of `pid` and its descendants, in KiB.
pub fn rss_tree_kib(pid: u32) -> anyhow::Result<u64> {
    tree_sum(pid, &rss_kib)
}

/// CPU time (user + system) `pid` and its live descendants have used, in milliseconds.
pub fn cpu_tree_ms(pid: u32) -> anyhow::Result<f64> {
    tree_sum(pid, &cpu_ms)
}

/// `read` of `pid` plus that of every descendant still there (one that has just exited counts
/// as nothing); an error only for `pid` itself.
fn tree_sum<T: std::iter::Sum<T> + Default + std::ops::Add<Output = T>>(
    pid: u32,
    read: &dyn Fn(u32) -> anyhow::Result<T>,
) -> anyhow::Result<T> {
    let descendants: T = children(pid)
        .into_iter()
        .map(|child| tree_sum(child, read).unwrap_or_default())
        .sum();
    Ok(read(pid)? + descendants)
}

fn cpu_ms(pid: u32) -> anyhow::Result<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .with_context(|| format!("reading /proc/{pid}/stat"))?;
    // After the command name (in parentheses, and it may hold spaces): state is field 3,
    // utime and stime fields 14 and 15, in clock ticks.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .context("/proc/PID/stat has a command name")?
        .1
        .split_whitespace()
        .collect();
    let ticks = |i: usize| -> anyhow::Result<f64> {
        let field = fields.get(i - 3).context("/proc/PID/stat is too short")?;
        Ok(field.parse::<u64>()? as f64)
    };
    Ok((ticks(14)? + ticks(15)?) * 1000.0 / clock_ticks_per_s())
}

/// `sysconf(_SC_CLK_TCK)`, asked of `getconf` (the workspace forbids `unsafe`); 100, the value
/// on every Linux this runs on, if that fails.
fn clock_ticks_per_s() -> f64 {
    static TICKS: std::sync::OnceLock<f64> = std::sync::OnceLock::new();
    *TICKS.get_or_init(|| {
        std::process::Command::new("getconf")
            .arg("CLK_TCK")
            .output()
            .ok()
            .and_then(|out| String::from_utf8(out.stdout).ok())
            .and_then(|s| s.trim().parse::<f64>().ok())
            .filter(|&t| t > 0.0)
            .unwrap_or(100.0)
    })
}

fn rss_kib(pid: u32) -> anyhow::Result<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))
        .with_context(|| format!("reading /proc/{pid}/status"))?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .context("VmRSS in /proc/PID/status")
}

fn children(pid: u32) -> Vec<u32> {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for task in tasks.flatten() {
        if let Ok(list) = std::fs::read_to_string(task.path().join("children")) {
            out.extend(
                list.split_whitespace()
                    .filter_map(|p| p.parse::<u32>().ok()),
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn own_rss_is_positive() {
        assert!(super::rss_tree_kib(std::process::id()).unwrap() > 0);
    }

    #[test]
    fn own_cpu_time_follows_work() {
        // Spin until 50 ms of CPU time are reported (the machine may be busy, so no fixed
        // wall time is enough), then check the figure against the wall clock: a wrong field
        // or unit reads as never growing or as more than the threads could have used.
        let pid = std::process::id();
        let before = super::cpu_tree_ms(pid).unwrap();
        let started = std::time::Instant::now();
        let mut x = 0u64;
        let mut used = 0.0;
        while used < 50.0 && started.elapsed() < std::time::Duration::from_secs(10) {
            for _ in 0..100_000 {
                x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(7));
            }
            used = super::cpu_tree_ms(pid).unwrap() - before;
        }
        let wall_ms = started.elapsed().as_secs_f64() * 1000.0;
        let cores = std::thread::available_parallelism().map_or(1, usize::from) as f64;
        assert!(
            used >= 50.0,
            "{used} ms of CPU after {wall_ms} ms of spinning"
        );
        assert!(
            used <= wall_ms * cores + 20.0,
            "{used} ms of CPU in {wall_ms} ms on {cores} cores"
        );
    }
}
