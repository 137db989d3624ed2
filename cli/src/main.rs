//! `podium`: the whole backend on one machine. See `podium --help`.

/// The allocator: mimalloc. `podium serve` makes many small allocations per request
/// (glibc's malloc and free took about a third of an around-me request's CPU).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod ads;
mod clock;
mod demo;
mod dev_clock;
mod error;
mod lines;
mod live;
mod live_client;
mod local_store;
mod replay;
mod serve;
mod tick;

use std::path::PathBuf;

use clap::{Parser, Subcommand};

use crate::error::CliError;

/// podium on one machine: the HTTP API, match replay and dry runs, on the embedded
/// store (or DynamoDB when AWS_ENDPOINT_URL_DYNAMODB is set).
#[derive(Parser)]
#[command(
    name = "podium",
    version,
    about,
    after_help = "The store of every command: the embedded store in PODIUM_DATA (default podium-data/podium.redb), \
or DynamoDB when AWS_ENDPOINT_URL_DYNAMODB is set (table PODIUM_TABLE, default podium; created if missing). \
Every setting is read from the environment: docs/deploy.md lists them all."
)]
struct Cli {
    /// Run on a test clock instead of the system clock (tests, demonstrations): it starts
    /// at START (RFC 3339, e.g. 2027-03-28T00:30:00+02:00) and stands still; every
    /// time-dependent rule (record bounds, claim days, period closes) reads it. `serve`
    /// moves it on `POST /v1/dev/clock`, running the scheduled jobs in between. Local
    /// only: deployed functions read the system clock.
    #[arg(long, global = true, env = "PODIUM_TEST_CLOCK", value_name = "START", value_parser = clock::parse_start)]
    test_clock: Option<chrono::DateTime<chrono::Utc>>,
    #[command(subcommand)]
    command: Command,
}

/// The games `podium generate` writes records for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum GenerateGame {
    /// Seega matches (players p-00000 …)
    Seega,
    /// Mahjong Rivals level completions, Quick Matches and Arenas (players m-00000 …;
    /// with --tournament also a tournament's registrations and tables)
    Mahjong,
    /// Dots and Boxes matches, every line drawn (players r-00000 …)
    DotsAndBoxes,
    /// Minesweeper duels, every timed action (players r-00000 …)
    Minesweeper,
}

