//! Every libc call and every `unsafe` block of toolcap, each with its
//! SAFETY note, behind small safe functions. Nothing else in the crate may
//! use `unsafe` (the crate denies it; this module alone allows it).
//!
//! What lives here and why std cannot do it: poll(2) on pipes and on a
//! closed stdout, process groups (kill, waitpid on a group), the child
//! subreaper flag, and handing the terminal to the child's group; for runs
//! without process-wide effects, a pidfd and writes without SIGPIPE.
//! Besides, one SIMD loop std has no safe form of: `--redact`'s literal
//! search by AVX-512's byte permutes ([`find_by_first_bytes`]).
#![allow(unsafe_code)]

use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Command, ExitStatus};
use std::time::Duration;

/// A process group, named by the pid of its leader.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProcessGroup(libc::pid_t);

impl ProcessGroup {
    /// The group a child spawned with `process_group(0)` leads.
    pub fn led_by(child: &std::process::Child) -> ProcessGroup {
        // Pids fit in pid_t; std hands them out as u32.
        ProcessGroup(child.id() as libc::pid_t)
    }

    /// Sends `signal` to every process in the group; a group that is
    /// already gone is not an error.
    pub fn signal(self, signal: i32) {
        // SAFETY: kill(2) with a negative pid only sends a signal; no memory
        // is involved.
        unsafe { libc::kill(-self.0, signal) };
    }

    /// True when no process of the group is left (zombies count as left
    /// until reaped).
    pub fn is_gone(self) -> bool {
        // SAFETY: signal 0 only checks that the group exists.
        let result = unsafe { libc::kill(-self.0, 0) };
        result != 0 && io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH)
    }

    /// A descriptor that becomes readable when the leader exits
    /// (pidfd_open(2), Linux 5.3), so its exit can be waited for without a
    /// SIGCHLD handler, which would be process-wide. Call it before the
    /// leader is reaped. `None` where there is none (another system, an
    /// older kernel, a seccomp filter): then look now and then.
    pub fn exit_descriptor(self) -> Option<std::os::fd::OwnedFd> {
        #[cfg(target_os = "linux")]
        {
            use std::os::fd::FromRawFd;
            // SAFETY: pidfd_open only reads its two integer arguments; the
            // leader is our own unreaped child, so its pid names no other
            // process.
            let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, self.0, 0) };
            // SAFETY: a non-negative result is a new descriptor we own.
            (fd >= 0).then(|| unsafe { std::os::fd::OwnedFd::from_raw_fd(fd as libc::c_int) })
        }
        #[cfg(not(target_os = "linux"))]
        None
    }

    /// Reaps every process of the group that has ended: the leader, and
    /// orphans handed to us (as subreaper, or because the embedding
    /// program is one); other children of this process are left alone.
    /// Says what became of the leader.
    pub fn reap(self) -> Leader {
        let mut leader = Leader::NotReaped;
        loop {
            let mut status = 0;
            // SAFETY: waitpid(2) writes only to `status`.
            match unsafe { libc::waitpid(-self.0, &mut status, libc::WNOHANG) } {
                0 => return leader,
                pid if pid == self.0 => leader = Leader::Exited(ExitStatus::from_raw(status)),
                // An orphan of the group.
                pid if pid > 0 => {}
                _ => match io::Error::last_os_error().raw_os_error() {
                    Some(libc::EINTR) => {}
                    Some(libc::ECHILD) if leader == Leader::NotReaped => return Leader::Unwaitable,
                    _ => return leader,
                },
            }
        }
    }
}

/// What one call of [`ProcessGroup::reap`] found of the group's leader.
/// Once a call returned `Exited`, the others say nothing of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Leader {
    /// Not reaped by this call: it still runs.
    NotReaped,
    /// It ended, and this call reaped it.
    Exited(ExitStatus),
    /// No child of ours is left in the group. Before the leader was
    /// reaped here, that means it ended and something else took its status:
    /// SIGCHLD set to SIG_IGN in the process that embeds toolcap (the
    /// kernel then reaps children itself), or a `waitpid(-1)` of its own.
    Unwaitable,
}

