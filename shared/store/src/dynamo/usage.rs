//! Requests made and capacity consumed, as DynamoDB reports them.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use super::pricing::PricedWrite;

use aws_sdk_dynamodb::types::ConsumedCapacity;

/// Requests made and capacity consumed, as DynamoDB reported it
/// (`ReturnConsumedCapacity: TOTAL`). Units are thousandths of a capacity unit.
#[derive(Debug, Default)]
pub struct Usage {
    requests: AtomicU64,
    write_requests: AtomicU64,
    read_milli_units: AtomicU64,
    write_milli_units: AtomicU64,
    published_write_units: AtomicU64,
    /// The last transaction's price, line by line (replaced by each transaction).
    last_price: Mutex<Vec<PricedWrite>>,
}

/// A copy of [`Usage`]'s counters at one moment.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UsageSnapshot {
    /// Requests of every kind.
    pub requests: u64,
    /// Of which write requests (PutItem, TransactWriteItems, BatchWriteItem).
    pub write_requests: u64,
    /// Read capacity units × 1000.
    pub read_milli_units: u64,
    /// Write capacity units × 1000.
    pub write_milli_units: u64,
    /// Write request units of the transactions by DynamoDB's published pricing
    /// (condition checks not counted; see [`PricedWrite`]).
    pub published_write_units: u64,
}

impl UsageSnapshot {
    /// The difference `self − earlier`.
    pub fn since(&self, earlier: &UsageSnapshot) -> UsageSnapshot {
        UsageSnapshot {
            requests: self.requests - earlier.requests,
            write_requests: self.write_requests - earlier.write_requests,
            read_milli_units: self.read_milli_units - earlier.read_milli_units,
            write_milli_units: self.write_milli_units - earlier.write_milli_units,
            published_write_units: self.published_write_units - earlier.published_write_units,
        }
    }
}

impl Usage {
    pub(crate) fn record_read<'a>(&self, consumed: impl IntoIterator<Item = &'a ConsumedCapacity>) {
        self.requests.fetch_add(1, Ordering::Relaxed);
        for c in consumed {
            let units = c.read_capacity_units().or(c.capacity_units()).unwrap_or(0.0);
            self.read_milli_units
                .fetch_add((units * 1000.0).round() as u64, Ordering::Relaxed);
        }
    }

    pub(crate) fn record_write<'a>(&self, consumed: impl IntoIterator<Item = &'a ConsumedCapacity>) {
        self.requests.fetch_add(1, Ordering::Relaxed);
        self.write_requests.fetch_add(1, Ordering::Relaxed);
        for c in consumed {
            // A repeat of an idempotent transaction reports read units.
            let write = c.write_capacity_units().or(c.capacity_units()).unwrap_or(0.0);
            self.write_milli_units
                .fetch_add((write * 1000.0).round() as u64, Ordering::Relaxed);
            if let Some(read) = c.read_capacity_units() {
                self.read_milli_units
                    .fetch_add((read * 1000.0).round() as u64, Ordering::Relaxed);
            }
        }
    }

    /// The counters now.
    pub fn snapshot(&self) -> UsageSnapshot {
        UsageSnapshot {
            requests: self.requests.load(Ordering::Relaxed),
            write_requests: self.write_requests.load(Ordering::Relaxed),
            read_milli_units: self.read_milli_units.load(Ordering::Relaxed),
            write_milli_units: self.write_milli_units.load(Ordering::Relaxed),
            published_write_units: self.published_write_units.load(Ordering::Relaxed),
        }
    }

    /// Adds a committed transaction's price and keeps its lines as the last price.
    pub(crate) fn record_price(&self, lines: Vec<PricedWrite>) {
        let units: u64 = lines.iter().map(|l| l.units).sum();
        self.published_write_units.fetch_add(units, Ordering::Relaxed);
        if let Ok(mut last) = self.last_price.lock() {
            *last = lines;
        }
    }

    /// The last committed transaction's price, line by line.
    pub fn last_price(&self) -> Vec<PricedWrite> {
        self.last_price.lock().map(|l| l.clone()).unwrap_or_default()
    }
}
