//! The `podium` binary as a user runs it: `score` on the rules page's examples,
//! `generate` + `replay` on the embedded store.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use serde_json::{json, Value};

/// The server clock of every command these tests run (`PODIUM_TEST_CLOCK`): every
/// date below is relative to it, so no test ages out against the real clock.
const CLOCK: &str = "2026-11-30T12:00:00Z";

/// [`CLOCK`] as an instant.
fn clock() -> chrono::DateTime<chrono::Utc> {
    CLOCK.parse().expect("an RFC 3339 instant")
}

fn data_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("podium-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

fn podium(dir: &PathBuf, args: &[&str], stdin: &[u8]) -> Output {
    podium_with(dir, args, stdin, &[])
}

/// `podium ARGS` in `dir` with extra environment `env`, killed (and the test failed)
/// if it runs longer than a minute.
fn podium_with(dir: &PathBuf, args: &[&str], stdin: &[u8], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_podium"));
    cmd.args(args)
        .current_dir(dir)
        .env("PODIUM_DATA", dir.join("podium.redb"))
        .env_remove("AWS_ENDPOINT_URL_DYNAMODB")
        .env_remove("PODIUM_TABLE")
        .env_remove("PODIUM_MAX_CLOCK_SKEW_SECS")
        .env("PODIUM_TEST_CLOCK", CLOCK)
        .env("RUST_LOG", "warn")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().expect("podium runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin)
        .expect("write");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(std::time::Duration::from_secs(60)) {
        Ok(out) => out.expect("podium exits"),
        Err(_) => panic!("podium {args:?} ran over a minute"),
    }
}

/// The environment for DynamoDB Local at `endpoint`, with the timeouts
/// docs/walk-through.md gives for local runs (10 s an attempt, 30 s a request): the
/// emulator takes seconds to answer on a busy machine, which the deployed defaults
/// would take for an outage.
fn on_dynamodb(endpoint: &str) -> Vec<(&'static str, String)> {
    let mut env = aws_at(endpoint);
    env.extend([
        ("PODIUM_DYNAMODB_ATTEMPT_TIMEOUT_MS", "10000".into()),
        ("PODIUM_DYNAMODB_OPERATION_TIMEOUT_MS", "30000".into()),
    ]);
    env
}

/// The environment for DynamoDB at `endpoint` with short timeouts (an endpoint that
/// does not answer).
fn on_dynamodb_impatient(endpoint: &str) -> Vec<(&'static str, String)> {
    let mut env = aws_at(endpoint);
    env.extend([
        ("PODIUM_DYNAMODB_CONNECT_TIMEOUT_MS", "300".into()),
        ("PODIUM_DYNAMODB_ATTEMPT_TIMEOUT_MS", "300".into()),
        ("PODIUM_DYNAMODB_OPERATION_TIMEOUT_MS", "800".into()),
        ("PODIUM_DYNAMODB_MAX_ATTEMPTS", "2".into()),
    ]);
    env
}

fn aws_at(endpoint: &str) -> Vec<(&'static str, String)> {
    vec![
        ("AWS_ENDPOINT_URL_DYNAMODB", endpoint.to_string()),
        ("AWS_REGION", "us-east-1".into()),
        ("AWS_ACCESS_KEY_ID", "local".into()),
        ("AWS_SECRET_ACCESS_KEY", "local".into()),
    ]
}

/// The DynamoDB Local endpoint of this test run; the test fails without it (never skips).
fn test_dynamodb_endpoint() -> String {
    std::env::var("PODIUM_TEST_DYNAMODB_ENDPOINT").unwrap_or_else(|_| {
        panic!("PODIUM_TEST_DYNAMODB_ENDPOINT is not set: run scripts/test, which starts DynamoDB Local")
    })
}

/// `env` with a table of this test process's own, named `prefix-PID`.
fn with_table(mut env: Vec<(&'static str, String)>, prefix: &str) -> Vec<(&'static str, String)> {
    env.push(("PODIUM_TABLE", format!("{prefix}-{}", std::process::id())));
    env
}

fn refs<'a>(env: &'a [(&'static str, String)]) -> Vec<(&'static str, &'a str)> {
    env.iter().map(|(k, v)| (*k, v.as_str())).collect()
}

/// A loopback port free now (for `podium serve --port`).
fn free_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    l.local_addr().expect("addr").port()
}

/// Waits up to 10 s for `podium serve` to accept connections on `port`.
fn wait_until_serving(port: u16) {
    let ready = (0..200).any(|_| {
        std::thread::sleep(std::time::Duration::from_millis(50));
        std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
    });
    assert!(ready, "podium serve did not start");
}

/// An endpoint that accepts connections and never answers.
fn stalled_endpoint() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("addr");
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for conn in listener.incoming().flatten() {
            held.push(conn);
        }
    });
    format!("http://{addr}")
}

fn seed_record(winner_captured: u32, loser_captured: u32) -> Value {
    json!({
        "match_id": format!("seed-{winner_captured}-{loser_captured}"),
        "game": "seega",
        "started_at": "2026-11-29T10:00:00Z",
        "ended_at": "2026-11-29T10:05:00Z",
        "players": [
            {"player_id": "winner", "moves": 20, "stones_on_board": 24 - loser_captured, "stones_in_hand": 0},
            {"player_id": "loser", "moves": 20, "stones_on_board": 24 - winner_captured, "stones_in_hand": 0}
        ],
        "stones_placed": 48,
        "outcome": {"result": "win", "winner": "winner", "reason": "completed"}
    })
}

/// SG-8: the rules page's examples through `podium score` (a dry run: nothing written).
#[test]
fn score_dry_runs_the_seed_examples() {
    let dir = data_dir("score");
    for (wc, lc, w, l) in [
        (24, 0, "+311", "\u{2212}123"),
        (24, 12, "+287", "\u{2212}75"),
        (16, 8, "+263", "\u{2212}75"),
        (12, 4, "+255", "\u{2212}83"),
    ] {
        let out = podium(&dir, &["score"], seed_record(wc, lc).to_string().as_bytes());
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let v: Value = serde_json::from_slice(&out.stdout).expect("json");
        assert_eq!(v["dry_run"], true);
        assert_eq!(v["result"]["players"][0]["points_shown"], w);
        assert_eq!(v["result"]["players"][1]["points_shown"], l);
        // A new player starts at 0: the loss applies nothing (SG-7).
        assert_eq!(v["result"]["players"][1]["applied"], 0);
    }
}

/// A dry run leaves no data behind; a conflicting re-use of a stored id is refused (GM-3).
#[test]
fn score_writes_nothing_and_refuses_conflicts() {
    let dir = data_dir("dry");
    let out = podium(&dir, &["score"], seed_record(24, 0).to_string().as_bytes());
    assert!(out.status.success());
    assert!(!dir.join("podium.redb").exists(), "a dry run creates no store");
    let line = format!("{}\n", seed_record(24, 0));
    std::fs::write(dir.join("one.jsonl"), &line).expect("write");
    assert!(podium(&dir, &["replay", "one.jsonl"], b"").status.success());
    let mut other = seed_record(24, 0);
    other["players"][0]["moves"] = json!(21);
    let out = podium(&dir, &["score"], other.to_string().as_bytes());
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("conflict"));
}

/// A replay reads a pipe too (read once: no first pass to count its lines).
#[test]
fn replay_reads_a_pipe() {
    let dir = data_dir("pipe");
    let input = format!("{}\n{}\n", seed_record(24, 0), seed_record(16, 8));
    let out = podium(&dir, &["replay", "/dev/stdin"], input.as_bytes());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("replayed 2 records"), "{text}");
    assert!(text.contains("scored      2"), "{text}");
}

/// MJ-7: a Mahjong Quick Match line (`"kind": "quick-match"`) is scored by the same
/// replay as Seega matches, and exactly once.
#[test]
fn replay_scores_quick_matches_among_seega_matches() {
    let dir = data_dir("quick-match");
    let quick = json!({"match_id": "qm-1", "game": "mahjong-rivals", "kind": "quick-match",
        "ended_at": (clock() - chrono::Duration::days(29)).to_rfc3339(),
        "players": [{"player_id": "p-1", "completed": true, "score": 900},
                    {"player_id": "p-2", "completed": false, "score": 300}]});
    let file = format!("{}\n{quick}\n", seed_record(24, 0));
    std::fs::write(dir.join("mixed.jsonl"), &file).expect("write");
    for scored in ["scored      2", "duplicates  2"] {
        let out = podium(&dir, &["replay", "mixed.jsonl"], b"");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains(scored), "{text}");
    }
}

/// The clock every command reads is injectable (`--test-clock`, `PODIUM_TEST_CLOCK`):
/// a Quick Match of 2021-03-01 is refused against the tests' clock (GM-5: more than 30
/// days old) and scored by a replay whose clock is a day after it.
#[test]
fn commands_read_the_injected_clock() {
    let dir = data_dir("test-clock");
    let quick = json!({"match_id": "qm-2021", "game": "mahjong-rivals", "kind": "quick-match",
        "ended_at": "2021-03-01T10:00:00Z",
        "players": [{"player_id": "p-1", "completed": true, "score": 900},
                    {"player_id": "p-2", "completed": false, "score": 300}]});
    std::fs::write(dir.join("old.jsonl"), format!("{quick}\n")).expect("write");
    let out = podium(&dir, &["replay", "old.jsonl"], b"");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("ended_at (GM-5)"), "{text}");
    let out = podium(
        &dir,
        &["--test-clock", "2021-03-02T00:00:00+02:00", "replay", "old.jsonl"],
        b"",
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("scored      1"), "{text}");
    let bad = podium(&dir, &["--test-clock", "yesterday", "replay", "old.jsonl"], b"");
    assert_eq!(
        bad.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&bad.stderr)
    );
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--test-clock"));
}