/// Orphans of the child's group are handed to toolcap instead of init, so
/// toolcap reaps them and can tell when the whole group is gone; an init
/// that reaps slowly (as in many containers) would otherwise keep zombies
/// in the group. Linux only; elsewhere the group check waits on zombies.
pub fn become_subreaper() {
    #[cfg(target_os = "linux")]
    // SAFETY: PR_SET_CHILD_SUBREAPER only sets a flag on this process.
    unsafe {
        libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    }
}

/// Whether stdin is a terminal and this process is its foreground job.
pub fn owns_terminal() -> bool {
    // SAFETY: isatty, tcgetpgrp and getpgrp only query.
    unsafe {
        libc::isatty(libc::STDIN_FILENO) == 1
            && libc::tcgetpgrp(libc::STDIN_FILENO) == libc::getpgrp()
    }
}

/// Makes the calling process's group the terminal's foreground group.
/// A background group may do so only with SIGTTOU ignored, or it is
/// stopped: in the child that is what it is, and in toolcap afterwards too.
pub fn take_terminal() {
    // SAFETY: signal and tcsetpgrp are async-signal-safe and touch no
    // memory of ours.
    unsafe {
        let previous = libc::signal(libc::SIGTTOU, libc::SIG_IGN);
        libc::tcsetpgrp(libc::STDIN_FILENO, libc::getpgrp());
        libc::signal(libc::SIGTTOU, previous);
    }
}

/// Makes `command`'s child take the terminal right after it is forked into
/// its own group, before it execs (see [`take_terminal`]).
pub fn take_terminal_in_child(command: &mut Command) {
    // SAFETY: the hook only makes async-signal-safe calls (signal,
    // tcsetpgrp, getpgrp), as a hook between fork and exec must.
    unsafe {
        command.pre_exec(|| {
            take_terminal();
            Ok(())
        })
    };
}

/// Gives SIGXFSZ its default action in `command`'s child when this process
/// ignores it (Python does): an ignored signal stays ignored across exec,
/// and a command over its file-size limit would get EFBIG instead of being
/// stopped, unlike the same command started by a shell (std restores
/// SIGPIPE already). Nothing is added otherwise, so that std may still
/// spawn without a fork.
pub fn default_sigxfsz_in_child(command: &mut Command) {
    // SAFETY: sigaction with no new action only reads the current one
    // into `current`, a zeroed sigaction that it may fill.
    let ignored = unsafe {
        let mut current: libc::sigaction = std::mem::zeroed();
        libc::sigaction(libc::SIGXFSZ, std::ptr::null(), &mut current) == 0
            && current.sa_sigaction == libc::SIG_IGN
    };
    if ignored {
        // SAFETY: signal(2) is async-signal-safe, as a hook between fork and
        // exec must be, and changes only the child.
        unsafe {
            command.pre_exec(|| {
                libc::signal(libc::SIGXFSZ, libc::SIG_DFL);
                Ok(())
            })
        };
    }
}

