//! The hook's allocator. A hook is one short process that makes a few
//! thousand small allocations and frees most of them before it exits; the
//! C library's allocator spends a tenth of the hook's time keeping its free
//! lists for a future that never comes (and musl's, the one the published
//! Linux packages link, maps and unmaps pages as it goes). So once the
//! process says it is a hook ([`start`]), a small block is cut from one
//! reserved region by moving a pointer, and freeing it does nothing but
//! give back the last block cut. The pages are the system's only as they
//! are touched, and all of them go back when the process exits.
//!
//! Big blocks (a 10 MB tool result and what is made from it) and every
//! block once the region is used up go to the system allocator, so the
//! region's size bounds what this adds to the process's memory. Before
//! [`start`], and in the long-lived watcher, which never calls it, every
//! block is the system's.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The region: address space reserved at [`start`], its pages taken only
/// when touched.
const REGION: usize = 64 << 20;
/// Blocks from this size go to the system allocator: a buffer that grows
/// by doubling would leave every smaller copy of itself in the region.
const LARGE: usize = 256 << 10;

pub struct Arena {
    /// Where the region starts and ends; both 0 until [`start`].
    start: AtomicUsize,
    end: AtomicUsize,
    /// The first free byte.
    next: AtomicUsize,
}

#[global_allocator]
static ARENA: Arena = Arena {
    start: AtomicUsize::new(0),
    end: AtomicUsize::new(0),
    next: AtomicUsize::new(0),
};

/// Cut small blocks from a region of their own from now on: for a process
/// that exits when its one job is done. Without the region (the system
/// refused it), everything stays with the system allocator.
pub fn start() {
    // SAFETY: a fresh private anonymous mapping; no memory is touched here.
    let at = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            REGION,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
            -1,
            0,
        )
    };
    if at == libc::MAP_FAILED {
        return;
    }
    let at = at as usize;
    ARENA.next.store(at, Ordering::Relaxed);
    ARENA.end.store(at + REGION, Ordering::Relaxed);
    // Published last: a block is taken as the region's only once `start` is set.
    ARENA.start.store(at, Ordering::Release);
}

impl Arena {
    fn holds(&self, ptr: *mut u8) -> bool {
        let start = self.start.load(Ordering::Acquire);
        start != 0 && (start..self.end.load(Ordering::Relaxed)).contains(&(ptr as usize))
    }

    /// A block cut from the region, or None (no region, too big, used up).
    fn cut(&self, layout: Layout) -> Option<*mut u8> {
        if layout.size() >= LARGE || self.start.load(Ordering::Acquire) == 0 {
            return None;
        }
        let end = self.end.load(Ordering::Relaxed);
        let mut next = self.next.load(Ordering::Relaxed);
        loop {
            let at = next.checked_next_multiple_of(layout.align())?;
            let after = at.checked_add(layout.size())?;
            if after > end {
                return None;
            }
            match self
                .next
                .compare_exchange_weak(next, after, Ordering::Relaxed, Ordering::Relaxed)
            {
                Ok(_) => return Some(at as *mut u8),
                Err(now) => next = now,
            }
        }
    }
}

