//! What the embedded store writes to its file: a redb storage backend that counts
//! the bytes written and the syncs, around another backend (memory for tests).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use redb::backends::InMemoryBackend;
use redb::StorageBackend;

/// The error type of redb's storage interface.
type BackendIoError = std::io::Error;

/// Bytes written and syncs made by a [`Counting`] backend (clones share them).
#[derive(Debug, Clone, Default)]
pub struct DiskWrites {
    bytes: Arc<AtomicU64>,
    syncs: Arc<AtomicU64>,
}

impl DiskWrites {
    /// Bytes written so far.
    pub fn bytes(&self) -> u64 {
        self.bytes.load(Ordering::Relaxed)
    }

    /// Syncs (`fdatasync` on a file) so far.
    pub fn syncs(&self) -> u64 {
        self.syncs.load(Ordering::Relaxed)
    }
}

/// An in-memory backend counting into a [`DiskWrites`].
#[derive(Debug)]
pub struct Counting {
    inner: InMemoryBackend,
    counts: DiskWrites,
}

impl Counting {
    /// A fresh in-memory backend and the counts it keeps.
    pub fn in_memory() -> (Self, DiskWrites) {
        let counts = DiskWrites::default();
        (
            Counting {
                inner: InMemoryBackend::new(),
                counts: counts.clone(),
            },
            counts,
        )
    }
}

impl StorageBackend for Counting {
    fn len(&self) -> Result<u64, BackendIoError> {
        self.inner.len()
    }

    fn read(&self, offset: u64, out: &mut [u8]) -> Result<(), BackendIoError> {
        self.inner.read(offset, out)
    }

    fn set_len(&self, len: u64) -> Result<(), BackendIoError> {
        self.inner.set_len(len)
    }

    fn sync_data(&self) -> Result<(), BackendIoError> {
        self.counts.syncs.fetch_add(1, Ordering::Relaxed);
        self.inner.sync_data()
    }

    fn write(&self, offset: u64, data: &[u8]) -> Result<(), BackendIoError> {
        self.counts.bytes.fetch_add(data.len() as u64, Ordering::Relaxed);
        self.inner.write(offset, data)
    }
}