/// GM-5: a line that is not UTF-8 is one refused record; the replay goes on.
#[test]
fn replay_survives_bad_bytes() {
    let dir = data_dir("bytes");
    let mut file = b"\xEF\xBB\xBF".to_vec();
    file.extend(format!("{}\n", seed_record(24, 0)).as_bytes());
    file.extend(b"{\"match_id\": \"m-\xff\"}\n\n");
    file.extend(format!("{}\n", seed_record(16, 8)).as_bytes());
    std::fs::write(dir.join("mixed.jsonl"), &file).expect("write");
    let out = podium(&dir, &["replay", "mixed.jsonl"], b"");
    // The others scored, one line refused: exit status 3, the summary unchanged.
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("1 line(s) refused and 0 conflicting"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("replayed 3 records"), "{text}");
    assert!(text.contains("scored      2"), "{text}");
    assert!(text.contains("refused     1"), "{text}");
}

/// A reader that closes the pipe early (`podium generate | head -1`) ends the command
/// quietly, as Unix tools end: no panic, no message.
#[test]
fn a_closed_output_pipe_ends_quietly() {
    use std::io::{BufRead, Read};
    let dir = data_dir("closed-pipe");
    let mut child = Command::new(env!("CARGO_BIN_EXE_podium"))
        .args(["generate", "--matches", "20000", "--players", "500"])
        .current_dir(&dir)
        .env("PODIUM_TEST_CLOCK", CLOCK)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("podium runs");
    let mut first = String::new();
    {
        let stdout = child.stdout.take().expect("stdout");
        std::io::BufReader::new(stdout)
            .read_line(&mut first)
            .expect("a line");
    } // the pipe closes here, long before the 20,000 matches are written
    let status = child.wait().expect("it ends");
    let mut err = String::new();
    child
        .stderr
        .take()
        .expect("stderr")
        .read_to_string(&mut err)
        .expect("stderr");
    assert!(first.starts_with('{'), "{first}");
    assert!(!err.contains("panicked") && !err.contains("Broken pipe"), "{err}");
    assert_ne!(status.code(), Some(101), "no panic");
}

/// GM-5: a line longer than the 1 MiB limit is one refused record, skipped without
/// being held in memory; the replay goes on. `podium score` refuses such input too.
#[test]
fn an_overlong_line_is_refused_not_held() {
    let dir = data_dir("overlong");
    let mut file = format!("{}\n", seed_record(24, 0)).into_bytes();
    file.extend(std::iter::repeat_n(b'x', 3 << 20));
    file.push(b'\n');
    file.extend(format!("{}\n", seed_record(16, 8)).as_bytes());
    std::fs::write(dir.join("long.jsonl"), &file).expect("write");
    let out = podium(&dir, &["replay", "long.jsonl"], b"");
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("scored      2"), "{text}");
    assert!(text.contains("refused     1"), "{text}");
    assert!(text.contains("record (GM-5)"), "{text}");
    let out = podium(&dir, &["score"], &vec![b' '; (1 << 20) + 1]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("record (GM-5)"));
}

/// GM-5: `podium score` refuses a bad record with the field and rule, exit code 2.
#[test]
fn score_refuses_with_field_and_rule() {
    let dir = data_dir("refuse");
    let mut r = seed_record(24, 0);
    r["players"][1]["player_id"] = json!("winner");
    let out = podium(&dir, &["score"], r.to_string().as_bytes());
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("players[1].player_id") && err.contains("GM-5"),
        "{err}"
    );
}

/// The walk-through: generate, replay twice (the second replay changes nothing), for
/// Seega matches, Mahjong Rivals records, Dots and Boxes matches and Minesweeper
/// duels (GM-3).
#[test]
fn generate_then_replay_is_exactly_once() {
    for game in ["seega", "mahjong", "dots-and-boxes", "minesweeper"] {
        generate_then_replay_once(game);
    }
}

/// MJ-12 … MJ-16: a generated tournament: the operator configures it from the file
/// `generate --tournament` wrote, then its registrations and tables replay with none
/// refused; the tick snapshots its standings.
#[test]
fn a_generated_tournament_replays_cleanly() {
    let dir = data_dir("tournament");
    let out = podium(
        &dir,
        &[
            "generate",
            "--game",
            "mahjong",
            "--matches",
            "50",
            "--players",
            "30",
            "--tournament",
            "t.json",
        ],
        b"",
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    std::fs::write(dir.join("m.jsonl"), &out.stdout).expect("write");
    let configured = podium(&dir, &["tournament", "t.json"], b"");
    assert!(
        configured.status.success(),
        "{}",
        String::from_utf8_lossy(&configured.stderr)
    );
    let again = podium(&dir, &["tournament", "t.json"], b"");
    assert!(String::from_utf8_lossy(&again.stdout).contains("already configured"));
    let replay = podium(&dir, &["replay", "m.jsonl"], b"");
    let text = String::from_utf8_lossy(&replay.stdout).to_string();
    assert!(
        !text.contains("tournament_id") && !text.contains("registered_at") && !text.contains("MJ-12"),
        "{text}"
    );
    // The tick: the standings board is snapshotted (it changed).
    let tick = podium(&dir, &["snapshot"], b"");
    let shown = String::from_utf8_lossy(&tick.stdout).to_string();
    assert!(
        shown.contains("refreshed") && shown.contains("mahjong-tournament-cup-42-"),
        "{shown}"
    );
}

/// [`generate_then_replay_is_exactly_once`] for one game's generated records.
fn generate_then_replay_once(game: &str) {
    let dir = data_dir(&format!("replay-{game}"));
    let out = podium(
        &dir,
        &[
            "generate",
            "--game",
            game,
            "--matches",
            "300",
            "--players",
            "40",
            "--seed",
            "7",
        ],
        b"",
    );
    assert!(out.status.success());
    std::fs::write(dir.join("matches.jsonl"), &out.stdout).expect("write");
    let lines = out
        .stdout
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .count();
    assert!(lines > 300, "duplicates and malformed records are mixed in");
    let first_run = podium(&dir, &["replay", "matches.jsonl"], b"");
    let first = String::from_utf8_lossy(&first_run.stdout).to_string();
    // Malformed lines mixed in are refused: exit status 3 (the rest scored); 0 when
    // every line scored, was void or a duplicate.
    let refused_or_conflicting = first.lines().any(|l| {
        let l = l.trim();
        (l.starts_with("refused ") || l.starts_with("conflicts ")) && !l.ends_with(" 0")
    });
    assert_eq!(
        first_run.status.code(),
        Some(if refused_or_conflicting { 3 } else { 0 }),
        "{first} {}",
        String::from_utf8_lossy(&first_run.stderr)
    );
    assert!(first.contains("scored") && first.contains("refused"), "{first}");
    let second = podium(&dir, &["replay", "matches.jsonl"], b"");
    let second = String::from_utf8_lossy(&second.stdout).to_string();
    let count = |s: &str, what: &str| -> u64 {
        s.lines()
            .find_map(|l| l.trim().strip_prefix(what).map(|n| n.trim().parse().unwrap_or(0)))
            .unwrap_or(0)
    };
    assert_eq!(count(&second, "scored"), 0, "{second}");
    assert_eq!(count(&second, "void"), 0, "{second}");
    assert_eq!(
        count(&second, "duplicates"),
        count(&first, "scored") + count(&first, "void") + count(&first, "duplicates"),
        "first: {first}\nsecond: {second}"
    );
}

/// Review case 5: with DynamoDB accepting connections and never answering, `replay`
/// and `score` fail within the configured timeouts, saying so, instead of hanging.
#[test]
fn a_stalled_dynamodb_fails_within_the_timeouts() {
    let dir = data_dir("stalled");
    let line = seed_record(24, 0).to_string();
    std::fs::write(dir.join("one.jsonl"), format!("{line}\n")).expect("write");
    let env = on_dynamodb_impatient(&stalled_endpoint());
    for (args, input) in [
        (vec!["replay", "one.jsonl"], Vec::new()),
        (vec!["score"], line.clone().into_bytes()),
    ] {
        let started = std::time::Instant::now();
        let out = podium_with(&dir, &args, &input, &refs(&env));
        let took = started.elapsed();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(stderr.contains("did not answer"), "{args:?}: {stderr}");
        assert!(
            took < std::time::Duration::from_secs(15),
            "{args:?} took {took:?}"
        );
    }
}

/// Review case 10: `podium score` on DynamoDB with no table says what is missing and
/// how to create it (DynamoDB Local, started by scripts/test).
#[test]
fn score_on_dynamodb_without_a_table_says_what_to_do() {
    let endpoint = test_dynamodb_endpoint();
    let dir = data_dir("no-table");
    let mut env = on_dynamodb(&endpoint);
    env.push(("PODIUM_TABLE", format!("no-such-table-{}", std::process::id())));
    let out = podium_with(
        &dir,
        &["score"],
        seed_record(24, 0).to_string().as_bytes(),
        &refs(&env),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("has no table `no-such-table-"), "{stderr}");
    assert!(stderr.contains("create it"), "{stderr}");
    assert!(!stderr.contains("ResourceNotFoundException"), "{stderr}");
}

/// A `PODIUM_TABLE` DynamoDB would refuse (two characters, a space) ends start-up
/// with one line naming the variable and DynamoDB's rule, before any request.
#[test]
fn a_table_name_dynamodb_refuses_is_named() {
    let dir = data_dir("bad-table");
    for bad in ["ab", "my table", "x".repeat(256).as_str()] {
        let mut env = on_dynamodb(&stalled_endpoint());
        env.push(("PODIUM_TABLE", bad.to_string()));
        let out = podium_with(&dir, &["replay", "/dev/null"], b"", &refs(&env));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        assert!(
            stderr.contains("PODIUM_TABLE must be a DynamoDB table name: 3 to 255 characters"),
            "{stderr}"
        );
        assert!(stderr.lines().count() <= 2, "{stderr}");
    }
}

/// Review case 9: an unknown key of half a megabyte is refused in one short line
/// naming the object that holds it, not the key (a record past 1 MiB is refused
/// whole, `an_overlong_line_is_refused_not_held`).
#[test]
fn a_huge_unknown_key_is_refused_briefly() {
    let dir = data_dir("huge-key");
    let mut record = seed_record(24, 0);
    record[format!("player_email_{}", "x".repeat(1 << 19))] = json!(1);
    let out = podium(&dir, &["score"], record.to_string().as_bytes());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.len() < 1_000, "{} bytes of stderr", stderr.len());
    assert!(
        stderr.contains("record (GM-5): unknown field `player_email_"),
        "{stderr}"
    );
}

