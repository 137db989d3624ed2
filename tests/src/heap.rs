//! A counting global allocator for the memory measurements (`examples/refresh_memory`,
//! `examples/job_scale`): every allocation is counted (the system allocator
//! underneath), so what a job needs is its peak less what was held before it, whatever
//! the allocator keeps back from the system. An example declares
//! `#[global_allocator] static A: podium_tests::heap::Counting = podium_tests::heap::Counting;`.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The system allocator, counting the bytes held and their peak.
pub struct Counting;

static HELD: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let now = HELD.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        HELD.fetch_sub(layout.size(), Ordering::Relaxed);
    }
}

/// Resets the peak to what is held now, and returns it (bytes).
pub fn reset_peak() -> usize {
    let now = HELD.load(Ordering::Relaxed);
    PEAK.store(now, Ordering::Relaxed);
    now
}

/// The peak since the last [`reset_peak`] over `base`, in MB (2^20 bytes).
pub fn peak_over(base: usize) -> usize {
    PEAK.load(Ordering::Relaxed).saturating_sub(base) / (1024 * 1024)
}
