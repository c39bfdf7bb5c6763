//! Big buffers that fill fast, for the hook executable. A hook is one
//! short-lived process: every buffer it fills is fresh memory, and on Linux
//! each 4 KB page of it costs a fault the first time it is written. A 10 MB
//! payload took 2,500 of them, a sixth of the hook's time. Past its first
//! huge page, a buffer made here asks for huge pages (2 MB), so that a big
//! one takes a handful of faults while a small one never reaches that room
//! and costs what a plain `Vec` does. Not for long-lived processes (the
//! addon in Node): there the advice would outlive the buffer on memory the
//! allocator hands out again, and whole huge pages could fill it. So
//! [`bytes`] is for the hook's own reads, and [`string`] (what shared code
//! such as redaction writes into) advises only once the process has said it
//! is short-lived ([`short_lived`]).

use std::sync::atomic::{AtomicBool, Ordering};

/// Set by [`short_lived`].
static SHORT_LIVED: AtomicBool = AtomicBool::new(false);

/// Declares this process short-lived (the hook executable: one payload,
/// then exit), so that [`string`] advises huge pages too.
pub fn short_lived() {
    SHORT_LIVED.store(true, Ordering::Relaxed);
}

/// Whether this process said it is short-lived ([`short_lived`]).
pub fn is_short_lived() -> bool {
    SHORT_LIVED.load(Ordering::Relaxed)
}

/// An empty string with room for `capacity` bytes: advised like [`bytes`]
/// in a short-lived process, a plain `String` otherwise.
pub fn string(capacity: usize) -> String {
    let buffer = String::with_capacity(capacity);
    if is_short_lived() {
        advise(buffer.as_ptr() as usize, buffer.capacity());
    }
    buffer
}

/// Asks for stdin's pipe, when it is one, to hold 1 MB (Linux's default
/// cap for an unprivileged process) instead of 64 KB: the host then writes
/// a 10 MB payload in 10 turns instead of 160, each a wake-up of both
/// processes. Advice only: when the kernel declines, nothing changes. For
/// the hook, before it reads its payload.
pub fn widen_stdin_pipe() {
    #[cfg(target_os = "linux")]
    // SAFETY: fcntl on descriptor 0 changes at most its pipe's capacity; on
    // anything but a pipe it fails, and the failure is ignored.
    unsafe {
        libc::fcntl(0, libc::F_SETPIPE_SZ, 1 << 20);
    }
}

/// The size of a transparent huge page on x86-64 and arm64 Linux.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
const HUGE_PAGE: usize = 2 << 20;

/// An empty byte buffer with room for `capacity` bytes.
pub fn bytes(capacity: usize) -> Vec<u8> {
    let buffer = Vec::with_capacity(capacity);
    advise(buffer.as_ptr() as usize, buffer.capacity());
    buffer
}

/// Advice for the whole huge pages of `[start + HUGE_PAGE, start + len)`.
/// Advice only: when the kernel declines, nothing changes.
#[cfg(target_os = "linux")]
fn advise(start: usize, len: usize) {
    let from = (start + HUGE_PAGE).next_multiple_of(HUGE_PAGE);
    let to = (start + len) / HUGE_PAGE * HUGE_PAGE;
    if to > from {
        // SAFETY: [from, to) lies inside the allocation just made for the
        // caller's buffer, and MADV_HUGEPAGE changes how its pages are
        // backed, never what they hold.
        unsafe {
            libc::madvise(from as *mut libc::c_void, to - from, libc::MADV_HUGEPAGE);
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn advise(_: usize, _: usize) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_are_empty_with_the_room_asked_for() {
        for capacity in [0, 1, 4096, HUGE_PAGE + 1, 5 * HUGE_PAGE + 7] {
            let b = bytes(capacity);
            assert!(b.is_empty() && b.capacity() >= capacity);
        }
    }

    #[test]
    fn strings_are_empty_with_the_room_asked_for() {
        for capacity in [0, 1, HUGE_PAGE + 1, 5 * HUGE_PAGE + 7] {
            let s = string(capacity);
            assert!(s.is_empty() && s.capacity() >= capacity);
        }
    }

    #[test]
    fn a_big_buffer_fills_and_reads_back() {
        let mut b = bytes(6 * HUGE_PAGE);
        b.extend((0..6 * HUGE_PAGE).map(|i| (i % 251) as u8));
        assert!(b.iter().enumerate().all(|(i, &x)| x == (i % 251) as u8));
    }
}