/// Review case 8: the game servers' allowed clock skew is configuration: a match
/// ending 6 minutes after podium's clock is refused by default, accepted at 600 s.
#[test]
fn clock_skew_is_configuration() {
    let dir = data_dir("skew");
    let ended = clock() + chrono::Duration::minutes(6);
    let mut record = seed_record(24, 0);
    record["started_at"] = json!((ended - chrono::Duration::minutes(5)).to_rfc3339());
    record["ended_at"] = json!(ended.to_rfc3339());
    let input = record.to_string();
    let out = podium(&dir, &["score"], input.as_bytes());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("ended_at (GM-5)"), "{stderr}");
    let out = podium_with(
        &dir,
        &["score"],
        input.as_bytes(),
        &[("PODIUM_MAX_CLOCK_SKEW_SECS", "600")],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = podium_with(
        &dir,
        &["score"],
        input.as_bytes(),
        &[("PODIUM_MAX_CLOCK_SKEW_SECS", "ten")],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("PODIUM_MAX_CLOCK_SKEW_SECS"), "{stderr}");
}

/// One HTTP/1.1 request to 127.0.0.1:`port`; the status and the body.
fn http(port: u16, method: &str, path: &str, auth: Option<&str>) -> (u16, String) {
    let auth = auth
        .map(|a| format!("Authorization: {a}\r\n"))
        .unwrap_or_default();
    http_with(port, method, path, &format!("Host: localhost\r\n{auth}"))
}

/// [`http`] with `headers` (each line ending in CRLF) as its only headers but the
/// body's length and `Connection`.
fn http_with(port: u16, method: &str, path: &str, headers: &str) -> (u16, String) {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).expect("connect");
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\n{headers}Content-Length: 0\r\nConnection: close\r\n\r\n"
    )
    .expect("send");
    let mut reply = String::new();
    stream.read_to_string(&mut reply).expect("read");
    let status = reply
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let body = reply
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_string())
        .unwrap_or_default();
    (status, body)
}

/// The query of an AdMob callback for `winner` on the test unit 5224354917, signed with
/// `dir/keys`' private key (`podium ad-callback`), viewed at `at_ms` (default: the
/// command's clock).
fn signed_callback(dir: &PathBuf, txn: &str, at_ms: Option<i64>, env: &[(&str, &str)]) -> String {
    let at = at_ms.map(|ms| ms.to_string());
    let mut args = vec![
        "ad-callback",
        "--private-key",
        "keys/private-key.pkcs8.b64",
        "--ad-unit",
        "5224354917",
        "--user",
        "winner",
        "--transaction-id",
        txn,
    ];
    if let Some(at) = &at {
        args.extend(["--timestamp-ms", at.as_str()]);
    }
    let out = podium_with(dir, &args, b"", env);
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// SG-10 / MJ-18 as the README walks them: a key pair of one's own, a signed callback
/// granting +40 through `podium serve`, the same day's second callback granting
/// nothing, and the Mahjong daily bonus claimed once.
#[test]
fn rewards_walk_through() {
    let dir = data_dir("rewards");
    let out = podium(&dir, &["ad-keys", "keys"], b"");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The player needs a Seega balance first: one match.
    let line = seed_record(24, 0).to_string();
    std::fs::write(dir.join("one.jsonl"), format!("{line}\n")).expect("write");
    assert_eq!(podium(&dir, &["replay", "one.jsonl"], b"").status.code(), Some(0));
    let catalogue =
        r#"{"units": {"admob:5224354917": {"reward": "daily_points", "game": "seega", "points": 40}}}"#;
    let port = free_port();
    let keys = dir.join("keys/verifier-keys.json");
    let mut server = Command::new(env!("CARGO_BIN_EXE_podium"))
        .args(["serve", "--port", &port.to_string()])
        .current_dir(&dir)
        .env("PODIUM_DATA", dir.join("podium.redb"))
        .env_remove("AWS_ENDPOINT_URL_DYNAMODB")
        .env("PODIUM_TEST_CLOCK", CLOCK)
        .env("PODIUM_AD_CATALOGUE", catalogue)
        .env("PODIUM_ADMOB_KEYS_FILE", &keys)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("serve");
    wait_until_serving(port);
    let sign = |txn: &str| signed_callback(&dir, txn, None, &[]);
    let first = http(
        port,
        "GET",
        &format!("/v1/ad-callbacks/admob?{}", sign("t-1")),
        None,
    );
    let second = http(
        port,
        "GET",
        &format!("/v1/ad-callbacks/admob?{}", sign("t-2")),
        None,
    );
    let forged = http(
        port,
        "GET",
        &format!(
            "/v1/ad-callbacks/admob?{}",
            sign("t-3").replace("winner", "loser")
        ),
        None,
    );
    let bonus = http(
        port,
        "POST",
        "/v1/games/mahjong-rivals/daily-bonus",
        Some("Dev winner"),
    );
    let bonus_again = http(
        port,
        "POST",
        "/v1/games/mahjong-rivals/daily-bonus",
        Some("Dev winner"),
    );
    let me = http(port, "GET", "/v1/me", Some("Dev winner"));
    let _ = server.kill();
    let _ = server.wait();
    let json = |s: &str| serde_json::from_str::<Value>(s).unwrap_or(Value::Null);
    assert_eq!(first.0, 200, "{}", first.1);
    assert_eq!(
        (json(&first.1)["status"].clone(), json(&first.1)["points"].clone()),
        (json!("granted"), json!(40))
    );
    assert_eq!(json(&second.1)["status"], "already_granted_today", "{}", second.1);
    assert_eq!(forged.0, 403, "{}", forged.1);
    assert_eq!(
        (bonus.0, json(&bonus.1)["points"].clone()),
        (200, json!(10)),
        "{}",
        bonus.1
    );
    assert_eq!(json(&bonus_again.1)["claimed_now"], false);
    assert_eq!(json(&me.1)["balance"], 311 + 40, "{}", me.1);
}

/// GM-6: `podium delete-player` removes a player and says what it removed; run again
/// it says they were already deleted (exit 0 both times); a later record naming them
/// is refused under GM-6.
#[test]
fn delete_player_removes_once_and_later_records_are_refused() {
    let dir = data_dir("delete-player");
    std::fs::write(dir.join("one.jsonl"), format!("{}\n", seed_record(24, 0))).expect("write");
    assert!(podium(&dir, &["replay", "one.jsonl"], b"").status.success());
    let out = podium(&dir, &["delete-player", "winner"], b"");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("deleted winner (GM-6)"), "{text}");
    assert!(text.contains("1 balances"), "{text}");
    assert!(text.contains("1 results anonymised"), "{text}");
    let again = podium(&dir, &["delete-player", "winner"], b"");
    assert!(
        again.status.success(),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    let text = String::from_utf8_lossy(&again.stdout);
    assert!(text.contains("already deleted"), "{text}");
    let mut later = seed_record(16, 8);
    later["match_id"] = json!("after-deletion");
    std::fs::write(dir.join("later.jsonl"), format!("{later}\n")).expect("write");
    let out = podium(&dir, &["replay", "later.jsonl"], b"");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("refused     1"), "{text}");
    assert!(text.contains("GM-6"), "{text}");
    // The dry run refuses it too.
    let dry = podium(&dir, &["score"], later.to_string().as_bytes());
    assert_eq!(
        dry.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&dry.stdout)
    );
    assert!(String::from_utf8_lossy(&dry.stderr).contains("GM-6"));
    // An id with nothing stored is refused unless asked for: a typo blocks nobody.
    let unknown = podium(&dir, &["delete-player", "nobody-here"], b"");
    assert_eq!(unknown.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("no such player"));
    let ahead = podium(&dir, &["delete-player", "--even-if-unknown", "nobody-here"], b"");
    assert!(
        ahead.status.success(),
        "{}",
        String::from_utf8_lossy(&ahead.stderr)
    );
    let bad = podium(&dir, &["delete-player", "not a valid id"], b"");
    assert_eq!(
        bad.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&bad.stderr)
    );
}

/// `serve --replay FILE`: the file's records are scored into the served store while
/// it answers (the match readable through the API once replayed), the summary is
/// printed, and a file it cannot read is reported on stderr while the server serves.
#[test]
fn serve_replays_a_file_while_it_serves() {
    let dir = data_dir("serve-replay");
    let lines = format!("{}\n{}\nnot json\n", seed_record(24, 0), seed_record(16, 8));
    std::fs::write(dir.join("live.jsonl"), lines).expect("write");
    for (file, expect_stored) in [("live.jsonl", true), ("missing.jsonl", false)] {
        let port = free_port();
        let mut server = Command::new(env!("CARGO_BIN_EXE_podium"))
            .args(["serve", "--port", &port.to_string(), "--replay", file])
            .current_dir(&dir)
            .env("PODIUM_DATA", dir.join(format!("{file}.redb")))
            .env_remove("AWS_ENDPOINT_URL_DYNAMODB")
            .env("PODIUM_TEST_CLOCK", CLOCK)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("serve");
        wait_until_serving(port);
        let stored = (0..100).any(|_| {
            std::thread::sleep(std::time::Duration::from_millis(50));
            http(port, "GET", "/v1/me/matches/seed-16-8", Some("Dev winner")).0 == 200
        });
        assert_eq!(stored, expect_stored, "{file}");
        // Still serving after the replay ended or failed.
        assert_eq!(http(port, "GET", "/v1/openapi.json", None).0, 200, "{file}");
        let _ = server.kill();
        let out = server.wait_with_output().expect("output");
        let (stdout, stderr) = (
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
        );
        if expect_stored {
            assert!(
                stdout.contains("scored      2") && stdout.contains("refused     1"),
                "{stdout}"
            );
        } else {
            assert!(stderr.contains("--replay missing.jsonl: stopped"), "{stderr}");
        }
    }
}