/// Waits until one of `fds` is readable (or hung up), or `timeout` passes
/// (`None`: no limit). Returns which are ready; `None` entries are skipped
/// and never ready. A signal interrupting the wait counts as nothing ready.
pub fn poll_readable<const N: usize>(
    fds: [Option<BorrowedFd<'_>>; N],
    timeout: Option<Duration>,
) -> io::Result<[bool; N]> {
    poll_ready(fds, None, timeout).map(|(readable, _)| readable)
}

/// [`poll_readable`], and also whether `writable` can take a write (or its
/// reader has gone, so that the write fails at once instead of blocking).
pub fn poll_ready<const N: usize>(
    fds: [Option<BorrowedFd<'_>>; N],
    writable: Option<BorrowedFd<'_>>,
    timeout: Option<Duration>,
) -> io::Result<([bool; N], bool)> {
    // One array for poll(2): the readable fds, then the writable one.
    let mut polled = [libc::pollfd {
        fd: -1,
        events: 0,
        revents: 0,
    }; 8];
    const { assert!(N < 8, "poll_ready takes at most 7 readable fds") };
    for (slot, fd) in polled.iter_mut().zip(fds) {
        // poll(2) ignores negative fds.
        slot.fd = fd.map_or(-1, |fd| fd.as_raw_fd());
        slot.events = libc::POLLIN;
    }
    polled[N].fd = writable.map_or(-1, |fd| fd.as_raw_fd());
    polled[N].events = libc::POLLOUT;
    // Round up, so a wake-up never comes a millisecond early and spins.
    let timeout_ms = timeout.map_or(-1, |t| {
        t.as_micros().div_ceil(1000).min(i32::MAX as u128) as i32
    });
    // SAFETY: `polled` holds at least N + 1 valid pollfd, alive for the call.
    let result = unsafe { libc::poll(polled.as_mut_ptr(), (N + 1) as libc::nfds_t, timeout_ms) };
    if result < 0 {
        let err = io::Error::last_os_error();
        if err.kind() == io::ErrorKind::Interrupted {
            return Ok(([false; N], false));
        }
        return Err(err);
    }
    let readable = std::array::from_fn(|index| polled[index].revents != 0);
    Ok((readable, polled[N].revents != 0))
}

/// Makes writes to `fd` return `WouldBlock` instead of waiting: the
/// command's stdin is fed from the same loop that drains its output.
pub fn set_nonblocking(fd: BorrowedFd<'_>) -> io::Result<()> {
    // SAFETY: fcntl(2) F_GETFL and F_SETFL on a descriptor we hold only
    // read and set its status flags.
    let result = unsafe {
        let flags = libc::fcntl(fd.as_raw_fd(), libc::F_GETFL);
        if flags < 0 {
            flags
        } else {
            libc::fcntl(fd.as_raw_fd(), libc::F_SETFL, flags | libc::O_NONBLOCK)
        }
    };
    if result < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// write(2) to a pipe whose reader may have gone, without SIGPIPE: a
/// library must not rely on its host ignoring that signal (Rust programs
/// and Python do, others may not). The signal is blocked in this thread
/// for the write, and the one the write raised is taken back before the
/// thread's mask is restored, as libcurl does; the write then fails with
/// `BrokenPipe`. Nothing process-wide changes.
pub fn write_without_sigpipe(fd: BorrowedFd<'_>, data: &[u8]) -> io::Result<usize> {
    // SAFETY: the sigset_t values are initialised by sigemptyset and
    // sigpending before use; pthread_sigmask changes only this thread's
    // mask and is restored below; write(2) reads `data`, which is valid
    // for its length; sigtimedwait with a zero timeout only takes a
    // pending SIGPIPE, which the write itself raised (one pending before
    // is left alone).
    unsafe {
        let mut sigpipe: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut sigpipe);
        libc::sigaddset(&mut sigpipe, libc::SIGPIPE);
        let mut previous: libc::sigset_t = std::mem::zeroed();
        libc::pthread_sigmask(libc::SIG_BLOCK, &sigpipe, &mut previous);
        let mut pending: libc::sigset_t = std::mem::zeroed();
        libc::sigpending(&mut pending);
        let was_pending = libc::sigismember(&pending, libc::SIGPIPE) == 1;
        let written = libc::write(fd.as_raw_fd(), data.as_ptr().cast(), data.len());
        let result = if written < 0 {
            Err(io::Error::last_os_error())
        } else {
            Ok(written as usize)
        };
        if !was_pending
            && let Err(err) = &result
            && err.kind() == io::ErrorKind::BrokenPipe
        {
            let zero = libc::timespec {
                tv_sec: 0,
                tv_nsec: 0,
            };
            libc::sigtimedwait(&sigpipe, std::ptr::null_mut(), &zero);
        }
        libc::pthread_sigmask(libc::SIG_SETMASK, &previous, std::ptr::null_mut());
        result
    }
}

/// True when `output` is a pipe whose reader has gone (`| head` exited).
/// A filter that prints nothing until its input ends would otherwise learn
/// of it only at its first write, after reading an endless input forever.
pub fn reader_has_gone(output: impl AsFd) -> bool {
    let mut poll = libc::pollfd {
        fd: output.as_fd().as_raw_fd(),
        events: 0,
        revents: 0,
    };
    // SAFETY: one valid pollfd, and a zero timeout: this never blocks.
    let ready = unsafe { libc::poll(&mut poll, 1, 0) };
    // Linux reports a pipe without readers as POLLERR.
    ready > 0 && poll.revents & libc::POLLERR != 0
}

/// The conventional name of a signal, such as `SIGKILL`.
pub fn signal_name(signal: i32) -> Option<&'static str> {
    Some(match signal {
        libc::SIGHUP => "SIGHUP",
        libc::SIGINT => "SIGINT",
        libc::SIGQUIT => "SIGQUIT",
        libc::SIGILL => "SIGILL",
        libc::SIGTRAP => "SIGTRAP",
        libc::SIGABRT => "SIGABRT",
        libc::SIGBUS => "SIGBUS",
        libc::SIGFPE => "SIGFPE",
        libc::SIGKILL => "SIGKILL",
        libc::SIGUSR1 => "SIGUSR1",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGUSR2 => "SIGUSR2",
        libc::SIGPIPE => "SIGPIPE",
        libc::SIGALRM => "SIGALRM",
        libc::SIGTERM => "SIGTERM",
        libc::SIGCHLD => "SIGCHLD",
        libc::SIGCONT => "SIGCONT",
        libc::SIGSTOP => "SIGSTOP",
        libc::SIGTSTP => "SIGTSTP",
        libc::SIGTTIN => "SIGTTIN",
        libc::SIGTTOU => "SIGTTOU",
        libc::SIGURG => "SIGURG",
        libc::SIGXCPU => "SIGXCPU",
        libc::SIGXFSZ => "SIGXFSZ",
        libc::SIGVTALRM => "SIGVTALRM",
        libc::SIGPROF => "SIGPROF",
        libc::SIGWINCH => "SIGWINCH",
        libc::SIGIO => "SIGIO",
        libc::SIGSYS => "SIGSYS",
        _ => return None,
    })
}

/// The metadata of an open descriptor (stdin, stdout), through a duplicate
/// descriptor so that std can read it without unsafe code.
pub fn fd_metadata(fd: BorrowedFd<'_>) -> io::Result<std::fs::Metadata> {
    std::fs::File::from(fd.try_clone_to_owned()?).metadata()
}

/// Whether `signal` currently has its default action (not a handler, not
/// ignored).
pub fn has_default_action(signal: i32) -> bool {
    // SAFETY: sigaction(2) with a null new action only reads the current
    // one into `current`, which is a valid, zeroed sigaction.
    unsafe {
        let mut current: libc::sigaction = std::mem::zeroed();
        libc::sigaction(signal, std::ptr::null(), &mut current) == 0
            && current.sa_sigaction == libc::SIG_DFL
    }
}

/// The effective user id, to check who owns the spill store.
pub fn effective_uid() -> u32 {
    // SAFETY: geteuid(2) has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}

/// Takes an exclusive flock(2) on `file`, waiting for it when `wait`;
/// `Ok(false)` when not waiting and someone else holds it. The lock lasts
/// until released or until every descriptor of this open file is closed
/// (so, at the latest, when the process dies).
pub fn lock_exclusive(file: &std::fs::File, wait: bool) -> io::Result<bool> {
    let operation = if wait {
        libc::LOCK_EX
    } else {
        libc::LOCK_EX | libc::LOCK_NB
    };
    loop {
        // SAFETY: flock(2) on a descriptor we own; no memory involved.
        if unsafe { libc::flock(file.as_raw_fd(), operation) } == 0 {
            return Ok(true);
        }
        let err = io::Error::last_os_error();
        match err.kind() {
            io::ErrorKind::Interrupted => {}
            io::ErrorKind::WouldBlock if !wait => return Ok(false),
            _ => return Err(err),
        }
    }
}

/// Holds an exclusive flock(2) on a file until dropped: concurrent
/// toolcaps take it on the store's lock file around every manifest change.
pub struct FileLock(std::fs::File);

impl FileLock {
    /// Blocks until the lock on `file` is ours.
    pub fn exclusive(file: std::fs::File) -> io::Result<FileLock> {
        lock_exclusive(&file, true)?;
        Ok(FileLock(file))
    }
}

impl Drop for FileLock {
    fn drop(&mut self) {
        // SAFETY: flock(2) on a descriptor we own; closing the file would
        // release it as well, once no copy of it is left open.
        unsafe { libc::flock(self.0.as_raw_fd(), libc::LOCK_UN) };
    }
}

/// Whether [`find_by_first_bytes`] runs here: the CPU has AVX-512 with
/// byte permutes (F, BW, VBMI), and the compiler its intrinsics.
pub fn has_byte_permutes() -> bool {
    #[cfg(all(target_arch = "x86_64", toolcap_avx512))]
    #[allow(clippy::incompatible_msrv)] // Only with Rust 1.89 or newer (build.rs).
    {
        std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512bw")
            && std::arch::is_x86_feature_detected!("avx512vbmi")
    }
    #[cfg(not(all(target_arch = "x86_64", toolcap_avx512)))]
    false
}

/// The first pass of a search for many literals by their first three
/// bytes, 64 starts a step, where [`has_byte_permutes`]: `tables[k][b]`
/// holds the buckets (bits) of the literals whose byte `k` is `b`, for
/// ASCII `b`; a byte of 128 or more reads the entry of `b - 128`
/// (permutes index by 7 bits), so give only ASCII literals.
/// `confirm(start, buckets)` checks a start where some bucket's literals
/// have all three bytes; a start that holds `lone` needs no check.
/// Returns `Ok` with the first start that holds `lone` or that `confirm`
/// confirmed, or `Err` with the first start not looked at: the starts
/// before it hold neither. Elsewhere, `Err(0)`: nothing was looked at.
///
/// Each step is three loads, three permutes (each a table lookup of 64
/// bytes), two ANDs and a compare with `lone`: 28 instructions for 128
/// starts with the loop, where Teddy's AVX2 form (aho-corasick) takes 27
/// for 32 (issue 25, docs/BENCHMARKS.md).
pub fn find_by_first_bytes(
    tables: &[[u8; 128]; 3],
    lone: u8,
    text: &[u8],
    confirm: &mut dyn FnMut(usize, u8) -> bool,
) -> Result<usize, usize> {
    #[cfg(all(target_arch = "x86_64", toolcap_avx512))]
    if has_byte_permutes() {
        // SAFETY: the CPU has the features the function is compiled for.
        return unsafe { first_bytes_avx512(tables, lone, text, confirm) };
    }
    let _ = (tables, lone, text, confirm);
    Err(0)
}

/// See [`find_by_first_bytes`]. Two steps a round, their results tested
/// together: one branch for 128 starts.
#[cfg(all(target_arch = "x86_64", toolcap_avx512))]
#[allow(clippy::incompatible_msrv)] // Only with Rust 1.89 or newer (build.rs).
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
unsafe fn first_bytes_avx512(
    tables: &[[u8; 128]; 3],
    lone: u8,
    text: &[u8],
    confirm: &mut dyn FnMut(usize, u8) -> bool,
) -> Result<usize, usize> {
    use std::arch::x86_64::{
        __m512i, _mm512_loadu_si512, _mm512_or_si512, _mm512_set1_epi8, _mm512_storeu_si512,
        _mm512_test_epi8_mask,
    };
    const STEP: usize = 64;
    // SAFETY: each table is 128 bytes: two unaligned 64-byte loads.
    let halves = tables.map(|table| unsafe {
        let low: __m512i = _mm512_loadu_si512(table.as_ptr().cast());
        let high: __m512i = _mm512_loadu_si512(table.as_ptr().add(STEP).cast());
        (low, high)
    });
    let lone = _mm512_set1_epi8(lone as i8);
    let text_at = text.as_ptr();
    let mut start = 0;
    while start + 2 * STEP + 2 <= text.len() {
        // SAFETY: both steps read inside `text`, by the loop's condition.
        let ((one, lone_one), (two, lone_two)) = unsafe {
            (
                buckets_at(halves, lone, text_at.add(start)),
                buckets_at(halves, lone, text_at.add(start + STEP)),
            )
        };
        let either = _mm512_or_si512(one, two);
        if _mm512_test_epi8_mask(either, either) | lone_one | lone_two != 0 {
            let mut each = [0u8; 2 * STEP];
            // SAFETY: `each` is 128 bytes: two 64-byte stores.
            unsafe {
                _mm512_storeu_si512(each.as_mut_ptr().cast(), one);
                _mm512_storeu_si512(each.as_mut_ptr().add(STEP).cast(), two);
            }
            let found = (u128::from(_mm512_test_epi8_mask(two, two)) << STEP)
                | u128::from(_mm512_test_epi8_mask(one, one));
            let lone = (u128::from(lone_two) << STEP) | u128::from(lone_one);
            if let Some(found) = confirm_starts(start, found, lone, &each, confirm) {
                return Ok(found);
            }
        }
        start += 2 * STEP;
    }
    if start + STEP + 2 <= text.len() {
        // SAFETY: the step reads inside `text`, by the condition.
        let (one, lone_one) = unsafe { buckets_at(halves, lone, text_at.add(start)) };
        let mut each = [0u8; 2 * STEP];
        // SAFETY: `each` is 128 bytes.
        unsafe { _mm512_storeu_si512(each.as_mut_ptr().cast(), one) };
        let found = u128::from(_mm512_test_epi8_mask(one, one));
        let lone = u128::from(lone_one);
        if let Some(found) = confirm_starts(start, found, lone, &each, confirm) {
            return Ok(found);
        }
        start += STEP;
    }
    Err(start)
}

/// The buckets of the 64 starts from `at`, by `tables` (each a table's
/// two halves), read with their three bytes, and which of them hold the
/// byte `lone` repeats.
///
/// # Safety
///
/// The CPU has AVX-512 (F, BW, VBMI); `at[..66]` is readable.
#[cfg(all(target_arch = "x86_64", toolcap_avx512))]
#[allow(clippy::incompatible_msrv)] // Only with Rust 1.89 or newer (build.rs).
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
#[inline]
unsafe fn buckets_at(
    tables: [(std::arch::x86_64::__m512i, std::arch::x86_64::__m512i); 3],
    lone: std::arch::x86_64::__m512i,
    at: *const u8,
) -> (std::arch::x86_64::__m512i, u64) {
    use std::arch::x86_64::{
        _mm512_and_si512, _mm512_cmpeq_epi8_mask, _mm512_loadu_si512, _mm512_permutex2var_epi8,
    };
    let [(low0, high0), (low1, high1), (low2, high2)] = tables;
    // SAFETY: `at[k..k + 64]` for k < 3 is readable, as the caller ensures.
    let (first, second, third) = unsafe {
        (
            _mm512_loadu_si512(at.cast()),
            _mm512_loadu_si512(at.add(1).cast()),
            _mm512_loadu_si512(at.add(2).cast()),
        )
    };
    let buckets = _mm512_and_si512(
        _mm512_and_si512(
            _mm512_permutex2var_epi8(low0, first, high0),
            _mm512_permutex2var_epi8(low1, second, high1),
        ),
        _mm512_permutex2var_epi8(low2, third, high2),
    );
    (buckets, _mm512_cmpeq_epi8_mask(first, lone))
}

/// The first of the starts from `start` whose bit is set in `lone`, or in
/// `found` and `confirm` confirms it, with the buckets in `each`; apart
/// from the loop, which it would otherwise crowd (few starts get here).
#[cfg(all(target_arch = "x86_64", toolcap_avx512))]
#[cold]
#[inline(never)]
fn confirm_starts(
    start: usize,
    found: u128,
    lone: u128,
    each: &[u8; 128],
    confirm: &mut dyn FnMut(usize, u8) -> bool,
) -> Option<usize> {
    let mut found = found | lone;
    while found != 0 {
        let offset = found.trailing_zeros() as usize;
        if lone & (1 << offset) != 0 || confirm(start + offset, each[offset]) {
            return Some(start + offset);
        }
        found &= found - 1;
    }
    None
}
