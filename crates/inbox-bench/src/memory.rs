//! Resident memory of a server: the process and every descendant (nginx runs a master and
//! workers), read from `/proc/PID/status` (`VmRSS`).

use anyhow::Context;

/// Resident set of `pid` and its descendants, in KiB.
pub fn rss_tree_kib(pid: u32) -> anyhow::Result<u64> {
    let mut total = rss_kib(pid)?;
    for child in children(pid) {
        total += rss_tree_kib(child).unwrap_or(0);
    }
    Ok(total)
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
}