/// `podium serve` on a fresh embedded store in the test folder `name`, on the system
/// clock, its output discarded; the server and its port, once it answers.
fn serve_quietly(name: &str) -> (std::process::Child, u16) {
    let dir = data_dir(name);
    let port = free_port();
    let server = Command::new(env!("CARGO_BIN_EXE_podium"))
        .args(["serve", "--port", &port.to_string()])
        .current_dir(&dir)
        .env("PODIUM_DATA", dir.join("podium.redb"))
        .env_remove("AWS_ENDPOINT_URL_DYNAMODB")
        .env_remove("PODIUM_TEST_CLOCK")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("serve");
    wait_until_serving(port);
    (server, port)
}

/// The development server answers this machine only: a `Host` of another name (DNS
/// rebinding) or an `Origin` of another site (a page in the browser, the live feed's
/// WebSocket included) is refused with 403 before any route; the server's own names
/// and no header at all are answered (found by an attack pass: any Host and Origin
/// reached every route, the operator's included).
#[test]
fn serve_answers_this_machine_only() {
    let (mut server, port) = serve_quietly("serve-loopback");
    let operator = "Authorization: Operator evil\r\n";
    let upgrade = "Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n";
    for (headers, path, status) in [
        (
            format!("Host: attacker.example:{port}\r\n{operator}"),
            "/v1/operator/players/p-00001",
            403,
        ),
        (
            format!("Host: 127.0.0.1:{port}\r\nOrigin: https://evil.example\r\n{operator}"),
            "/v1/operator/players/p-00001",
            403,
        ),
        (
            format!("Host: 127.0.0.1:{port}\r\nOrigin: https://evil.example\r\n"),
            "/v1/live?token=Dev%20p-00001",
            403,
        ),
        (
            format!("Host: 127.0.0.1:{port}\r\nOrigin: null\r\n"),
            "/v1/openapi.json",
            403,
        ),
        (
            format!("Host: localhost:{port}\r\nOrigin: http://localhost:{port}\r\n"),
            "/v1/openapi.json",
            200,
        ),
        (format!("Host: [::1]:{port}\r\n"), "/v1/openapi.json", 200),
        (String::new(), "/v1/openapi.json", 200),
    ] {
        let headers = if path.starts_with("/v1/live") {
            format!("{headers}{upgrade}")
        } else {
            headers
        };
        let (got, body) = http_with(port, "GET", path, &headers);
        assert_eq!(got, status, "{headers:?} {path}: {body}");
        if status == 403 {
            assert!(body.contains("answers this machine only"), "{body}");
        }
    }
    let _ = server.kill();
    let _ = server.wait();
}

/// The replay's summary groups refusals by field pattern (indexes as `*`), and
/// `--refused FILE` writes every refused line with its number, full reason and text.
#[test]
fn replay_groups_refusals_and_writes_refused_lines() {
    let dir = data_dir("refused-lines");
    let mut twice_a = seed_record(24, 0);
    twice_a["match_id"] = json!("twice-a");
    twice_a["players"][1]["player_id"] = json!("winner");
    let mut twice_b = twice_a.clone();
    twice_b["match_id"] = json!("twice-b");
    let file = format!("{}\n{twice_a}\nnot json\n{twice_b}\n", seed_record(24, 0));
    std::fs::write(dir.join("mixed.jsonl"), file).expect("write");
    let out = podium(
        &dir,
        &["replay", "mixed.jsonl", "--refused", "refused.jsonl"],
        b"",
    );
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("refused     3"), "{text}");
    assert!(text.contains("    2  players[*].player_id (GM-5)"), "{text}");
    assert!(!text.contains("players[1]"), "{text}");
    assert!(text.contains("refused.jsonl"), "{text}");
    let rows: Vec<Value> = std::fs::read_to_string(dir.join("refused.jsonl"))
        .expect("the refused lines")
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object a line"))
        .collect();
    let lines: Vec<u64> = rows.iter().map(|r| r["line"].as_u64().unwrap_or(0)).collect();
    assert_eq!(lines, [2, 3, 4], "{rows:?}");
    assert!(
        rows[0]["reason"]
            .as_str()
            .is_some_and(|r| r.starts_with("players[1].player_id (GM-5): ")),
        "{rows:?}"
    );
    assert_eq!(rows[0]["record"]["match_id"], "twice-a");
    assert_eq!(rows[1]["record"], "not json");
    assert!(rows[1]["reason"]
        .as_str()
        .is_some_and(|r| r.starts_with("record (GM-5)")));
    // Without the option, the summary says it exists.
    let again = podium(&dir, &["replay", "mixed.jsonl"], b"");
    assert!(String::from_utf8_lossy(&again.stdout).contains("--refused FILE"));
}

/// `--refused FILE` that is the input, or that cannot be written, is refused before
/// anything is replayed: the input is kept and the store is untouched.
#[test]
fn replay_refuses_a_refused_file_it_cannot_use_before_replaying() {
    let dir = data_dir("refused-first");
    let file = format!("{}\nnot json\n", seed_record(24, 0));
    std::fs::write(dir.join("in.jsonl"), &file).expect("write");
    std::fs::create_dir_all(dir.join("a-folder")).expect("folder");
    for target in ["in.jsonl", "./in.jsonl", "a-folder", "no/such/folder/out.jsonl"] {
        let out = podium(&dir, &["replay", "in.jsonl", "--refused", target], b"");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{target}: {stderr}");
        assert!(
            stderr.contains(target.trim_start_matches("./")),
            "{target}: {stderr}"
        );
        assert!(
            !String::from_utf8_lossy(&out.stdout).contains("replayed"),
            "{target}: nothing replayed"
        );
        assert_eq!(
            std::fs::read_to_string(dir.join("in.jsonl")).expect("input"),
            file,
            "{target}: the input is kept"
        );
    }
    let clean = podium(&dir, &["replay", "in.jsonl"], b"");
    assert!(
        String::from_utf8_lossy(&clean.stdout).contains("scored      1"),
        "the store was untouched: {}",
        String::from_utf8_lossy(&clean.stdout)
    );
}

/// `podium snapshot` prints one short summary (periods frozen and closed with their
/// results, league weeks, boards refreshed, messages sent) and no log line at the
/// default level.
#[test]
fn snapshot_prints_one_summary() {
    let dir = data_dir("snapshot-summary");
    let quick = json!({"match_id": "qm-week", "game": "mahjong-rivals", "kind": "quick-match",
        "ended_at": (clock() - chrono::Duration::days(8)).to_rfc3339(),
        "players": [{"player_id": "p-1", "completed": true, "score": 900},
                    {"player_id": "p-2", "completed": false, "score": 300}]});
    let file = format!("{}\n{quick}\n", seed_record(24, 0));
    std::fs::write(dir.join("m.jsonl"), file).expect("write");
    assert!(podium(&dir, &["replay", "m.jsonl"], b"").status.success());
    let rewards = r#"{"mahjong-weekly": {"bands": [{"ranks": [1, 1], "points": 100}]}}"#;
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_podium"));
    let out = cmd
        .arg("snapshot")
        .current_dir(&dir)
        .env("PODIUM_DATA", dir.join("podium.redb"))
        .env_remove("AWS_ENDPOINT_URL_DYNAMODB")
        .env_remove("RUST_LOG")
        .env("PODIUM_TEST_CLOCK", CLOCK)
        .env("PODIUM_PERIOD_REWARDS", rewards)
        .output()
        .expect("podium snapshot");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(stderr.trim().is_empty(), "quiet by default: {stderr}");
    assert!(text.starts_with("snapshot at 2026-11-30T12:00:00Z\n"), "{text}");
    assert!(text.lines().count() <= 15, "short: {text}");
    assert!(text.contains("frozen and closed"), "{text}");
    // The week of the Quick Match closed: its winner's result sent, with the reward.
    assert!(
        text.contains("mahjong-weekly: ")
            && text.contains("period_result messages, 1 with a reward (100 points)"),
        "{text}"
    );
    assert!(
        text.contains("mahjong-daily: ") && text.contains("no reward table"),
        "{text}"
    );
    assert!(
        text.contains("league       mahjong-league: 2026-W44 … 2026-W48 (5) closed: 1 placed"),
        "{text}"
    );
    assert!(text.contains("refreshed") && text.contains("seega"), "{text}");
    assert!(text.contains("messages     "), "{text}");
    // Run again: nothing left to close, nothing sent twice.
    let again = podium(&dir, &["snapshot"], b"");
    let again = String::from_utf8_lossy(&again.stdout).to_string();
    assert!(again.contains("periods      none to close"), "{again}");
    assert!(again.contains("messages     0 sent"), "{again}");
}

/// GM-6: the refusal of an id with nothing stored says how to block it anyway.
#[test]
fn delete_player_refusal_names_the_option() {
    let dir = data_dir("delete-unknown");
    let out = podium(&dir, &["delete-player", "nobody-here"], b"");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("no such player"), "{stderr}");
    assert!(
        stderr.contains("podium delete-player --even-if-unknown nobody-here"),
        "{stderr}"
    );
}