#[derive(Subcommand)]
enum Command {
    /// Serve every HTTP route and the support console on 127.0.0.1 (the caller names
    /// itself with the header `Authorization: Dev <player-id>`, unverified; operators
    /// with `Authorization: Operator <name>`). The store is PODIUM_DATA (default
    /// podium-data/podium.redb), or DynamoDB when AWS_ENDPOINT_URL_DYNAMODB is set.
    /// Settings from the environment, among others: PODIUM_PERIOD_REWARDS (period-close
    /// rewards), PODIUM_AD_CATALOGUE, PODIUM_ADMOB_KEYS_FILE and PODIUM_UNITY_ADS_SECRET
    /// (ad callbacks), PODIUM_CURSOR_KEY (page cursors survive a restart),
    /// PODIUM_CONSOLE_ASSETS (the console's chart library, installed by
    /// scripts/console-assets into console/vendor/).
    Serve {
        /// Port on 127.0.0.1.
        #[arg(long, default_value_t = 8080)]
        port: u16,
        /// Also replay this JSON-lines file of records (any game) into the same store
        /// while serving (load runs: reads answered while writes go on); its summary is
        /// printed when it ends.
        #[arg(long, value_name = "FILE", conflicts_with = "demo")]
        replay: Option<PathBuf>,
        /// Demonstration: generate records of every game (Seega; Dots and Boxes;
        /// Minesweeper duels; Mahjong Rivals level completions, Quick Matches, Arenas
        /// and a tournament), replay them into a fresh embedded store of its own,
        /// podium-data/demo/podium.redb (never PODIUM_DATA, never DynamoDB; replaced at
        /// every --demo run, kept after the server stops), take the snapshots, then
        /// serve it and print what to open.
        #[arg(long)]
        demo: bool,
    },
    /// Score a JSON-lines file of records, in order, exactly as the score-match function
    /// does: Seega, Dots and Boxes and Minesweeper matches; Mahjong Rivals level
    /// completions, Quick Matches, Arenas, tournament registrations and tables. Prints
    /// a summary (refusals grouped by field and rule, indexes as `*`).
    Replay {
        /// The file: one record per line.
        file: PathBuf,
        /// DynamoDB only: records settled at once (records of the same player or match
        /// id still go one at a time, in file order); 1 replays strictly line by line.
        /// The embedded store settles in file order, many records to a transaction.
        #[arg(long, default_value_t = replay::IN_FLIGHT, value_parser = clap::value_parser!(u16).range(1..=4096))]
        in_flight: u16,
        /// Also write every refused or conflicting line to this file, one JSON object a
        /// line: `{"line": N, "kind": "refused" | "conflict", "reason": "field (rule):
        /// why", "record": <the line as JSON, or as a string when it is not JSON>}`.
        #[arg(long, value_name = "FILE")]
        refused: Option<PathBuf>,
    },
    /// Dry run: read one Seega match record on stdin, print its result against the
    /// store's current balances as JSON; writes nothing (exit 2 when refused).
    Score,
    /// Run the scheduled snapshot job now: freeze and close every ended period (period
    /// results with PODIUM_PERIOD_REWARDS, league weeks), move the rolling window and
    /// the tournaments along, refresh every live board's ranked pages and send
    /// `overtaken` messages; print a summary of what it did (logs: RUST_LOG, default
    /// warnings only).
    Snapshot,
    /// Connect to the live feed as a player and print every frame it pushes, one JSON
    /// line each (LIVE-1 … LIVE-4): `podium serve`'s /v1/live by default.
    Live {
        /// The player (sent as the token `Dev <player-id>`, as `podium serve` takes it).
        #[arg(long, conflicts_with = "token")]
        player: Option<String>,
        /// A token instead (the local stack's JWT: its output PlayerToken).
        #[arg(long)]
        token: Option<String>,
        /// Board ids to watch (global view), comma-separated.
        #[arg(long, value_delimiter = ',', default_value = "seega")]
        watch: Vec<String>,
        /// The live feed's URL (ws:// only).
        #[arg(long, default_value = "ws://127.0.0.1:8080/v1/live")]
        url: String,
        /// Stop after this many seconds (default: when the server closes).
        #[arg(long = "for", value_name = "SECONDS")]
        listen: Option<u64>,
    },
    /// Benchmarks only: load a synthetic Seega board of N players into a fresh embedded store.
    #[command(hide = true)]
    LoadSynthetic {
        #[arg(long)]
        players: u64,
    },
    /// Development: write a verifier key pair of your own into DIR (private key and
    /// verifier-keys JSON, key id 1) for `podium serve`'s ad callbacks.
    AdKeys {
        /// The folder to write into.
        dir: PathBuf,
    },
    /// Development: print an AdMob-style rewarded-ad callback query, signed now with a
    /// private key (base64 PKCS#8 DER), to send to `podium serve`.
    AdCallback {
        /// The private key file (`podium ad-keys`, or the published Tink test key).
        #[arg(long)]
        private_key: PathBuf,
        /// The key id the verifier keys list it under.
        #[arg(long, default_value_t = 1)]
        key_id: u64,
        /// The ad unit (the catalogue says what it pays).
        #[arg(long)]
        ad_unit: String,
        /// The player (`user_id`).
        #[arg(long)]
        user: String,
        /// The transaction id (default: a random one).
        #[arg(long)]
        transaction_id: Option<String>,
        /// When the ad was watched, ms since the Unix epoch (default: now).
        #[arg(long)]
        timestamp_ms: Option<i64>,
    },
    /// Operator: configure a Mahjong Rivals tournament from a JSON file (MJ-12), once
    /// per id (the same file again changes nothing; other settings under the id are
    /// refused). The scheduled tick (`podium snapshot`) starts, closes and pays it.
    Tournament {
        /// The tournament: `{"tournament_id", "starts_at", "ends_at", "min_players",
        /// "multiplier", "prizes": [...], "champions"}`.
        file: PathBuf,
    },
    /// Operator: close an ended period of a period board (LB-5): freeze it when no tick did, send
    /// each ranked player's result once (a close run again sends only what was never
    /// sent), close the league's week; recorded in the audit trail (OP-5). Prints what
    /// was (or, with --dry-run, would be) sent, as JSON.
    ClosePeriod {
        /// A period board, e.g. `mahjong-weekly`.
        board: String,
        /// One of its ended periods, e.g. `2026-W48`.
        period: String,
        /// Why (3–500 characters), for the audit trail.
        #[arg(long)]
        reason: String,
        /// Who runs it, for the audit trail.
        #[arg(long, default_value = "cli")]
        operator: String,
        /// Only say what would be sent, to whom.
        #[arg(long)]
        dry_run: bool,
    },
    /// Operator: print everything podium stores about a player as one JSON document (GDPR
    /// Art. 15 and 20): balances, ledger, period entries, results, claims, inbox,
    /// leagues, follows, profile, friends, held records, audit entries; other players
    /// only as the role they played ("opponent"), never their ids or numbers (Art.
    /// 15(4), 20(4)).
    ExportPlayer {
        /// The player's id (the JWT `sub` the API knows them by).
        player_id: String,
    },
    /// Operator: delete a player (GM-6, account removal): off every board, snapshot and
    /// period, their ledger and others' results anonymised, later records naming them
    /// refused. Safe to run again: it finishes an interrupted deletion, and says so
    /// when the player was deleted before (exit 0 either way). An id nothing is stored
    /// under is refused (exit 2) unless --even-if-unknown.
    DeletePlayer {
        /// The player's id (the JWT `sub` the API knows them by).
        player_id: String,
        /// Delete (block) the id even when nothing is stored under it (by default such
        /// an id is refused, so that a mistyped id is not blocked for good).
        #[arg(long)]
        even_if_unknown: bool,
        /// Why (3–500 characters), for the audit trail (OP-5).
        #[arg(long, default_value = "account removal (podium delete-player)")]
        reason: String,
        /// Who runs it, for the audit trail.
        #[arg(long, default_value = "cli")]
        operator: String,
    },
    /// Write realistic records (JSON lines) to stdout, with the duplicates, late
    /// retries, conflicts and malformed lines a fleet of game servers sends: Seega
    /// matches; Dots and Boxes matches; Minesweeper duels; Mahjong Rivals level
    /// completions, Quick Matches and Arenas (and with --tournament a tournament's
    /// registrations and tables).
    Generate {
        /// Which game's records.
        #[arg(long, value_enum, default_value_t = GenerateGame::Seega)]
        game: GenerateGame,
        /// Matches (Mahjong: records) to generate, before duplicates, retries and
        /// malformed records are added.
        #[arg(long, default_value_t = 10_000)]
        matches: usize,
        /// Distinct players.
        #[arg(long, default_value_t = 1_000)]
        players: usize,
        /// Random seed: the same seed gives the same file; match ids carry it
        /// (`sg-42-0000000`), so files of other seeds add new matches.
        #[arg(long, default_value_t = 42)]
        seed: u64,
        /// Mahjong, Dots and Boxes, Minesweeper: the records cover the 28 days up to
        /// this instant (RFC 3339; default: now, or --test-clock), which their ids carry
        /// too. Seega matches are dated in the days before 2026-11-30.
        #[arg(long)]
        end: Option<chrono::DateTime<chrono::Utc>>,
        /// Mahjong only: also a small tournament three days before the end: its
        /// settings go to this file (for `podium tournament FILE`, before the replay),
        /// its registrations and tables to the records.
        #[arg(long)]
        tournament: Option<PathBuf>,
    },
}

