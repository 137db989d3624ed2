//! `podium serve --demo`: real data on screen in one command. Records of every game
//! are generated and replayed into a fresh embedded store of its own,
//! `podium-data/demo/podium.redb` under the current directory (never `PODIUM_DATA`,
//! never DynamoDB), the snapshot job runs, and the server starts with the URLs to open
//! printed. Every player gets a profile (name, avatar, country: PF-1 … PF-3) and the
//! snapshot job runs twice, the last Seega matches between the two, so entries show
//! the cards and movement an app shows (PF-5). Every run replaces that store and its
//! generated files, so running it twice gives the same fresh store; the store stays
//! after the server stops, for the other commands
//! (`PODIUM_DATA=podium-data/demo/podium.redb podium snapshot`).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use podium_store::embedded::EmbeddedStore;

use crate::clock::Clock;
use crate::error::CliError;
use crate::replay;

/// The seed of every generated file (ids carry it).
const SEED: u64 = 42;

/// Which generator writes a part's records.
#[derive(Clone, Copy)]
enum Kind {
    Seega,
    Replayed(podium_generate::replayed::Replayed),
    /// Mahjong Rivals records and a tournament's.
    Mahjong,
}

/// One game's generated records: its name, its file, its generator, how many matches
/// (records) among how many players.
struct Part {
    name: &'static str,
    file: &'static str,
    kind: Kind,
    matches: usize,
    players: usize,
}

const PARTS: [Part; 4] = [
    Part {
        name: "Seega",
        file: "seega.jsonl",
        kind: Kind::Seega,
        matches: 2_000,
        players: 200,
    },
    Part {
        name: "Dots and Boxes",
        file: "dots.jsonl",
        kind: Kind::Replayed(podium_generate::replayed::Replayed::DotsAndBoxes),
        matches: 400,
        players: 150,
    },
    Part {
        name: "Minesweeper duel",
        file: "duels.jsonl",
        kind: Kind::Replayed(podium_generate::replayed::Replayed::Minesweeper),
        matches: 400,
        players: 150,
    },
    Part {
        name: "Mahjong Rivals",
        file: "mahjong.jsonl",
        kind: Kind::Mahjong,
        matches: 2_000,
        players: 200,
    },
];

/// The Seega records replayed after the first snapshot (the file's last lines), so
/// the second one shows who moved (PF-5).
const LATE_FILE: &str = "seega-late.jsonl";

/// The share of Seega's lines replayed after the first snapshot, in percent.
const LATE_PERCENT: usize = 15;

/// How long before the second snapshot the first one is taken, in seconds.
const FIRST_SNAPSHOT_BEFORE_SECS: i64 = 600;

/// The first names the demo's display names are made of (PF-1), and the countries its
/// players are from (PF-3, ISO 3166-1 alpha-2).
const NAMES: [&str; 16] = [
    "Ionela", "Vlad", "Amira", "Kofi", "Mei", "Lucas", "Noor", "Sven", "Aiko", "Diego", "Zanele", "Priya",
    "Omar", "Elena", "Tariq", "Ines",
];
const COUNTRIES: [&str; 8] = ["RO", "EG", "GH", "JP", "BR", "SE", "IN", "ES"];

/// The demo's folder, under the current directory (`podium-data/` is the local
/// stores' folder).
pub const DIR: &str = "podium-data/demo";

fn file_error(path: &Path) -> impl Fn(std::io::Error) -> CliError + '_ {
    move |source| CliError::File {
        path: path.display().to_string(),
        source,
    }
}