/// `podium serve --demo`: every game's records loaded into its own store, snapshots
/// taken, each game's board served with its players' cards and movement (PF-5); a 401
/// names the development header.
#[test]
fn serve_demo_loads_every_game() {
    let dir = data_dir("demo");
    let port = free_port();
    let mut server = Command::new(env!("CARGO_BIN_EXE_podium"))
        .args(["serve", "--demo", "--port", &port.to_string()])
        .current_dir(&dir)
        .env("PODIUM_DATA", dir.join("not-this.redb"))
        .env_remove("AWS_ENDPOINT_URL_DYNAMODB")
        .env("PODIUM_TEST_CLOCK", CLOCK)
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("serve --demo");
    // The port is bound at once; the demo answers once it has loaded.
    let ready = (0..1200).any(|_| {
        std::thread::sleep(std::time::Duration::from_millis(100));
        std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
            && http(port, "GET", "/v1/openapi.json", None).0 == 200
    });
    let mut pages = Vec::new();
    if ready {
        for (who, board) in [
            ("p-00001", "seega"),
            ("r-00001", "dots-and-boxes"),
            ("r-00001", "minesweeper"),
            ("m-00001", "mahjong-weekly"),
            ("m-00001", "mahjong-level-1"),
        ] {
            let auth = format!("Dev {who}");
            pages.push((
                board,
                http(
                    port,
                    "GET",
                    &format!("/v1/leaderboards/{board}?limit=3"),
                    Some(&auth),
                ),
            ));
        }
        pages.push(("401", http(port, "GET", "/v1/leaderboards/seega", None)));
    }
    // A second demo in the same directory is refused: it would replace the store
    // being served.
    let second = ready.then(|| {
        podium_with(
            &dir,
            &["serve", "--demo", "--port", &free_port().to_string()],
            b"",
            &[],
        )
    });
    let _ = server.kill();
    let out = server.wait_with_output().expect("output");
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    if let Some(second) = &second {
        assert!(!second.status.success());
        assert!(
            String::from_utf8_lossy(&second.stderr).contains("another podium serve --demo is running"),
            "{}",
            String::from_utf8_lossy(&second.stderr)
        );
    }
    assert!(
        ready,
        "the demo did not serve: {stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for game in ["Seega", "Dots and Boxes", "Minesweeper duel", "Mahjong Rivals"] {
        assert!(stdout.contains(&format!("  {game} ")), "{game}: {stdout}");
    }
    assert!(stdout.contains("tournament   cup-42-"), "{stdout}");
    assert!(stdout.contains("Authorization: Dev "), "{stdout}");
    for (board, (status, body)) in &pages {
        if *board == "401" {
            assert_eq!(*status, 401, "{body}");
            assert!(body.contains("Authorization: Dev <player-id>"), "{body}");
            continue;
        }
        assert_eq!(*status, 200, "{board}: {body}");
        let v: Value = serde_json::from_str(body).expect("json");
        assert!(
            v["snapshot"].is_string(),
            "{board}: served from a snapshot: {body}"
        );
        assert_eq!(v["entries"].as_array().map(Vec::len), Some(3), "{board}: {body}");
        // PF-5: every entry carries its player's card and, on a board snapshotted
        // twice, how far they moved.
        for e in v["entries"].as_array().into_iter().flatten() {
            for field in ["name", "avatar", "country"] {
                assert!(e[field].is_string(), "{board}: {field} on every entry: {body}");
            }
            if *board == "seega" {
                assert!(
                    e["movement"]["since_previous"].is_i64(),
                    "{board}: movement: {body}"
                );
            }
        }
    }
    assert!(dir.join("podium-data/demo/podium.redb").exists());
    assert!(
        !dir.join("not-this.redb").exists(),
        "the demo keeps to its own store"
    );
}

/// GDPR Art. 15/20, LB-5, OP-2: `podium export-player` prints everything stored about
/// a player; `podium replay` holds a line breaking a plausibility check; `podium
/// close-period` says what a close would send (dry run), then closes once.
#[test]
fn export_hold_and_close_period() {
    let dir = data_dir("operators");
    let completion = json!({"completion_id": "c-fast", "game": "mahjong-rivals", "kind": "level-completion",
        "player_id": "winner", "level": 1, "time_ms": 1000, "completed_at": "2026-11-29T10:00:00Z", "jokers_used": 0});
    let lines = format!("{}\n{}\n", seed_record(24, 0), completion);
    std::fs::write(dir.join("season.jsonl"), lines).expect("write");
    let checks = [(
        "PODIUM_PLAUSIBILITY",
        r#"{"mahjong_level_floor_ms": {"default": 5000}}"#,
    )];
    let out = podium_with(&dir, &["replay", "season.jsonl"], b"", &checks);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("held        1"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let out = podium(&dir, &["export-player", "winner"], b"");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let export: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(export["ledger"].as_array().map(Vec::len), Some(1));
    assert_eq!(export["held"][0]["id"], "c-fast");
    assert_eq!(
        podium(&dir, &["export-player", "nobody"], b"").status.code(),
        Some(2)
    );
    let rewards = [(
        "PODIUM_PERIOD_REWARDS",
        r#"{"mahjong-daily": {"bands": [{"ranks": [1, 1], "points": 50}]}}"#,
    )];
    let args = [
        "close-period",
        "mahjong-daily",
        "2026-11-28",
        "--reason",
        "the tick was off",
    ];
    let dry = podium_with(&dir, &[&args[..], &["--dry-run"]].concat(), b"", &rewards);
    assert!(dry.status.success(), "{}", String::from_utf8_lossy(&dry.stderr));
    let dry: Value = serde_json::from_slice(&dry.stdout).expect("JSON");
    assert_eq!(
        (dry["dry_run"].clone(), dry["sent"].clone()),
        (json!(true), json!(0))
    );
    let applied = podium_with(&dir, &args, b"", &rewards);
    assert!(
        applied.status.success(),
        "{}",
        String::from_utf8_lossy(&applied.stderr)
    );
    let applied: Value = serde_json::from_slice(&applied.stdout).expect("JSON");
    // The dry run froze the day first, as a close would.
    assert_eq!(applied["was_frozen"], json!(true));
    let early = podium_with(
        &dir,
        &[
            "close-period",
            "mahjong-daily",
            "2026-11-30",
            "--reason",
            "too early",
        ],
        b"",
        &rewards,
    );
    assert_eq!(
        early.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&early.stderr)
    );
}

/// `method path` with a JSON `body` as `auth`: the status and the body as JSON.
fn http_json(port: u16, method: &str, path: &str, auth: &str, body: &Value) -> (u16, Value) {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).expect("connect");
    let body = body.to_string();
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: localhost\r\nAuthorization: {auth}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .expect("send");
    let mut reply = String::new();
    stream.read_to_string(&mut reply).expect("read");
    let status = reply
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let body = reply.split_once("\r\n\r\n").map(|(_, b)| b).unwrap_or_default();
    (status, serde_json::from_str(body).unwrap_or(Value::Null))
}

/// `podium serve --test-clock START` on the store `env` names (none: the embedded store
/// in `dir`), answering Seega's ad callbacks with the keys in `dir/keys` and paying the
/// weekly board's top 3; killed when dropped.
struct ClockServer {
    child: std::process::Child,
    port: u16,
}

impl ClockServer {
    /// Started and answering `GET /v1/dev/clock`, waited for up to 30 s while it runs;
    /// started again (up to three times, each on a port of its own) when it exits
    /// first: a free port is only free when asked, and a server whose store did not
    /// answer its start-up in time (a busy DynamoDB Local, the impatient timeouts of
    /// a stall test) exits. Its standard error is in `dir/serve.log`.
    fn start(dir: &PathBuf, start: &str, env: &[(&str, &str)]) -> Self {
        let mut why = String::new();
        for _ in 0..3 {
            let mut server = Self::spawn(dir, start, env);
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
            while std::time::Instant::now() < deadline && server.child.try_wait().ok().flatten().is_none() {
                let answered = std::net::TcpStream::connect(("127.0.0.1", server.port)).is_ok()
                    && std::panic::catch_unwind(|| server.call("GET", "/v1/dev/clock", "m-1").0)
                        .is_ok_and(|status| status == 200);
                if answered {
                    return server;
                }
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
            drop(server);
            why = std::fs::read_to_string(dir.join("serve.log")).unwrap_or_default();
        }
        panic!("podium serve --test-clock does not answer; its last start said:\n{why}");
    }

    fn spawn(dir: &PathBuf, start: &str, env: &[(&str, &str)]) -> Self {
        let port = free_port();
        let catalogue =
            r#"{"units": {"admob:5224354917": {"reward": "daily_points", "game": "seega", "points": 40}}}"#;
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_podium"));
        cmd.args(["--test-clock", start, "serve", "--port", &port.to_string()])
            .current_dir(dir)
            .env("PODIUM_DATA", dir.join("podium.redb"))
            .env_remove("AWS_ENDPOINT_URL_DYNAMODB")
            .env_remove("PODIUM_TEST_CLOCK")
            .env("PODIUM_AD_CATALOGUE", catalogue)
            .env("PODIUM_ADMOB_KEYS_FILE", dir.join("keys/verifier-keys.json"))
            .env(
                "PODIUM_PERIOD_REWARDS",
                r#"{"mahjong-weekly": {"bands": [{"ranks": [1, 3], "points": 100}]}}"#,
            )
            .env("RUST_LOG", "warn")
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(dir.join("serve.log")).map_or_else(|_| Stdio::null(), Stdio::from));
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("serve");
        for _ in 0..200 {
            std::thread::sleep(std::time::Duration::from_millis(50));
            if child.try_wait().ok().flatten().is_some()
                || std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
            {
                break;
            }
        }
        ClockServer { child, port }
    }

    /// Moves the clock (`{"advance": …}` or `{"set": …}`): what the move did.
    fn moved(&self, how: Value) -> Value {
        let (status, body) = http_json(self.port, "POST", "/v1/dev/clock", "Dev m-1", &how);
        assert_eq!(status, 200, "{how}: {body}");
        body
    }

    fn call(&self, method: &str, path: &str, player: &str) -> (u16, Value) {
        http_json(self.port, method, path, &format!("Dev {player}"), &Value::Null)
    }
}

