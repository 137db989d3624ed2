//! `podium serve --demo`: real data on screen in one command. Records of every game
//! are generated and replayed into a fresh embedded store of its own,
//! `podium-data/demo/podium.redb` under the current directory (never `PODIUM_DATA`,
//! never DynamoDB), the snapshot job runs, and the server starts with the URLs to open
//! printed. Every run replaces that store and its generated files, so running it
//! twice gives the same fresh store; the store stays after the server stops, for the
//! other commands (`PODIUM_DATA=podium-data/demo/podium.redb podium snapshot`).

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
        let (summary, _, outcome) = replay::replay_quiet(
            replay::Target::Batched(store),
            &path,
            &policy,
            clock,
            false,
            false,
        )
        .await;
        outcome?;
        println!(
            "  {:<17} {:>5} records: {} scored, {} void, {} duplicates, {} conflicts, {} refused (as a game server fleet sends them)",
            part.name,
            summary.lines,
            summary.scored,
            summary.void,
            summary.duplicates,
            summary.conflicts,
            summary.refused.values().sum::<u64>()
        );
    }
    // The tournament ended three days ago: a tick 100 s ago would have started and
    // closed it, so this tick fixes its winners and pays them (MJ-16).
    podium_service::games::tournaments::tick(store, clock.now() - chrono::Duration::seconds(100)).await?;
    let now = clock.now();
    let reports = crate::tick::snapshot(store, now).await?;
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
    for old in std::iter::once(store.clone()).chain(PARTS.iter().map(|p| dir.join(p.file))) {
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
