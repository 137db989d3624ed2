//! Synthetic boards for load runs and benchmarks: deterministic, with many ties.

use podium_rules::leaderboard::Standing;

/// `players` standings `p-0000000` … with values 0 … 5,000,000 in steps of 7 (so
/// ties are common) and distinct reach instants; the same every time.
pub fn standings(players: u64) -> impl Iterator<Item = Standing> {
    (0..players).map(|i| Standing {
        player_id: format!("p-{i:07}"),
        value: ((i.wrapping_mul(2_654_435_761)) % 5_000_000) as i64 / 7 * 7,
        reached_at_ms: 1_000 + (i % 86_400_000) as i64,
    })
}