impl Drop for ClockServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The test clock's cases on one store (`env`: the DynamoDB environment, or none):
/// - MJ-18: a daily-bonus streak of 12 days claimed across Bucharest's DST change of
///   2027-03-28 (10, 20, … 100, 100, 100; a Joker on day 10), a missed day, then 10;
/// - LB-5: advancing past Sunday midnight freezes and closes the week once: one
///   `period_result` message per week however many moves follow;
/// - SG-10: the ad reward once per UTC day, granted again just after midnight;
/// - MJ-20: advancing a year drops the AMR's days one by one, 400 days all of them.
fn test_clock_cases(dir: &PathBuf, env: &[(&str, &str)], long_moves: bool) {
    assert_eq!(
        podium_with(dir, &["ad-keys", "keys"], b"", env).status.code(),
        Some(0)
    );
    let line = seed_record(24, 0).to_string();
    std::fs::write(dir.join("one.jsonl"), format!("{line}\n")).expect("write");
    assert_eq!(
        podium_with(dir, &["replay", "one.jsonl"], b"", env).status.code(),
        Some(0)
    );
    // Thursday 2027-03-18, 08:00 in Bucharest.
    let server = ClockServer::start(dir, "2027-03-18T06:00:00Z", env);
    let (status, shown) = server.call("GET", "/v1/dev/clock", "m-1");
    assert_eq!(
        (status, shown["now"].clone()),
        (200, json!("2027-03-18T06:00:00Z"))
    );

    let mut points = Vec::new();
    let mut closed: Vec<String> = Vec::new();
    for day in 1..=12 {
        let (status, claim) = server.call("POST", "/v1/games/mahjong-rivals/daily-bonus", "m-1");
        assert_eq!(status, 200, "day {day}: {claim}");
        points.push(claim["points"].as_i64().unwrap_or_default());
        if day == 10 {
            assert_eq!(claim["jokers_granted"], 1, "{claim}");
        }
        let moved = server.moved(json!({"advance": "P1D"}));
        closed.extend(
            moved["periods_closed"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|p| p.as_str().map(String::from)),
        );
    }
    assert_eq!(points, [10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 100, 100]);
    // 2027-03-30 missed: the streak starts again.
    server.moved(json!({"advance": "P1D"}));
    let (_, before) = server.call("GET", "/v1/leaderboards/mahjong-daily", "m-1");
    let (_, claim) = server.call("POST", "/v1/games/mahjong-rivals/daily-bonus", "m-1");
    assert_eq!(
        (claim["streak"].clone(), claim["points"].clone()),
        (json!(1), json!(10)),
        "{claim}"
    );
    // The board read right after a move is the snapshot the move published, though
    // the one before it was read (and cached) a moment earlier.
    server.moved(json!({"advance": "PT1M"}));
    let (_, after) = server.call("GET", "/v1/leaderboards/mahjong-daily", "m-1");
    assert_ne!(before["snapshot"], after["snapshot"], "{before} {after}");
    assert_eq!(after["entries"][0]["player_id"], "m-1", "{after}");
    assert_eq!(after["entries"][0]["value"], 10, "{after}");
    // The weeks ending on Sunday 2027-03-21 and on Sunday 2027-03-28 (a 23-hour day) closed once each.
    for week in ["mahjong-weekly@2027-W11", "mahjong-weekly@2027-W12"] {
        assert_eq!(
            closed.iter().filter(|p| *p == week).count(),
            1,
            "{week}: {closed:?}"
        );
    }
    // Each week's results and league results, once, sent at the week's freeze (a
    // minute after Bucharest midnight: 22:01Z in winter time, 21:01Z in summer time).
    let (_, inbox) = server.call("GET", "/v1/me/inbox", "m-1");
    let mut sent: Vec<(String, String, String)> = inbox["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|m| {
            let field = |k: &str| m[k].as_str().unwrap_or_default().to_string();
            (field("kind"), field("period"), field("at"))
        })
        .collect();
    sent.sort();
    let expected: Vec<(String, String, String)> = [
        ("league_result", "2027-W11", "2027-03-21T22:01:00Z"),
        ("league_result", "2027-W12", "2027-03-28T21:01:00Z"),
        ("period_result", "2027-W11", "2027-03-21T22:01:00Z"),
        ("period_result", "2027-W12", "2027-03-28T21:01:00Z"),
    ]
    .iter()
    .map(|(k, p, a)| (k.to_string(), p.to_string(), a.to_string()))
    .collect();
    assert_eq!(sent, expected, "{inbox}");

    // SG-10: one ad reward per UTC day, across midnight.
    server.moved(json!({"set": "2027-03-31T23:50:00Z"}));
    let sign = |txn: &str, at: &str| {
        let ms = chrono::DateTime::parse_from_rfc3339(at)
            .expect("instant")
            .timestamp_millis();
        format!(
            "/v1/ad-callbacks/admob?{}",
            signed_callback(dir, txn, Some(ms), env)
        )
    };
    let first = server.call("GET", &sign("tc-1", "2027-03-31T23:50:00Z"), "winner");
    server.moved(json!({"advance": "PT5M"}));
    let again = server.call("GET", &sign("tc-2", "2027-03-31T23:55:00Z"), "winner");
    server.moved(json!({"advance": "PT10M"}));
    let next_day = server.call("GET", &sign("tc-3", "2027-04-01T00:05:00Z"), "winner");
    assert_eq!(first.1["status"], "granted", "{}", first.1);
    assert_eq!(again.1["status"], "already_granted_today", "{}", again.1);
    assert_eq!(next_day.1["status"], "granted", "{}", next_day.1);

    // MJ-20: the AMR's days leave it a year on (see `amr_window_moves_out`). Moves of a
    // year and more run every day's ticks, the same code on either store (the moves
    // above ran them on this one): three minutes of DynamoDB Local, so on the embedded
    // store only.
    if long_moves {
        amr_window_moves_out(&server);
    }

    // Refused, naming the field, and nothing moved: a move over the bound (before
    // anything runs), backwards, nonsense, no identity.
    let (_, shown) = server.call("GET", "/v1/dev/clock", "m-1");
    for (auth, how, status, starts) in [
        (
            "Dev m-1",
            json!({"advance": "P1500D"}),
            400,
            "advance: a move may span at most 1200",
        ),
        (
            "Dev m-1",
            json!({"set": "2027-01-01T00:00:00Z"}),
            400,
            "set: the clock moves forward only",
        ),
        ("Dev m-1", json!({"advance": "P1M"}), 400, "advance:"),
        // An array of the fields is no object (serde would read one).
        ("Dev m-1", json!([]), 400, "body: a JSON object with \"advance\""),
        ("Bearer x", json!({"advance": "PT1H"}), 401, "unauthenticated"),
    ] {
        let (got, body) = http_json(server.port, "POST", "/v1/dev/clock", auth, &how);
        let message = body["message"].as_str().unwrap_or_default();
        assert_eq!(got, status, "{how}: {body}");
        assert!(message.starts_with(starts), "{how}: {body}");
        assert_eq!(server.call("GET", "/v1/dev/clock", "m-1").1, shown, "{how}");
    }
}

/// MJ-20: the AMR holds 2027-03-18 … 2028-03-16 while it is 2028-03-16 in Bucharest;
/// at its midnight 2027-03-18's 10 points leave, the next day 2027-03-19's 20, and
/// 400 days on every day has left it.
fn amr_window_moves_out(server: &ClockServer) {
    let amr = |server: &ClockServer| {
        let (status, me) = server.call("GET", "/v1/leaderboards/mahjong-amr/me?neighbours=0", "m-1");
        match status {
            200 => me["me"]["value"].as_i64().unwrap_or(-1),
            404 => 0,
            _ => panic!("{status}: {me}"),
        }
    };
    assert_eq!(amr(server), 760);
    server.moved(json!({"set": "2028-03-16T21:00:00Z"}));
    assert_eq!(amr(server), 760, "23:00 on 2028-03-16 in Bucharest");
    server.moved(json!({"advance": "PT2H"}));
    assert_eq!(amr(server), 750, "2027-03-18 left the window");
    server.moved(json!({"advance": "P1D"}));
    assert_eq!(amr(server), 730, "2027-03-19 left the window");
    server.moved(json!({"advance": "P400D"}));
    assert_eq!(amr(server), 0, "every day left the window");
}

#[test]
fn the_test_clock_on_the_embedded_store() {
    let dir = data_dir("test-clock-embedded");
    test_clock_cases(&dir, &[], true);
}

/// A request made while the test clock moves waits for it: a daily-bonus claim sent
/// a moment after a 120-day move started is the claim of the move's last day, and
/// counts on that day's board (not on a day the move was passing through).
#[test]
fn a_request_during_a_move_waits_for_it() {
    let dir = data_dir("test-clock-gate");
    assert_eq!(podium(&dir, &["ad-keys", "keys"], b"").status.code(), Some(0));
    let server = ClockServer::start(&dir, "2027-03-18T06:00:00Z", &[]);
    let port = server.port;
    let mover = std::thread::spawn(move || {
        http_json(
            port,
            "POST",
            "/v1/dev/clock",
            "Dev m-1",
            &json!({"advance": "P120D"}),
        )
    });
    std::thread::sleep(std::time::Duration::from_millis(150));
    let (status, claim) = server.call("POST", "/v1/games/mahjong-rivals/daily-bonus", "m-2");
    let (moved, body) = mover.join().expect("mover");
    assert_eq!((moved, status), (200, 200), "{body} {claim}");
    assert_eq!(body["now"], "2027-07-16T06:00:00Z", "{body}");
    assert_eq!(claim["day"], "2027-07-16", "the move's last day: {claim}");
}

#[test]
fn the_test_clock_on_dynamodb() {
    let endpoint = test_dynamodb_endpoint();
    let dir = data_dir("test-clock-dynamodb");
    let env = with_table(on_dynamodb(&endpoint), "podium-test-clock");
    test_clock_cases(&dir, &refs(&env), false);
}

