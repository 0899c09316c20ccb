//! What the load test targets: the server's addresses and the process it measures,
//! and what it reads of that process from `/proc` (CPU time, memory, the process
//! listening on a port); and this process's open-file limit.

use std::collections::BTreeMap;
use std::net::SocketAddr;

use crate::client::resolve_loopback;
use crate::in_process::LocalServer;
use crate::LoadtestArgs;

/// The server under load.
pub(super) struct Target {
    /// Where the rooms are created: the first address.
    pub addr: SocketAddr,
    /// Where the connections go, seat by seat in turn.
    pub spread: Vec<SocketAddr>,
    /// The process whose CPU time and memory are read: this one when the server runs
    /// in it.
    pub pid: Option<u32>,
    local: Option<LocalServer>,
}

impl Target {
    /// The addresses of `--addr` (loopback only), or a server started in this process
    /// without it; raises the open-file limit for `rooms` and the spectators, and
    /// prints what it targets.
    pub async fn open(args: &LoadtestArgs, rooms: usize) -> anyhow::Result<Target> {
        let mut spread = Vec::new();
        for a in args.addr.iter().flat_map(|a| a.split(',')).map(str::trim) {
            if !a.is_empty() {
                spread.push(resolve_loopback(a).await?);
            }
        }
        let connections = rooms * 3 + args.spectators;
        raise_fd_limit(open_files_needed(connections, spread.is_empty()));
        let local = if spread.is_empty() {
            Some(LocalServer::start(args, rooms).await?)
        } else {
            None
        };
        if let Some(server) = &local {
            spread.push(server.addr);
        }
        let addr = spread[0];
        if spread.len() > 1 {
            let list: Vec<String> = spread.iter().map(ToString::to_string).collect();
            println!("connections spread over {}", list.join(", "));
        }
        let pid = if local.is_some() {
            Some(std::process::id())
        } else if args.child.is_some() {
            // One of `--processes`: its parent measures the server.
            None
        } else {
            args.server_pid.or_else(|| listener_pid(addr.port()))
        };
        match (local.is_some(), pid) {
            (true, _) => println!(
                "target: {addr} (in-process server: its CPU and memory include the load generator)"
            ),
            (false, Some(p)) => println!("target: {addr} (external server, pid {p})"),
            (false, None) => println!(
                "target: {addr} (external server, pid unknown: pass --server-pid for its CPU and memory)"
            ),
        }
        Ok(Target {
            addr,
            spread,
            pid,
            local,
        })
    }

    /// Whether the server runs in this process (its figures then include the load
    /// generator's).
    pub fn in_process(&self) -> bool {
        self.local.is_some()
    }

    /// Stops the in-process server, if any.
    pub async fn close(self) -> anyhow::Result<()> {
        match self.local {
            Some(server) => server.stop().await,
            None => Ok(()),
        }
    }
}

pub(super) fn rss_kib(pid: Option<u32>) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{}/status", pid?)).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// CPU time (user + system, all threads, exited ones included) of a process, in
/// microseconds.
pub(super) fn cpu_us(pid: Option<u32>) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{}/stat", pid?)).ok()?;
    Some(stat_cpu_us(&stat)?.1)
}

/// A process's CPU time at one moment: in all, and by thread name.
#[derive(Debug, Default)]
pub(super) struct CpuReading {
    pub total: Option<u64>,
    pub threads: Option<BTreeMap<String, u64>>,
}

impl CpuReading {
    pub(super) fn of(pid: Option<u32>) -> CpuReading {
        CpuReading {
            total: cpu_us(pid),
            threads: threads_cpu_us(pid),
        }
    }
}

/// CPU time (user + system) of a process's threads alive now, in microseconds, summed
/// by thread name (`tokio-rt-worker`, `sannin-store`, …).
fn threads_cpu_us(pid: Option<u32>) -> Option<BTreeMap<String, u64>> {
    let mut by_name = BTreeMap::new();
    for task in std::fs::read_dir(format!("/proc/{}/task", pid?))
        .ok()?
        .flatten()
    {
        // A thread that ends between the listing and the read is left out.
        let Ok(stat) = std::fs::read_to_string(task.path().join("stat")) else {
            continue;
        };
        if let Some((name, us)) = stat_cpu_us(&stat) {
            *by_name.entry(name.to_string()).or_insert(0) += us;
        }
    }
    Some(by_name)
}