// SAFETY: a cut block lies inside the region, is aligned as asked, and is
// never handed out again while in use: `next` only moves back over the
// last block cut, when that block is freed (or resized in place).
unsafe impl GlobalAlloc for Arena {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        match self.cut(layout) {
            Some(ptr) => ptr,
            // SAFETY: the caller's layout, passed on.
            None => unsafe { System.alloc(layout) },
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        match self.cut(layout) {
            Some(ptr) => {
                // SAFETY: the block is `layout.size()` bytes of the region.
                // Zeroed here: a block given back may be cut again.
                unsafe { ptr.write_bytes(0, layout.size()) };
                ptr
            }
            // SAFETY: the caller's layout, passed on.
            None => unsafe { System.alloc_zeroed(layout) },
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if self.holds(ptr) {
            // The last block cut is given back; any other stays until exit.
            let end = ptr as usize + layout.size();
            let _ =
                self.next
                    .compare_exchange(end, ptr as usize, Ordering::Relaxed, Ordering::Relaxed);
        } else {
            // SAFETY: the system allocator made it, with this layout.
            unsafe { System.dealloc(ptr, layout) }
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if !self.holds(ptr) {
            // SAFETY: the system allocator made it, with this layout.
            return unsafe { System.realloc(ptr, layout, new_size) };
        }
        // The last block cut grows or shrinks where it is.
        let (at, old_end) = (ptr as usize, ptr as usize + layout.size());
        if new_size < LARGE
            && at
                .checked_add(new_size)
                .is_some_and(|new_end| new_end <= self.end.load(Ordering::Relaxed))
            && self
                .next
                .compare_exchange(old_end, at + new_size, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
        {
            return ptr;
        }
        // Any other block shrinks where it is (its tail stays unused).
        if new_size <= layout.size() {
            return ptr;
        }
        // SAFETY: the caller guarantees `new_size` with this alignment is a
        // valid layout.
        let new_layout = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
        // SAFETY: a valid layout (above).
        let new = unsafe { self.alloc(new_layout) };
        if !new.is_null() {
            // SAFETY: both blocks hold at least the bytes copied, and a new
            // block never overlaps one in use.
            unsafe {
                std::ptr::copy_nonoverlapping(ptr, new, layout.size().min(new_size));
                self.dealloc(ptr, layout);
            }
        }
        new
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_are_aligned_apart_and_the_last_one_grows_in_place() {
        start();
        assert!(
            ARENA.start.load(Ordering::Relaxed) != 0,
            "the region was mapped"
        );
        let mut seen: Vec<(usize, usize)> = Vec::new();
        for (size, align) in [
            (1, 1),
            (3, 8),
            (24, 8),
            (100, 64),
            (7, 4096),
            (LARGE - 1, 16),
        ] {
            let layout = Layout::from_size_align(size, align).unwrap();
            // SAFETY: a non-zero layout.
            let ptr = unsafe { ARENA.alloc(layout) };
            assert!(ARENA.holds(ptr), "{size} bytes come from the region");
            assert_eq!(ptr as usize % align, 0);
            // SAFETY: the block just made holds `size` bytes.
            unsafe { ptr.write_bytes(0xa5, size) };
            for &(at, len) in &seen {
                let (a, b) = (ptr as usize, ptr as usize + size);
                assert!(b <= at || a >= at + len, "blocks overlap");
            }
            seen.push((ptr as usize, size));
        }
        // A big block is the system's, and so is its memory when freed.
        let big = Layout::from_size_align(LARGE, 8).unwrap();
        // SAFETY: a non-zero layout; freed with it.
        unsafe {
            let ptr = ARENA.alloc(big);
            assert!(!ARENA.holds(ptr));
            ARENA.dealloc(ptr, big);
        }
        // The last block grows where it is, keeping its bytes; a block
        // cut after it moves it on growth, bytes and all.
        let layout = Layout::from_size_align(16, 8).unwrap();
        // SAFETY: non-zero layouts, sizes within what each block holds.
        unsafe {
            let a = ARENA.alloc(layout);
            a.write_bytes(7, 16);
            let grown = ARENA.realloc(a, layout, 64);
            assert_eq!(grown, a);
            let b = ARENA.alloc(layout);
            let moved = ARENA.realloc(a, Layout::from_size_align(64, 8).unwrap(), 128);
            assert_ne!(moved, a);
            assert_eq!(std::slice::from_raw_parts(moved, 16), &[7; 16]);
            // The last block freed is cut again; a zeroed one is zero.
            let c = ARENA.alloc_zeroed(layout);
            ARENA.dealloc(c, layout);
            let d = ARENA.alloc(layout);
            assert_eq!(c, d);
            d.write_bytes(9, 16);
            ARENA.dealloc(d, layout);
            let e = ARENA.alloc_zeroed(layout);
            assert_eq!(std::slice::from_raw_parts(e, 16), &[0; 16]);
            let _ = b;
        }
        // Ordinary use of the heap from here on (the test harness's own).
        let text: String = (0..10_000)
            .map(|i| char::from(b'a' + (i % 26) as u8))
            .collect();
        assert_eq!(text.len(), 10_000);
    }
}