/// A loopback TCP proxy to `upstream` that can be made to stall: while stalled it
/// drops the connections it carries and holds new ones unanswered (a store that stops
/// answering part way through a request's work).
struct StallingProxy {
    port: u16,
    stalled: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl StallingProxy {
    fn start(upstream: &str) -> Self {
        use std::sync::atomic::{AtomicBool, Ordering};
        use std::sync::Arc;
        let upstream = upstream
            .trim_start_matches("http://")
            .trim_end_matches('/')
            .to_string();
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let stalled = Arc::new(AtomicBool::new(false));
        let flag = stalled.clone();
        std::thread::spawn(move || {
            let mut held = Vec::new();
            for client in listener.incoming().flatten() {
                if flag.load(Ordering::SeqCst) {
                    held.push(client);
                    continue;
                }
                held.clear();
                let Ok(server) = std::net::TcpStream::connect(&upstream) else {
                    continue;
                };
                for (from, to) in [
                    (client.try_clone(), server.try_clone()),
                    (server.try_clone(), client.try_clone()),
                ] {
                    let (Ok(mut from), Ok(mut to)) = (from, to) else {
                        continue;
                    };
                    let flag = flag.clone();
                    std::thread::spawn(move || {
                        use std::io::{Read, Write};
                        let mut buf = [0u8; 16 * 1024];
                        loop {
                            let n = match from.read(&mut buf) {
                                Ok(0) | Err(_) => break,
                                Ok(n) => n,
                            };
                            if flag.load(Ordering::SeqCst) || to.write_all(&buf[..n]).is_err() {
                                break;
                            }
                        }
                        let _ = from.shutdown(std::net::Shutdown::Both);
                        let _ = to.shutdown(std::net::Shutdown::Both);
                    });
                }
            }
        });
        StallingProxy { port, stalled }
    }

    fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    fn stall(&self, stalled: bool) {
        self.stalled.store(stalled, std::sync::atomic::Ordering::SeqCst);
    }
}

/// A move during which the store stops answering ends with a 503 naming where the
/// clock stands: the last instant whose scheduled jobs all ran (no later instant was
/// shown to any request). Moved again once the store answers, it runs the rest, and
/// each week still closes once, its results sent once at its own freeze instant
/// (LB-5). The move spans three months: long enough that the store stalls in its
/// middle, short enough for CI (the AMR's days leaving a year on, MJ-20, are checked
/// by `test_clock_cases` on both stores).
#[test]
fn a_move_the_store_fails_during_goes_on_from_its_last_whole_tick() {
    let endpoint = test_dynamodb_endpoint();
    let proxy = StallingProxy::start(&endpoint);
    let dir = data_dir("test-clock-stall");
    let env = with_table(
        on_dynamodb_impatient(&proxy.endpoint()),
        "podium-test-clock-stall",
    );
    let env = refs(&env);
    assert_eq!(
        podium_with(&dir, &["ad-keys", "keys"], b"", &env).status.code(),
        Some(0)
    );
    let server = ClockServer::start(&dir, "2027-03-18T06:00:00Z", &env);
    let (status, claim) = server.call("POST", "/v1/games/mahjong-rivals/daily-bonus", "m-1");
    assert_eq!(status, 200, "{claim}");

    let port = server.port;
    let mover = std::thread::spawn(move || {
        http_json(
            port,
            "POST",
            "/v1/dev/clock",
            "Dev m-1",
            &json!({"set": STALL_MOVE_TO}),
        )
    });
    std::thread::sleep(std::time::Duration::from_millis(1_500));
    proxy.stall(true);
    let (status, failed) = mover.join().expect("mover");
    proxy.stall(false);
    assert_eq!(
        (status, failed["error"].as_str()),
        (503, Some("unavailable")),
        "{failed}"
    );
    let message = failed["message"].as_str().unwrap_or_default();
    assert!(message.contains("move it again"), "{failed}");
    let (_, shown) = server.call("GET", "/v1/dev/clock", "m-1");
    assert_eq!(shown["now"], failed["now"], "{failed} {shown}");
    let stood = shown["now"].as_str().unwrap_or_default().to_string();
    assert!(
        stood.as_str() >= "2027-03-18T06:00:00Z" && stood.as_str() < STALL_MOVE_TO,
        "{stood}"
    );

    // The store answers again: moving on goes from where the clock stood. With this
    // test's short timeouts (300 ms an attempt) a busy DynamoDB Local can fail a move
    // again; each failure keeps what it reached and the next move goes on from there,
    // as the message says (on a loaded 2-core machine a move of three months can take
    // several such steps: up to 20, each one asserted to go on from the last).
    let mut reached = stood.clone();
    let moved = (0..20)
        .find_map(|_| {
            let how = json!({"set": STALL_MOVE_TO});
            let (status, body) = http_json(port, "POST", "/v1/dev/clock", "Dev m-1", &how);
            if status == 200 {
                assert_eq!(body["from"], json!(reached), "{body}");
                return Some(body);
            }
            assert_eq!(
                (status, body["error"].as_str()),
                (503, Some("unavailable")),
                "{body}"
            );
            let now = body["now"].as_str().unwrap_or_default().to_string();
            assert!(
                now >= reached,
                "a failed move never goes back: {reached} then {body}"
            );
            reached = now;
            None
        })
        .expect("the clock moves once the store answers");
    assert!(moved["from"].as_str() >= Some(stood.as_str()), "{moved}");
    let (_, inbox) = server.call("GET", "/v1/me/inbox", "m-1");
    let mut sent: Vec<String> = inbox["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|m| {
            let field = |k: &str| m[k].as_str().unwrap_or_default().to_string();
            format!("{} {} {}", field("kind"), field("period"), field("at"))
        })
        .collect();
    sent.sort();
    assert_eq!(
        sent,
        [
            "league_result 2027-W11 2027-03-21T22:01:00Z",
            "period_result 2027-W11 2027-03-21T22:01:00Z",
        ],
        "{inbox}"
    );
    let (_, shown) = server.call("GET", "/v1/dev/clock", "m-1");
    assert_eq!(shown["now"], STALL_MOVE_TO, "{shown}");
}

/// Where the stall test moves its clock: three months on (the store stalls 1.5 s
/// into a move that takes tens of seconds on DynamoDB Local).
const STALL_MOVE_TO: &str = "2027-06-18T06:00:00Z";

/// Without `--test-clock` there is no clock to move: the route does not exist.
#[test]
fn without_a_test_clock_the_route_does_not_exist() {
    let (mut server, port) = serve_quietly("no-test-clock");
    let post = http_json(
        port,
        "POST",
        "/v1/dev/clock",
        "Dev m-1",
        &json!({"advance": "PT1H"}),
    );
    let get = http_json(port, "GET", "/v1/dev/clock", "Dev m-1", &Value::Null);
    let _ = server.kill();
    let _ = server.wait();
    assert_eq!((post.0, get.0), (404, 404), "{post:?} {get:?}");
}

/// A Seega win of `winner` over `loser` (24 to 0, SG-8), ended `minute` minutes after
/// 2026-11-29T10:00Z.
fn seega_win(match_id: &str, winner: &str, loser: &str, minute: i64) -> String {
    let start = chrono::DateTime::parse_from_rfc3339("2026-11-29T10:00:00Z").expect("instant")
        + chrono::Duration::minutes(minute);
    let end = start + chrono::Duration::minutes(5);
    json!({
        "match_id": match_id, "game": "seega",
        "started_at": start.to_rfc3339(), "ended_at": end.to_rfc3339(),
        "players": [
            {"player_id": winner, "moves": 20, "stones_on_board": 24, "stones_in_hand": 0},
            {"player_id": loser, "moves": 20, "stones_on_board": 0, "stones_in_hand": 0}
        ],
        "stones_placed": 48,
        "outcome": {"result": "win", "winner": winner, "reason": "completed"}
    })
    .to_string()
}

