//! The fuzz targets' runner, shared by the property-based fuzz tests of several
//! crates (each includes this file with `#[path = …] mod fuzz;`): one place for how
//! cases are counted, timed and reported.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use proptest::strategy::Strategy;
use proptest::test_runner::{Config, TestCaseError, TestRunner};

/// Runs `test` on `default_cases` inputs from `strategy` (`PROPTEST_CASES` overrides
/// it), prints `fuzz NAME: N cases in T s`, and panics with the minimal failing
/// input when a case fails.
pub fn fuzz<S: Strategy>(
    name: &str,
    default_cases: u32,
    strategy: S,
    test: impl Fn(S::Value) -> Result<(), TestCaseError>,
) {
    let mut config = Config {
        failure_persistence: None,
        ..Config::default()
    };
    if std::env::var_os("PROPTEST_CASES").is_none() {
        config.cases = default_cases;
    }
    let ran = AtomicU64::new(0);
    let started = Instant::now();
    let result = TestRunner::new(config).run(&strategy, |input| {
        ran.fetch_add(1, Ordering::Relaxed);
        test(input)
    });
    eprintln!(
        "fuzz {name}: {} cases in {:.1} s",
        ran.load(Ordering::Relaxed),
        started.elapsed().as_secs_f64()
    );
    if let Err(e) = result {
        panic!("{name}: {e}");
    }
}