#[tokio::main]
async fn main() {
    restore_sigpipe();
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "warn".into()),
        )
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
    if let Err(e) = run(Cli::parse()).await.map_err(CliError::explained) {
        eprintln!("podium: {e}");
        std::process::exit(e.exit_code());
    }
}

/// A command whose output is piped to a reader that stops early (`podium replay … |
/// head -3`) ends quietly, as Unix tools do, instead of panicking on the closed pipe:
/// Rust's runtime ignores SIGPIPE, so every later write to standard output would fail.
/// What was committed stays committed (every record is its own settlement, GM-3), and
/// the same command run again goes on from there.
fn restore_sigpipe() {
    #[cfg(unix)]
    // SAFETY: SIG_DFL is a valid disposition for SIGPIPE; the call only sets the
    // process's disposition of that one signal, which nothing else in podium sets.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

async fn run(cli: Cli) -> Result<(), CliError> {
    let clock = clock::Clock::new(cli.test_clock);
    match cli.command {
        Command::Serve {
            port,
            replay: file,
            demo,
        } => {
            let mut ctx = podium_service::api::ApiContext::new(podium_service::config::local_cursor_key()?)
                .with_profiles(podium_service::config::profile_policy()?)
                .with_refresh(podium_service::config::snapshot_refresh()?)
                .with_records(podium_service::config::record_policy()?)
                .with_restore_days(podium_service::config::restore_days()?)
                .with_max_board_definitions(podium_service::config::max_board_definitions()?)
                .with_teams(podium_service::config::team_policy()?)
                .with_rewards(podium_service::config::period_rewards()?)
                .with_read_cache(podium_service::config::read_cache_entries(
                    podium_service::config::SERVE_READ_CACHE_ENTRIES,
                )?);
            if let Some(ads) = podium_service::config::local_ads()? {
                ctx = ctx.with_ads(ads);
            }
            let listener = serve::bind(port).await?;
            if demo {
                let (dir, store, _held) = demo::fresh_store()?;
                let shown = demo::load(&store, &dir, &clock).await?;
                let stream = Some(store.clone());
                return serve::serve(listener, store, stream, ctx, &clock, Some(&shown)).await;
            }
            let (store, stream) = local_store::open_streamed().await?;
            if let Some(file) = file {
                let policy = podium_service::config::record_policy()?;
                let writer = store.clone();
                let clock = clock.clone();
                tokio::spawn(async move {
                    let target = replay::Target::Concurrent {
                        store: writer.as_ref(),
                        in_flight: usize::from(replay::IN_FLIGHT),
                    };
                    if let Err(e) = replay::replay(target, &file, &policy, &clock, None).await {
                        eprintln!("podium serve --replay {}: stopped: {e}", file.display());
                    }
                });
            }
            serve::serve(listener, store, stream, ctx, &clock, None).await
        }
        Command::AdKeys { dir } => ads::keys(&dir),
        Command::AdCallback {
            private_key,
            key_id,
            ad_unit,
            user,
            transaction_id,
            timestamp_ms,
        } => ads::callback(&ads::Callback {
            private_key: &private_key,
            key_id,
            ad_unit: &ad_unit,
            user: &user,
            transaction_id: transaction_id.as_deref(),
            timestamp_ms: timestamp_ms.unwrap_or_else(|| clock.now().timestamp_millis()),
        }),
        Command::Replay {
            file,
            in_flight,
            refused,
        } => {
            let policy = podium_service::config::record_policy()?;
            let refused = refused.as_deref();
            match local_store::open_target(true).await? {
                local_store::Opened::Embedded(store) => {
                    replay::replay(replay::Target::Batched(&store), &file, &policy, &clock, refused).await
                }
                local_store::Opened::Other(store) => {
                    let in_flight = usize::from(in_flight);
                    let target = replay::Target::Concurrent {
                        store: store.as_ref(),
                        in_flight,
                    };
                    replay::replay(target, &file, &policy, &clock, refused).await
                }
            }
        }
        Command::Score => {
            let policy = podium_service::config::record_policy()?;
            replay::dry_run(local_store::open(false).await?.as_ref(), &policy, &clock).await
        }
        Command::Live {
            player,
            token,
            watch,
            url,
            listen,
        } => {
            let token = match (token, player) {
                (Some(t), _) => t,
                (None, Some(p)) => format!("Dev {p}"),
                (None, None) => {
                    return Err(CliError::StoreUnreachable(
                        "name the player with --player <id> (or a --token)".into(),
                    ))
                }
            };
            live_client::run(live_client::Options {
                url,
                token,
                watch,
                listen: listen.map(std::time::Duration::from_secs),
            })
            .await
        }
        Command::Snapshot => {
            let store = local_store::open(true).await?;
            let now = clock.now();
            let reports = tick::snapshot(store.as_ref(), now).await?;
            print!("{}", tick::summary(now, &reports));
            Ok(())
        }
        Command::LoadSynthetic { players } => {
            let path = match podium_service::config::local_store() {
                podium_service::config::LocalStore::Embedded(path) => path,
                podium_service::config::LocalStore::Dynamo { .. } => {
                    return Err(CliError::Io(std::io::Error::other(
                        "load-synthetic fills the embedded store only",
                    )))
                }
            };
            let store = podium_store::embedded::EmbeddedStore::open(&path)?;
            let n = store.load_balances(
                podium_rules::game::Game::Seega,
                podium_generate::synthetic::standings(players),
            )?;
            println!("loaded {n} players into {}", path.display());
            Ok(())
        }
        Command::Tournament { file } => {
            let text = std::fs::read(&file).map_err(|source| CliError::File {
                path: file.display().to_string(),
                source,
            })?;
            let t: podium_rules::mahjong::tournament::Tournament = serde_json::from_slice(&text)
                .map_err(|e| CliError::Io(std::io::Error::other(format!("{}: {e}", file.display()))))?;
            let store = local_store::open(true).await?;
            let delivery = format!("operator-{:016x}", rand::random::<u64>());
            let settled =
                podium_service::games::tournaments::configure(store.as_ref(), &t, &delivery, clock.now())
                    .await
                    .map_err(|e| match e {
                        e @ (podium_service::ServiceError::Invalid(_)
                        | podium_service::ServiceError::Conflict { .. }) => CliError::Refused(e),
                        other => CliError::Service(other),
                    })?;
            let (word, state) = match settled {
                podium_service::engine::source::Settled::Duplicate(s) => ("already configured", s),
                podium_service::engine::source::Settled::Applied(s)
                | podium_service::engine::source::Settled::Nothing(s) => ("configured", s),
            };
            println!(
                "tournament {} {word}: {} … {}, standings on /v1/leaderboards/mahjong-tournament-{}",
                state.tournament.tournament_id,
                state.tournament.starts_at,
                state.tournament.ends_at,
                state.tournament.tournament_id
            );
            Ok(())
        }
        Command::ClosePeriod {
            board,
            period,
            reason,
            operator,
            dry_run,
        } => {
            let store = local_store::open_existing().await?;
            let rewards = podium_service::config::period_rewards()?;
            let done = podium_service::operators::periods::close_period(
                store.as_ref(),
                (&board, &period),
                dry_run,
                &rewards,
                (&operator, &reason),
                clock.now(),
            )
            .await
            .map_err(|e| match e {
                e @ (podium_service::ServiceError::NotFound(_)
                | podium_service::ServiceError::BadRequest { .. }
                | podium_service::ServiceError::Invalid(_)) => CliError::Declined(e),
                other => CliError::Service(other),
            })?;
            println!("{}", serde_json::to_string_pretty(&done).unwrap_or_default());
            Ok(())
        }
        Command::ExportPlayer { player_id } => {
            let store = local_store::open_existing().await?;
            let export =
                podium_service::operators::export::export_player(store.as_ref(), &player_id, clock.now())
                    .await
                    .map_err(|e| match e {
                        e @ (podium_service::ServiceError::NotFound(_)
                        | podium_service::ServiceError::BadRequest { .. }) => CliError::Declined(e),
                        other => CliError::Service(other),
                    })?;
            println!("{}", serde_json::to_string_pretty(&export).unwrap_or_default());
            Ok(())
        }
        Command::DeletePlayer {
            player_id,
            even_if_unknown,
            reason,
            operator,
        } => {
            let store = local_store::open(true).await?;
            let r = podium_service::operators::deletion::delete_by_operator(
                store.as_ref(),
                &player_id,
                (&operator, &reason),
                clock.now(),
                even_if_unknown,
            )
            .await
            .map_err(|e| match e {
                // Say which option blocks an id with nothing stored under it.
                podium_service::ServiceError::NotFound(_) => {
                    CliError::Declined(podium_service::ServiceError::NotFound(format!(
                        "no such player: nothing is stored under `{player_id}` and nothing was deleted; \
                         to block this id ahead of any record, run \
                         `podium delete-player --even-if-unknown {player_id}`"
                    )))
                }
                e @ (podium_service::ServiceError::BadRequest { .. }
                | podium_service::ServiceError::Invalid(_)) => CliError::Declined(e),
                // Another deletion of the same player wrote the tombstone meanwhile.
                podium_service::ServiceError::Contended { .. } => {
                    CliError::Declined(podium_service::ServiceError::BadRequest {
                        field: "player_id",
                        message: "another deletion of this player is under way; run this again to finish it"
                            .into(),
                    })
                }
                other => CliError::Service(other),
            })?;
            if r.already_deleted {
                println!(
                    "{player_id} was already deleted (GM-6): nothing to do; shown as {}",
                    r.pseudonym
                );
                return Ok(());
            }
            println!(
                "deleted {player_id} (GM-6){}: {} balances and {} period-board entries removed, \
                 {} ledger entries moved to {}, {} claims and {} state items removed, \
                 {} results anonymised, left out of the snapshots of {} boards{}",
                if r.resumed {
                    ", finishing an earlier run (the counts are this run's; the earlier run did the rest)"
                } else {
                    ""
                },
                r.balances,
                r.entries,
                r.ledger_entries,
                r.pseudonym,
                r.claims,
                r.states,
                r.results,
                r.snapshots.len(),
                if r.snapshots.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", r.snapshots.join(", "))
                },
            );
            Ok(())
        }
        Command::Generate {
            game,
            matches,
            players,
            seed,
            end,
            tournament,
        } => {
            let out = &mut std::io::stdout().lock();
            match game {
                GenerateGame::Seega => podium_generate::seega::generate(matches, players, seed, out)?,
                GenerateGame::DotsAndBoxes | GenerateGame::Minesweeper => {
                    let which = if game == GenerateGame::Minesweeper {
                        podium_generate::replayed::Replayed::Minesweeper
                    } else {
                        podium_generate::replayed::Replayed::DotsAndBoxes
                    };
                    let end = end.unwrap_or_else(|| clock.now_secs());
                    podium_generate::replayed::generate(which, matches, players, seed, end, out)?
                }
                GenerateGame::Mahjong => {
                    let end = end.unwrap_or_else(|| clock.now_secs());
                    if let Some(path) = tournament {
                        let t = podium_generate::mahjong::tournament(players, seed, end, out)?;
                        let text = serde_json::to_string_pretty(&t).unwrap_or_default();
                        std::fs::write(&path, text).map_err(|source| CliError::File {
                            path: path.display().to_string(),
                            source,
                        })?;
                    }
                    podium_generate::mahjong::generate(matches, players, seed, end, out)?
                }
            }
            Ok(())
        }
    }
}