/// LIVE-1 … LIVE-3 through `podium serve`'s `/v1/live`: a watched board's refresh and
/// an `overtaken` message written by other processes (`podium replay`, `podium
/// snapshot`) are pushed within a second, the message exactly as the inbox serves it;
/// the inbox `since` it reads nothing more; no identity and a malformed one cannot
/// connect; a watch of an unknown board is refused naming it; a suspension closes the
/// player's connection within a second and refuses the next (403).
#[test]
fn live_feed_pushes_what_other_processes_write() {
    use futures::{SinkExt, StreamExt};
    use tokio_tungstenite::tungstenite::Message;
    let dir = data_dir("live-feed");
    let port = free_port();
    // Ana on top, bob listed below her (a pass is by a player listed behind).
    replay_and_refresh(
        &dir,
        "first.jsonl",
        &[
            seega_win("live-1", "ana", "x-1", 0),
            seega_win("live-0", "x-0", "bob", 1),
        ],
        0,
    );
    // Started after the first refresh: its stream is read from its end on.
    let _server = live_server(&dir, port);
    wait_until_serving(port);
    let url = |q: &str| format!("ws://127.0.0.1:{port}/v1/live{q}");
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    runtime.block_on(async {
        // Refused before the upgrade: no identity, a malformed one.
        for q in ["", "?token=Dev%20bad%20id!", "?token=Bearer%20x"] {
            match tokio_tungstenite::connect_async(url(q)).await {
                Err(tokio_tungstenite::tungstenite::Error::Http(r)) => assert_eq!(r.status(), 401, "{q}"),
                other => panic!("{q}: refused with 401, got {:?}", other.map(|_| ())),
            }
        }
        let (mut ws, _) = tokio_tungstenite::connect_async(url("?token=Dev%20ana"))
            .await
            .expect("ana connects");
        async fn frame<S>(ws: &mut S) -> Value
        where
            S: futures::Stream<Item = Result<Message, tokio_tungstenite::tungstenite::Error>> + Unpin,
        {
            let wait = std::time::Duration::from_secs(1);
            loop {
                match tokio::time::timeout(wait, ws.next()).await {
                    Ok(Some(Ok(Message::Text(t)))) => return serde_json::from_str(&t).expect("a JSON frame"),
                    Ok(Some(Ok(_))) => continue,
                    other => panic!("a frame within a second, got {other:?}"),
                }
            }
        }
        ws.send(Message::Text(
            r#"{"action": "watch", "boards": [{"board": "chess"}]}"#.into(),
        ))
        .await
        .expect("send");
        let refused = frame(&mut ws).await;
        assert_eq!(refused["type"], "error");
        assert!(
            refused["message"]
                .as_str()
                .unwrap_or("")
                .starts_with("boards[0].board (LIVE-2): no board `chess`"),
            "{refused}"
        );
        ws.send(Message::Text(
            r#"{"action": "watch", "boards": [{"board": "seega"}]}"#.into(),
        ))
        .await
        .expect("send");
        assert_eq!(frame(&mut ws).await["type"], "watching");
        ws.send(Message::Text(r#"{"action": "ping"}"#.into()))
            .await
            .expect("send");
        assert_eq!(frame(&mut ws).await, json!({"type": "pong"}));
        // A second server on the same store reads the same stream: it leaves the first
        // one's connections alone (not its own, not gone).
        let other_port = free_port();
        let _other = live_server(&dir, other_port);
        wait_until_serving(other_port);
        // Bob passes ana; another process refreshes the board.
        replay_and_refresh(
            &dir,
            "second.jsonl",
            &[
                seega_win("live-2", "bob", "x-2", 10),
                seega_win("live-3", "bob", "x-3", 20),
            ],
            2,
        );
        let mut got = vec![frame(&mut ws).await, frame(&mut ws).await];
        got.sort_by_key(|f| f["type"].as_str().unwrap_or("").to_string());
        assert!(
            tokio::time::timeout(std::time::Duration::from_millis(500), ws.next())
                .await
                .is_err(),
            "nothing more"
        );
        assert_eq!(got[0]["type"], "board_changed", "{got:?}");
        assert_eq!(
            (&got[0]["board"], &got[0]["view"]),
            (&json!("seega"), &json!("global"))
        );
        assert_eq!(got[1]["type"], "message", "{got:?}");
        // A page fetched on the notice is the new snapshot's: its ETag begins with it.
        let snapshot = got[0]["snapshot"].as_str().expect("snapshot").to_string();
        let reply = {
            use std::io::{Read, Write};
            let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).expect("connect");
            write!(stream, "GET /v1/leaderboards/seega HTTP/1.1\r\nHost: localhost\r\nAuthorization: Dev ana\r\nConnection: close\r\n\r\n").expect("send");
            let mut reply = String::new();
            stream.read_to_string(&mut reply).expect("read");
            reply
        };
        let etag = reply
            .lines()
            .find_map(|l| l.strip_prefix("etag: "))
            .unwrap_or_else(|| panic!("an ETag: {reply}"));
        assert!(etag.starts_with(&format!("\"{snapshot}.")), "{etag} after {snapshot}");
        let (status, inbox) = http(port, "GET", "/v1/me/inbox", Some("Dev ana"));
        assert_eq!(status, 200);
        let inbox: Value = serde_json::from_str(&inbox).expect("json");
        assert_eq!(got[1]["message"], inbox["messages"][0], "as the inbox serves it");
        assert_eq!(got[1]["message"]["kind"], "overtaken");
        let id = got[1]["message"]["id"].as_str().expect("id").to_string();
        ws.send(Message::Text(
            r#"{"action": "watch", "boards": [{"board": "seega"}]}"#.into(),
        ))
        .await
        .expect("send");
        assert_eq!(
            frame(&mut ws).await["type"],
            "watching",
            "still connected: the second server left it"
        );
        let (_, since) = http(port, "GET", &format!("/v1/me/inbox?since={id}"), Some("Dev ana"));
        let since: Value = serde_json::from_str(&since).expect("json");
        assert_eq!(
            (&since["since_found"], &since["messages"]),
            (&json!(true), &json!([]))
        );
        // Suspended (OP-4): the open connection is closed, a new one refused.
        let (status, _) = http_json(
            port,
            "POST",
            "/v1/operator/players/ana/suspend",
            "Operator support",
            &json!({"reason": "reported for a modified client"}),
        );
        assert!(status == 200 || status == 202, "suspended: {status}");
        let closed = tokio::time::timeout(std::time::Duration::from_secs(1), async {
            loop {
                match ws.next().await {
                    Some(Ok(Message::Close(_))) | None | Some(Err(_)) => return,
                    Some(Ok(_)) => continue,
                }
            }
        })
        .await;
        assert!(closed.is_ok(), "closed within a second of the suspension");
        match tokio_tungstenite::connect_async(url("?token=Dev%20ana")).await {
            Err(tokio_tungstenite::tungstenite::Error::Http(r)) => assert_eq!(r.status(), 403),
            other => panic!("refused with 403, got {:?}", other.map(|_| ())),
        }
    });
}

/// `podium serve` on `dir`'s store and `port`, killed when dropped.
fn live_server(dir: &std::path::Path, port: u16) -> KillOnDrop {
    KillOnDrop(
        Command::new(env!("CARGO_BIN_EXE_podium"))
            .args(["serve", "--port", &port.to_string()])
            .current_dir(dir)
            .env("PODIUM_DATA", dir.join("podium.redb"))
            .env_remove("AWS_ENDPOINT_URL_DYNAMODB")
            .env("PODIUM_TEST_CLOCK", CLOCK)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("podium serve"),
    )
}

/// Writes `lines` to `dir/name`, replays them, then refreshes the boards: each step
/// on the test clock `minute` minutes after [`CLOCK`] (the refresh a minute later, so
/// that a pass is a settlement after the older snapshot read the board).
fn replay_and_refresh(dir: &PathBuf, name: &str, lines: &[String], minute: i64) {
    let at = |minute: i64| (clock() + chrono::Duration::minutes(minute)).to_rfc3339();
    std::fs::write(dir.join(name), lines.join("\n") + "\n").expect("write");
    let out = podium_with(dir, &["replay", name], b"", &[("PODIUM_TEST_CLOCK", &at(minute))]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let out = podium_with(dir, &["snapshot"], b"", &[("PODIUM_TEST_CLOCK", &at(minute + 1))]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

/// A child process killed when dropped (a failed test leaves no server behind).
struct KillOnDrop(std::process::Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The resident set (peak and now, KiB) and CPU time (user + system, ms) of process
/// `pid`, from /proc.
fn process_use(pid: u32) -> (u64, u64, u64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let kib = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    };
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map(|(_, r)| r.split_whitespace().collect())
        .unwrap_or_default();
    let ticks = |i: usize| fields.get(i).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0);
    // utime and stime, fields 14 and 15 (11 and 12 after the name), in clock ticks.
    let hz = 100;
    (kib("VmHWM:"), kib("VmRSS:"), (ticks(11) + ticks(12)) * 1000 / hz)
}

/// LIVE-3 at 1,000 connections (the issue's load case): 1,000 players connected to
/// `podium serve` at once, each watching Seega; a refresh that changes the board's
/// pages (written by other processes) reaches every one of them as exactly one
/// `board_changed`. Prints the server's memory and CPU time; BENCHMARKS.md
/// ("The live feed at 1,000 connections") records a release run:
/// `cargo test --release -p podium --test cli -- live_feed_at_1000_connections --nocapture`.
#[test]
fn live_feed_at_1000_connections() {
    use futures::{SinkExt, StreamExt};
    use tokio_tungstenite::tungstenite::Message;
    const CLIENTS: usize = 1_000;
    // Two sockets a client (ours and the server's), in two processes: room for both.
    unsafe {
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) == 0 && limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max;
            libc::setrlimit(libc::RLIMIT_NOFILE, &limit);
        }
    }
    let dir = data_dir("live-load");
    let port = free_port();
    replay_and_refresh(&dir, "first.jsonl", &[seega_win("load-1", "ana", "x-1", 0)], 0);
    let server = live_server(&dir, port);
    wait_until_serving(port);
    let pid = server.0.id();
    let idle = process_use(pid);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        let started = std::time::Instant::now();
        let clients: Vec<_> = futures::stream::iter(0..CLIENTS)
            .map(|i| async move {
                let url = format!("ws://127.0.0.1:{port}/v1/live?token=Dev%20load-{i:04}");
                let (mut ws, _) = tokio_tungstenite::connect_async(url).await.expect("connect");
                ws.send(Message::Text(r#"{"action": "watch", "boards": [{"board": "seega"}]}"#.into()))
                    .await
                    .expect("send");
                match tokio::time::timeout(std::time::Duration::from_secs(30), ws.next()).await {
                    Ok(Some(Ok(Message::Text(t)))) => assert!(t.contains("\"watching\""), "{t}"),
                    other => panic!("client {i}: watching, got {other:?}"),
                }
                ws
            })
            .buffer_unordered(50)
            .collect()
            .await;
        let connected = started.elapsed();
        let before = process_use(pid);
        replay_and_refresh(&dir, "second.jsonl", &[seega_win("load-2", "bob", "x-2", 10)], 2);
        let refreshed = std::time::Instant::now();
        let got: Vec<(usize, std::time::Duration)> = futures::stream::iter(clients)
            .map(|mut ws| async move {
                let mut notices = 0;
                let mut first = None;
                // Every frame within 2 s of the last: exactly one board_changed.
                while let Ok(Some(Ok(m))) = tokio::time::timeout(std::time::Duration::from_secs(2), ws.next()).await {
                    if let Message::Text(t) = m {
                        let v: Value = serde_json::from_str(&t).expect("json");
                        assert_eq!(v["type"], "board_changed", "{v}");
                        notices += 1;
                        first.get_or_insert(refreshed.elapsed());
                    }
                }
                (notices, first.unwrap_or_default())
            })
            .buffer_unordered(CLIENTS)
            .collect()
            .await;
        let after = process_use(pid);
        let counts: std::collections::BTreeMap<usize, usize> = got.iter().fold(Default::default(), |mut m, (n, _)| {
            *m.entry(*n).or_default() += 1;
            m
        });
        assert_eq!(counts, std::collections::BTreeMap::from([(1, CLIENTS)]), "clients by notices received");
        let last = got.iter().map(|(_, t)| *t).max().unwrap_or_default();
        println!(
            "live feed, {CLIENTS} connections: connected and watching in {connected:?}; the last board_changed {last:?} after the refresh process ended; \
             server RSS {} KiB idle, {} KiB with the connections, peak {} KiB; server CPU {} ms to connect them, {} ms to push the refresh",
            idle.1, before.1, after.0, before.2 - idle.2, after.2 - before.2
        );
    });
}