/// Generates every game's records into `dir`, replays them into `store`, configures
/// the generated tournament and takes the snapshots; prints what it loaded. Returns
/// the players to show (Seega, Dots and Boxes/Minesweeper, Mahjong) and the
/// tournament's id.
pub async fn load(store: &EmbeddedStore, dir: &Path, clock: &Clock) -> Result<Shown, CliError> {
    let end = clock.now_secs();
    let policy = podium_service::config::record_policy()?;
    let started = std::time::Instant::now();
    let mut tournament_id = String::new();
    println!("podium demo: a fresh embedded store in {}", dir.display());
    let mut loaded: Vec<(&str, replay::Summary)> = Vec::new();
    for part in &PARTS {
        let path = dir.join(part.file);
        let mut out = std::io::BufWriter::new(std::fs::File::create(&path).map_err(file_error(&path))?);
        match part.kind {
            Kind::Seega => podium_generate::seega::generate(part.matches, part.players, SEED, &mut out)?,
            Kind::Replayed(which) => {
                podium_generate::replayed::generate(which, part.matches, part.players, SEED, end, &mut out)?
            }
            Kind::Mahjong => {
                // The tournament's settings first (the operator's step), its records
                // with the others.
                let t = podium_generate::mahjong::tournament(part.players, SEED, end, &mut out)?;
                let delivery = format!("demo-{:016x}", rand::random::<u64>());
                podium_service::games::tournaments::configure(store, &t, &delivery, clock.now()).await?;
                tournament_id = t.tournament_id.clone();
                podium_generate::mahjong::generate(part.matches, part.players, SEED, end, &mut out)?;
            }
        }
        std::io::Write::flush(&mut out).map_err(file_error(&path))?;
        drop(out);
        if matches!(part.kind, Kind::Seega) {
            move_tail(&path, &dir.join(LATE_FILE))?;
        }
        loaded.push((part.name, replay_file(store, &path, &policy, clock).await?));
    }
    // The tournament ended three days ago: a tick 100 s ago would have started and
    // closed it, so this tick fixes its winners and pays them (MJ-16).
    podium_service::games::tournaments::tick(store, clock.now() - chrono::Duration::seconds(100)).await?;
    // PF-1 … PF-3: every player a card before the first snapshot reads them; the last
    // Seega matches between the two snapshots, so the second shows who moved (PF-5).
    profiles(store, dir, clock.now()).await?;
    let first_at = clock.now() - chrono::Duration::seconds(FIRST_SNAPSHOT_BEFORE_SECS);
    // The first snapshot closes the ended periods (and sends their results); both
    // summaries are printed, so that the second's "none to close" is not all one sees.
    let first_reports = crate::tick::snapshot(store, first_at).await?;
    let late = replay_file(store, &dir.join(LATE_FILE), &policy, clock).await?;
    if let Some((_, seega)) = loaded.iter_mut().find(|(name, _)| *name == "Seega") {
        seega.lines += late.lines;
        seega.scored += late.scored;
        seega.void += late.void;
        seega.duplicates += late.duplicates;
        seega.conflicts += late.conflicts;
        for (reason, n) in late.refused {
            *seega.refused.entry(reason).or_default() += n;
        }
    }
    for (name, summary) in &loaded {
        println!(
            "  {:<17} {:>5} records: {} scored, {} void, {} duplicates, {} conflicts, {} refused (as a game server fleet sends them)",
            name,
            summary.lines,
            summary.scored,
            summary.void,
            summary.duplicates,
            summary.conflicts,
            summary.refused.values().sum::<u64>()
        );
    }
    let now = clock.now();
    let reports = crate::tick::snapshot(store, now).await?;
    print!("{}", crate::tick::summary(first_at, &first_reports));
    print!("{}", crate::tick::summary(now, &reports));
    println!("loaded in {:.1?}", started.elapsed());
    let first = |file: &str, pick: fn(&serde_json::Value) -> Option<&str>| -> String {
        let path = dir.join(file);
        std::fs::read_to_string(&path)
            .ok()
            .and_then(|text| {
                text.lines().find_map(|l| {
                    let v: serde_json::Value = serde_json::from_str(l).ok()?;
                    pick(&v).map(str::to_string)
                })
            })
            .unwrap_or_default()
    };
    fn two_player(v: &serde_json::Value) -> Option<&str> {
        v["players"][0]["player_id"].as_str()
    }
    Ok(Shown {
        seega: first("seega.jsonl", two_player),
        rated: first("dots.jsonl", two_player),
        mahjong: first("mahjong.jsonl", |v| {
            (v["kind"] == "level-completion")
                .then(|| v["player_id"].as_str())
                .flatten()
        }),
        tournament: tournament_id,
    })
}

/// Replays `path` into `store` in batches, as `podium replay` does, quietly.
async fn replay_file(
    store: &EmbeddedStore,
    path: &Path,
    policy: &podium_rules::record::policy::RecordPolicy,
    clock: &Clock,
) -> Result<replay::Summary, CliError> {
    let (summary, _, outcome) =
        replay::replay_quiet(replay::Target::Batched(store), path, policy, clock, false, false).await;
    outcome?;
    Ok(summary)
}

/// Moves the last [`LATE_PERCENT`] % of `path`'s lines into `late` (replayed after the
/// first snapshot).
fn move_tail(path: &Path, late: &Path) -> Result<(), CliError> {
    let text = std::fs::read_to_string(path).map_err(file_error(path))?;
    let lines: Vec<&str> = text.lines().collect();
    let keep = lines.len() - lines.len() * LATE_PERCENT / 100;
    let joined = |part: &[&str]| part.iter().map(|l| format!("{l}\n")).collect::<String>();
    std::fs::write(path, joined(&lines[..keep])).map_err(file_error(path))?;
    std::fs::write(late, joined(&lines[keep..])).map_err(file_error(late))?;
    Ok(())
}

