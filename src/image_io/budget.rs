//! The memory budget: how much host (and GPU) memory one piece of work may take, checked
//! against the working set computed from an image's declared size before anything is
//! decoded or allocated. Default: 3/4 of the host memory available now (MemAvailable, or
//! the cgroup's remaining allowance if lower) and 9/10 of the GPU memory free now;
//! `--max-memory` replaces both with one number.

use std::sync::OnceLock;

const MIB: u64 = 1 << 20;
const GIB: u64 = 1 << 30;

static CONFIGURED: OnceLock<Option<u64>> = OnceLock::new();

/// Sets the `--max-memory` of this process (first call wins; later calls are ignored).
pub fn configure_max_memory(bytes: Option<u64>) {
    let _ = CONFIGURED.set(bytes);
}

/// The `--max-memory` given, if any.
pub fn configured_max_memory() -> Option<u64> {
    CONFIGURED.get().copied().flatten()
}

/// "1.5 GiB", "300 MiB", "12 KiB".
pub fn format_bytes(bytes: u64) -> String {
    let b = bytes as f64;
    if bytes >= GIB {
        format!("{:.1} GiB", b / GIB as f64)
    } else if bytes >= MIB {
        format!("{:.0} MiB", b / MIB as f64)
    } else {
        format!("{:.0} KiB", (b / 1024.0).ceil())
    }
}

/// Parses a memory size: a number of bytes with an optional unit (K, M, G, T, with or
/// without "iB"/"B"; powers of 1024), e.g. `512M`, `1.5GiB`, `2g`.
pub fn parse_memory_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let value: f64 = number
        .parse()
        .map_err(|_| format!("'{text}': expected a size such as 512M or 4G"))?;
    let scale = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => MIB,
        "g" | "gb" | "gib" => GIB,
        "t" | "tb" | "tib" => 1 << 40,
        _ => return Err(format!("'{text}': unknown unit (use K, M, G or T)")),
    };
    let bytes = value * scale as f64;
    if !(bytes.is_finite() && bytes >= MIB as f64 && bytes < 2f64.powi(63)) {
        return Err(format!("'{text}': must be at least 1M"));
    }
    Ok(bytes as u64)
}

fn meminfo_available() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

fn cgroup_remaining() -> Option<u64> {
    let read = |name: &str| std::fs::read_to_string(format!("/sys/fs/cgroup/{name}")).ok();
    let max: u64 = read("memory.max")?.trim().parse().ok()?; // "max" means no limit
    let current: u64 = read("memory.current")?.trim().parse().ok()?;
    Some(max.saturating_sub(current))
}

/// Host memory available to this process now (or `None` where the system does not say).
pub fn host_available() -> Option<u64> {
    match (meminfo_available(), cgroup_remaining()) {
        (Some(a), Some(c)) => Some(a.min(c)),
        (a, c) => a.or(c),
    }
}

/// The host budget in bytes and how it was set, for messages.
pub fn host_budget() -> (u64, String) {
    if let Some(max) = configured_max_memory() {
        return (max, "set by --max-memory".into());
    }
    match host_available() {
        Some(avail) => (
            avail / 4 * 3,
            format!("3/4 of the {} available", format_bytes(avail)),
        ),
        None => (u64::MAX, "no limit known".into()),
    }
}

/// The GPU budget given the memory the driver reports free.
pub fn gpu_budget(free: u64) -> (u64, String) {
    let share = free / 10 * 9;
    match configured_max_memory() {
        Some(max) if max < share => (max, "set by --max-memory".into()),
        _ => (share, format!("9/10 of the {} free", format_bytes(free))),
    }
}

/// Refuses `need` bytes of host memory for `what` when over the budget; the message says
/// how much, the budget, and how to change it.
pub fn check_host(what: &str, need: u64) -> Result<(), String> {
    let (budget, how) = host_budget();
    if need <= budget {
        return Ok(());
    }
    Err(format!(
        "{what} needs about {} of memory, over the budget of {} ({how}); use --max-memory to change it",
        format_bytes(need),
        format_bytes(budget)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_sizes_with_units() {
        assert_eq!(parse_memory_size("512M"), Ok(512 * MIB));
        assert_eq!(parse_memory_size("1.5GiB"), Ok(3 * GIB / 2));
        assert_eq!(parse_memory_size("2g"), Ok(2 * GIB));
        assert_eq!(parse_memory_size("1048576"), Ok(MIB));
        for bad in ["", "G", "-1G", "12Q", "100", "1e9", "nan", "1..5G"] {
            assert!(parse_memory_size(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn formats_bytes_readably() {
        assert_eq!(format_bytes(3 * GIB / 2), "1.5 GiB");
        assert_eq!(format_bytes(300 * MIB), "300 MiB");
        assert_eq!(format_bytes(1), "1 KiB");
    }

    #[test]
    fn host_memory_is_known_on_linux() {
        assert!(host_available().is_some_and(|b| b > 0));
    }
}

/// The memory budget option shared by every command that loads or makes images.
#[derive(Debug, clap::Args, Clone, Default)]
pub struct MemoryArgs {
    /// Most memory (host, and GPU) one image's work may take, e.g. 2G or 512M (default:
    /// 3/4 of the available host memory, 9/10 of the free GPU memory).
    #[arg(long, value_name = "SIZE", value_parser = parse_memory_size)]
    pub max_memory: Option<u64>,
}