/// The command name and CPU time in microseconds of a `/proc/…/stat` line. The kernel
/// counts the time in clock ticks of `USER_HZ`, which Linux fixes at 100 per second
/// for user space on every architecture it runs on.
fn stat_cpu_us(stat: &str) -> Option<(&str, u64)> {
    // The command name (field 2) is in parentheses and may hold spaces and
    // parentheses itself; the fields after it are fixed.
    let name = &stat[stat.find('(')? + 1..stat.rfind(')')?];
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // utime and stime are fields 14 and 15; `rest` starts at field 3.
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    Some((name, (utime + stime) * 10_000))
}

/// The process listening on TCP `port`: the socket's inode from `/proc/net/tcp` and
/// `tcp6`, then the process holding that inode among `/proc/*/fd` (only this user's
/// processes are readable).
fn listener_pid(port: u16) -> Option<u32> {
    const LISTEN: &str = "0A";
    let mut inodes = Vec::new();
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        let Ok(text) = std::fs::read_to_string(table) else {
            continue;
        };
        for line in text.lines().skip(1) {
            let f: Vec<&str> = line.split_whitespace().collect();
            let (Some(local), Some(state), Some(inode)) = (f.get(1), f.get(3), f.get(9)) else {
                continue;
            };
            let p = local
                .rsplit_once(':')
                .and_then(|(_, p)| u16::from_str_radix(p, 16).ok());
            if p == Some(port) && *state == LISTEN && *inode != "0" {
                inodes.push(format!("socket:[{inode}]"));
            }
        }
    }
    if inodes.is_empty() {
        return None;
    }
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse().ok()) else {
            continue;
        };
        let Ok(fds) = std::fs::read_dir(entry.path().join("fd")) else {
            continue;
        };
        for fd in fds.flatten() {
            if let Ok(link) = std::fs::read_link(fd.path()) {
                if inodes.iter().any(|i| link.as_os_str() == i.as_str()) {
                    return Some(pid);
                }
            }
        }
    }
    None
}

/// Files this process opens for `connections` WebSockets: one socket each, and as many
/// again for the server's end when it runs `in_process`; a margin for the rest.
fn open_files_needed(connections: usize, in_process: bool) -> u64 {
    let ends = if in_process { 2 } else { 1 };
    connections as u64 * ends + 256
}

fn raise_fd_limit(needed: u64) {
    match rlimit::increase_nofile_limit(u64::MAX) {
        Ok(n) if n < needed => eprintln!(
            "warning: open-file limit is {n}, this run needs about {needed}: raise `ulimit -n`"
        ),
        Ok(_) => {}
        Err(e) => eprintln!("warning: cannot raise the open-file limit: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stat_line_gives_its_name_and_cpu_time() {
        let line = "4242 (sqlx (sqlite) w) S 1 4242 4242 0 -1 4194368 \
                    120 0 0 0 37 5 0 0 20 0 3 0 100 0 0";
        assert_eq!(stat_cpu_us(line), Some(("sqlx (sqlite) w", 420_000)));
        assert_eq!(stat_cpu_us("4242 (short) S 1"), None);
    }

    #[test]
    fn this_process_has_its_threads_by_name() {
        let threads = threads_cpu_us(Some(std::process::id())).expect("this process");
        assert!(!threads.is_empty());
        let total = cpu_us(Some(std::process::id())).expect("this process");
        // Read a moment after the total, the live threads' time may pass it by a tick
        // each, never by more.
        let ticks = threads.values().sum::<u64>().saturating_sub(total) / 10_000;
        assert!(
            ticks <= threads.len() as u64 * 2,
            "{threads:?} against {total}"
        );
    }

    #[test]
    fn a_server_in_process_needs_both_ends_of_every_connection() {
        assert_eq!(open_files_needed(10_002, false), 10_258);
        assert_eq!(open_files_needed(10_002, true), 20_260);
        assert_eq!(open_files_needed(0, true), 256);
    }
}