/// Every player named in the generated files a profile (PF-1 … PF-3): a display name
/// of [`NAMES`] with a number, an avatar of the configured set, a country of
/// [`COUNTRIES`]; through the route's own code, 32 players at a time.
async fn profiles(
    store: &EmbeddedStore,
    dir: &Path,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<(), CliError> {
    use futures::{StreamExt, TryStreamExt};
    fn player_ids(v: &serde_json::Value, out: &mut std::collections::BTreeSet<String>) {
        match v {
            serde_json::Value::Object(o) => {
                for (k, v) in o {
                    match (k.as_str(), v) {
                        ("player_id", serde_json::Value::String(id)) => {
                            out.insert(id.clone());
                        }
                        _ => player_ids(v, out),
                    }
                }
            }
            serde_json::Value::Array(a) => a.iter().for_each(|v| player_ids(v, out)),
            _ => {}
        }
    }
    let mut ids = std::collections::BTreeSet::new();
    for file in PARTS.iter().map(|p| p.file).chain([LATE_FILE]) {
        let path = dir.join(file);
        let text = std::fs::read_to_string(&path).map_err(file_error(&path))?;
        for v in text
            .lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        {
            player_ids(&v, &mut ids);
        }
    }
    let policy = podium_service::config::profile_policy()?;
    let changes = ids
        .iter()
        .filter(|id| !podium_rules::record::ids::is_reserved_id(id))
        .enumerate()
        .map(|(i, id)| {
            let mut card = serde_json::json!({
                "name": format!("{} {}", NAMES[i % NAMES.len()], i / NAMES.len() + 1),
                "country": COUNTRIES[i % COUNTRIES.len()],
            });
            if let Some(avatar) = policy.avatars.get(i % policy.avatars.len().max(1)) {
                card["avatar"] = avatar.clone().into();
            }
            let change = podium_rules::profile::ProfileChange::from_json(&card)
                .map_err(podium_service::ServiceError::from)?;
            Ok::<_, CliError>((id.clone(), change))
        })
        .collect::<Result<Vec<_>, _>>()?;
    futures::stream::iter(changes)
        .map(|(id, change)| {
            let policy = &policy;
            async move { podium_service::profiles::edit::put(store, policy, &id, &change, now).await }
        })
        .buffer_unordered(32)
        .try_collect::<Vec<_>>()
        .await?;
    Ok(())
}

/// Who and what the printed commands show.
pub struct Shown {
    pub seega: String,
    pub rated: String,
    pub mahjong: String,
    pub tournament: String,
}

/// The demo folder held by one `podium serve --demo` for as long as it runs: a second
/// one in the same directory is refused instead of replacing the store being served.
pub struct DemoLock(#[allow(dead_code)] std::fs::File);

/// A fresh demo store in [`DIR`]: the previous demo's store and generated files (and
/// only those) removed first, under the folder's lock (keep it while serving).
pub fn fresh_store() -> Result<(PathBuf, Arc<EmbeddedStore>, DemoLock), CliError> {
    let dir = PathBuf::from(DIR);
    std::fs::create_dir_all(&dir).map_err(file_error(&dir))?;
    let lock_path = dir.join("demo.lock");
    let lock = std::fs::File::create(&lock_path).map_err(file_error(&lock_path))?;
    if let Err(e) = lock.try_lock() {
        let source = match e {
            std::fs::TryLockError::WouldBlock => std::io::Error::new(
                std::io::ErrorKind::WouldBlock,
                "another podium serve --demo is running in this directory; stop it, or run this one elsewhere",
            ),
            std::fs::TryLockError::Error(e) => e,
        };
        return Err(file_error(&lock_path)(source));
    }
    let store = dir.join("podium.redb");
    let files = PARTS.iter().map(|p| p.file).chain([LATE_FILE]);
    for old in std::iter::once(store.clone()).chain(files.map(|f| dir.join(f))) {
        match std::fs::remove_file(&old) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(file_error(&old)(e)),
        }
    }
    let opened = Arc::new(EmbeddedStore::open(&store)?);
    Ok((dir, opened, DemoLock(lock)))
}

/// What to open and try, for a server on `addr`.
pub fn print_urls(addr: &std::net::SocketAddr, shown: &Shown, charts_installed: bool) {
    let base = format!("http://{addr}");
    let curl = |who: &str, path: &str| format!("  curl -s -H 'Authorization: Dev {who}' '{base}{path}'");
    println!();
    println!("Open in a browser:");
    println!(
        "  {base}/console          the support console: look up {} (operator: support)",
        shown.seega
    );
    if !charts_installed {
        println!(
            "                                        (its charts and the explorer need scripts/console-assets, once)"
        );
    }
    println!("  {base}/explorer         every route, described and tried in the browser (Swagger UI)");
    println!("  {base}/v1/openapi.json  the same description, as OpenAPI 3.1");
    println!("Every other route needs the caller, named by the header 'Authorization: Dev <player-id>':");
    for line in [
        curl(&shown.seega, "/v1/leaderboards/seega?limit=5"),
        curl(&shown.seega, "/v1/leaderboards/seega/me?neighbours=2"),
        curl(&shown.rated, "/v1/leaderboards/dots-and-boxes?limit=5"),
        curl(&shown.rated, "/v1/leaderboards/minesweeper?limit=5"),
        curl(&shown.mahjong, "/v1/leaderboards/mahjong-weekly?limit=5"),
        curl(&shown.mahjong, "/v1/me/mahjong-rivals"),
        curl(&shown.mahjong, &format!("/v1/tournaments/{}", shown.tournament)),
    ] {
        println!("{line}");
    }
    println!(
        "Stop the server with Ctrl-C (started in the background with &: kill %1). Its store stays in {DIR}/ \
         until the next --demo replaces it."
    );
}
