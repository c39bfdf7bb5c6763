//! A hook that dies still answers. Copilot CLI's hooks file `exec`s the
//! hook from bash (scripts/hooks-files.mjs: no fork and wait, 0.3 ms of
//! every call), so nothing of the command runs after it: a hook killed by a
//! fault would be a failed hook, and Copilot CLI denies the tool call of a
//! failed preToolUse hook. So once armed, a fatal signal (a fault, an
//! illegal instruction, an abort: a panic that cannot unwind, an allocation
//! that failed) answers what the end of the hooks files' chain answers, an
//! allow (`{}`), and exits 0, unless the answer has been written already.
//! What it cannot cover: SIGKILL (the host's timeout, the OOM killer) and
//! a hook that cannot start once exec'd (`goal-system install` leaves the
//! exec out where the hook does not run: cli/hook-exec.mjs).

use std::sync::atomic::{AtomicBool, Ordering};

/// Set once the answer is being written: a signal after it adds nothing.
static ANSWERED: AtomicBool = AtomicBool::new(false);

/// The signals a bug raises (a stack overflow is a SIGSEGV: Rust's own
/// handler for it is replaced, and the answer runs on the alternate stack
/// Rust's runtime set up for the main thread).
const FATAL: [libc::c_int; 6] = [
    libc::SIGSEGV,
    libc::SIGBUS,
    libc::SIGILL,
    libc::SIGFPE,
    libc::SIGABRT,
    libc::SIGSYS,
];

/// From here to [`answering`], a fatal signal answers `{}` and exits 0.
/// Armed first thing in a hook run: what comes before it (the runtime's
/// start) has no answer to give.
pub fn arm() {
    for signal in FATAL {
        // SAFETY: a zeroed sigaction is a valid empty one; the handler only
        // makes async-signal-safe calls (write, _exit).
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_fatal as extern "C" fn(libc::c_int) as libc::sighandler_t;
            action.sa_flags = libc::SA_ONSTACK;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(signal, &action, std::ptr::null_mut());
        }
    }
}

/// Called right before the answer is written: from then on the answer is
/// the hook's, and a signal must not add a second one.
pub fn answering() {
    ANSWERED.store(true, Ordering::SeqCst);
}

extern "C" fn on_fatal(_signal: libc::c_int) {
    const ALLOW: &[u8] = b"{}\n";
    const WHY: &[u8] = b"goal-system hook: stopped by a fatal signal; allowing\n";
    // SAFETY: write and _exit are async-signal-safe; the buffers are static.
    unsafe {
        if !ANSWERED.swap(true, Ordering::SeqCst) {
            libc::write(2, WHY.as_ptr().cast(), WHY.len());
            libc::write(1, ALLOW.as_ptr().cast(), ALLOW.len());
        }
        libc::_exit(0);
    }
}
