"""The support console in a real headless Chromium (Selenium), against `podium serve`
on a store seeded with tests/console/seed.jsonl (run by scripts/console-test).

Environment: PODIUM_CONSOLE_URL (the server's base URL), PODIUM_CONSOLE_ARTIFACTS
(where the screenshot goes), CHROMIUM (default /usr/bin/chromium), CHROMEDRIVER
(default /usr/bin/chromedriver).

Expected values follow from the seed (Seega points SG-1 … SG-9 with the floor SG-7,
ranks SG-12, Quick Match points MJ-7; each ledger row shows the rule it records):
  alice: c-m1 +311 → 311, c-m3 +252 → 563, c-m4 −76 → 487; Quick Match c-qm1 +20 → 20
  bob:   c-m1 −123 cut to 0 by the floor (SG-7), c-m2 +276 → 276, c-m6 +253 → 529
  seega board: 1 bob 529, 2 alice 487, 3 carol 244, 4 dave 0
  carol's level completion c-lv1 (1 s, under the configured 5 s floor) is held (OP-2)
"""

import json
import os
import sys
import tempfile
import unittest
import urllib.request

from selenium import webdriver
from selenium.common.exceptions import SessionNotCreatedException, StaleElementReferenceException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

BASE = os.environ.get("PODIUM_CONSOLE_URL", "http://127.0.0.1:8080").rstrip("/")
ARTIFACTS = os.environ.get("PODIUM_CONSOLE_ARTIFACTS", "target/console-artifacts")
MINUS = "\u2212"
# scripts/console-test replays the seed and serves it on this fixed clock
# (PODIUM_TEST_CLOCK): every entry is settled at it.
SETTLED = "2026-11-08 12:00:00"


def make_driver(profile_dir):
    options = webdriver.ChromeOptions()
    options.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    for arg in [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        "--window-size=1400,1900",
        f"--user-data-dir={profile_dir}",
    ]:
        options.add_argument(arg)
    service = Service(executable_path=os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver"))
    return webdriver.Chrome(service=service, options=options)


def start_driver(profile_root, attempts=3):
    """A driver, Chromium started afresh (a new profile) up to `attempts` times: on a
    loaded machine its first start can miss chromedriver's 60 s wait for DevTools."""
    for attempt in range(1, attempts + 1):
        try:
            return make_driver(os.path.join(profile_root, f"attempt-{attempt}"))
        except SessionNotCreatedException as e:
            if attempt == attempts:
                raise
            print(f"chromium did not start (attempt {attempt} of {attempts}): {e.msg}", file=sys.stderr)


def cells(table_row):
    return [td.text for td in table_row.find_elements(By.TAG_NAME, "td")]


class ConsoleTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.profile = tempfile.TemporaryDirectory(prefix="podium-console-chromium-")
        cls.driver = start_driver(cls.profile.name)
        # A table re-rendered while a condition reads it: read it again.
        cls.wait = WebDriverWait(cls.driver, 15, ignored_exceptions=(StaleElementReferenceException,))

    @classmethod
    def tearDownClass(cls):
        cls.driver.quit()
        cls.profile.cleanup()

    def open_console(self):
        self.driver.get(BASE + "/console")
        self.wait.until(lambda d: d.execute_script("return document.readyState") == "complete")

    def rows(self, table_id):
        return self.driver.find_elements(By.CSS_SELECTOR, f"#{table_id} tbody tr")

    def look_up(self, player):
        d = self.driver
        box = d.find_element(By.ID, "player-id")
        box.clear()
        box.send_keys(player)
        d.find_element(By.ID, "lookup").click()

    def wait_for_player(self, player):
        self.wait.until(
            lambda d: d.find_element(By.ID, "player").is_displayed()
            and d.find_element(By.ID, "player-title").text.startswith(player + " ")
        )

    def test_1_page_loads_with_its_chart_library(self):
        self.open_console()
        d = self.driver
        self.assertEqual(d.title, "podium support console")
        self.assertEqual(d.find_element(By.ID, "operator").get_attribute("value"), "support")
        self.assertEqual(d.execute_script("return typeof window.uPlot"), "function")

    def test_2_player_lookup_shows_balances_ledger_places_matches_and_chart(self):
        self.open_console()
        self.look_up("alice")
        self.wait_for_player("alice")
        games = {r.get_attribute("data-game"): cells(r) for r in self.rows("games")}
        self.assertEqual(games["seega"], ["seega", "487", "Member (member)", "1 star", "3"])
        self.assertEqual(games["mahjong-rivals"], ["mahjong-rivals", "20", "", "", "1"])
        self.assertEqual(games["dots-and-boxes"][1], "no account")

        ledger = [cells(r) for r in self.rows("ledger")]
        self.assertEqual(
            ledger,
            [
                [SETTLED, "2026-11-05 21:30:00", "mahjong-rivals", "quick-match", "c-qm1", "MJ-7", "+20", "+20", "20", ""],
                [SETTLED, "2026-11-05 10:20:00", "seega", "match", "c-m4", "SG-3", MINUS + "76", MINUS + "76", "487", ""],
                [SETTLED, "2026-11-04 10:12:00", "seega", "match", "c-m3", "SG-2", "+252", "+252", "563", ""],
                [SETTLED, "2026-11-02 10:05:00", "seega", "match", "c-m1", "SG-2", "+311", "+311", "311", ""],
            ],
        )

        places = {r.get_attribute("data-board"): cells(r) for r in self.rows("places")}
        self.assertEqual(places["seega"], ["seega", "all", "2", "487"])
        self.assertEqual(places["dots-and-boxes"][2], "no entry")
        self.assertEqual(
            set(places), {"seega", "dots-and-boxes", "minesweeper", "mahjong-amr", "mahjong-weekly", "mahjong-daily"}
        )

        matches = [cells(r) for r in self.rows("matches")]
        self.assertEqual([m[0] for m in matches], ["c-m4", "c-m3", "c-m1"])
        self.assertIn("alice: loss " + MINUS + "76 → 487", matches[0][4])

        charts = self.driver.find_elements(By.CSS_SELECTOR, "#chart canvas, #chart svg")
        self.assertTrue(charts, "the balance chart is drawn")
        self.assertGreater(charts[0].size["width"], 200)
        legend = self.driver.find_element(By.ID, "chart").text
        self.assertIn("seega", legend)
        self.assertIn("mahjong-rivals", legend)

        # The whole board beside the player, for the screenshot: every rank.
        self.driver.find_element(By.ID, "load-board").click()
        self.wait.until(lambda d: len(self.rows("board-entries")) == 4)
        self.assertEqual(
            [[cells(r)[i] for i in (0, 1, 4)] for r in self.rows("board-entries")],
            [["1", "bob", "529"], ["2", "alice", "487"], ["3", "carol", "244"], ["4", "dave", "0"]],
        )

        os.makedirs(ARTIFACTS, exist_ok=True)
        path = os.path.join(ARTIFACTS, "console.png")
        self.assertTrue(self.driver.save_screenshot(path), path)
        print(f"screenshot: {path}", file=sys.stderr)

    def test_3_floor_is_shown_and_unknown_players_are_reported(self):
        self.open_console()
        self.look_up("bob")
        self.wait_for_player("bob")
        first = [r for r in self.rows("ledger") if r.get_attribute("data-source") == "c-m1"]
        self.assertEqual(len(first), 1)
        self.assertEqual(cells(first[0])[6:9], [MINUS + "123", "0", "0"])
        self.assertIn("floor at zero (SG-7): SG-3 computed " + MINUS + "123", cells(first[0])[9])
        self.assertEqual(first[0].find_element(By.CSS_SELECTOR, ".floored").text, "0")
        played = {cells(r)[0]: cells(r)[4] for r in self.rows("matches")}
        self.assertIn("bob: loss " + MINUS + "123 (applied 0) → 0", played["c-m1"])

        self.look_up("nobody")
        self.wait.until(lambda d: "404" in d.find_element(By.ID, "status").text)
        self.assertIn("not_found", self.driver.find_element(By.ID, "status").text)
        self.assertFalse(self.driver.find_element(By.ID, "player").is_displayed())

        # Markup in an id stays text: nothing is parsed, nothing runs; the id is
        # refused by name (GM-5).
        self.look_up('<img src=x onerror="document.title=1">')
        self.wait.until(lambda d: "400" in d.find_element(By.ID, "status").text)
        self.assertIn("player_id (GM-5)", self.driver.find_element(By.ID, "status").text)
        self.assertEqual(self.driver.title, "podium support console")
        self.assertFalse(self.driver.find_elements(By.CSS_SELECTOR, "#status img, main img"))

    def test_3b_without_the_chart_library_the_chart_area_says_how_to_install_it(self):
        self.open_console()
        self.driver.execute_script("window.uPlot = undefined")
        self.look_up("alice")
        self.wait_for_player("alice")
        chart = self.driver.find_element(By.ID, "chart")
        self.assertIn("scripts/console-assets", chart.text)
        self.assertFalse(chart.find_elements(By.CSS_SELECTOR, "canvas"))
        self.assertEqual(len(self.rows("ledger")), 4, "the rest of the page works")

    def test_4_board_pages_with_ranks_and_next_page(self):
        # PF-1, PF-5: bob names himself; his row shows the name and country.
        req = urllib.request.Request(
            BASE + "/v1/me/profile",
            data=json.dumps({"name": "Bobby", "country": "ro"}).encode(),
            headers={"Authorization": "Dev bob", "Content-Type": "application/json"},
            method="PUT",
        )
        with urllib.request.urlopen(req, timeout=10) as r:
            self.assertEqual(json.loads(r.read())["name"], "Bobby")
        self.open_console()
        d = self.driver
        Select(d.find_element(By.ID, "board-select")).select_by_visible_text("seega")
        Select(d.find_element(By.ID, "limit")).select_by_visible_text("10")
        d.execute_script("document.getElementById('limit').add(new Option('2', '2', true, true))")
        d.find_element(By.ID, "load-board").click()
        self.wait.until(lambda d: len(self.rows("board-entries")) == 2 and cells(self.rows("board-entries")[0])[0] == "1")
        page = [cells(r) for r in self.rows("board-entries")]
        self.assertEqual(page, [["1", "bob", "Bobby", "RO", "529", "1 star"], ["2", "alice", "", "", "487", "1 star"]])
        self.assertIn("period all", d.find_element(By.ID, "board-info").text)
        nxt = d.find_element(By.ID, "next-page")
        self.assertTrue(nxt.is_enabled())
        nxt.click()
        self.wait.until(lambda d: cells(self.rows("board-entries")[0])[0] == "3")
        page = [cells(r) for r in self.rows("board-entries")]
        self.assertEqual(page, [["3", "carol", "", "", "244", "1 star"], ["4", "dave", "", "", "0", "1 star"]])
        self.assertFalse(d.find_element(By.ID, "next-page").is_enabled(), "the last page")
        # A player on the page opens their overview.
        d.find_element(By.LINK_TEXT, "carol").click()
        self.wait_for_player("carol")

    def test_5_operator_header_is_required(self):
        self.open_console()
        d = self.driver
        # A name the API refuses (not a valid id): 401, reported on the page.
        op = d.find_element(By.ID, "operator")
        op.clear()
        op.send_keys("bad name!")
        self.look_up("alice")
        self.wait.until(lambda d: "401" in d.find_element(By.ID, "status").text)

    def test_6_api_explorer_lists_every_operation_and_tries_one(self):
        """The API explorer (Swagger UI, vendored by scripts/console-assets) renders
        every operation of /v1/openapi.json and "Try it out" sends the development
        identity typed in its header."""

        with urllib.request.urlopen(BASE + "/v1/openapi.json", timeout=10) as r:
            doc = json.load(r)
        operations = sum(
            1 for item in doc["paths"].values() for m in item if m in ("get", "put", "post", "delete", "patch")
        )
        d = self.driver
        d.get(BASE + "/explorer")
        self.wait.until(lambda d: d.execute_script("return document.readyState") == "complete")
        self.assertEqual(d.title, "podium API explorer")
        self.wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, ".opblock")) == operations)
        self.assertFalse(d.find_element(By.ID, "missing").is_displayed())
        player = d.find_element(By.ID, "player")
        player.clear()
        player.send_keys("alice")
        block = next(
            b
            for b in d.find_elements(By.CSS_SELECTOR, ".opblock-get")
            if b.find_element(By.CSS_SELECTOR, ".opblock-summary-path").get_attribute("data-path") == "/v1/leaderboards/{board}/me"
        )
        block.find_element(By.CSS_SELECTOR, ".opblock-summary").click()
        field = self.wait.until(lambda d: block.find_element(By.CSS_SELECTOR, "input[placeholder='board']"))
        field.clear()
        field.send_keys("seega")
        block.find_element(By.CSS_SELECTOR, "button.execute").click()
        status = self.wait.until(
            lambda d: block.find_element(By.CSS_SELECTOR, ".live-responses-table tbody .response-col_status")
        )
        self.assertEqual(status.text.strip().split()[0], "200", status.text)
        body = block.find_element(By.CSS_SELECTOR, ".live-responses-table tbody .response-col_description pre").text
        self.assertIn('"alice"', body)
        os.makedirs(ARTIFACTS, exist_ok=True)
        d.save_screenshot(os.path.join(ARTIFACTS, "explorer.png"))

    def accept_confirmation(self):
        alert = self.wait.until(lambda d: d.switch_to.alert)
        alert.accept()

    def test_7_operator_suspends_restores_approves_and_reads_the_audit(self):
        self.open_console()
        d = self.driver
        # Suspend carol (3rd on the Seega board): gone from the board, dave closes up.
        self.look_up("carol")
        self.wait_for_player("carol")
        self.assertEqual(d.find_element(By.ID, "suspension-state").text, "active")
        reason = d.find_element(By.ID, "action-reason")
        reason.send_keys("reported for a modified client")
        d.find_element(By.ID, "suspend").click()
        self.accept_confirmation()
        self.wait.until(lambda d: d.find_element(By.ID, "suspension-state").text.startswith("SUSPENDED"))
        d.find_element(By.ID, "load-board").click()
        self.wait.until(lambda d: len(self.rows("board-entries")) == 3)
        board = [cells(r)[:2] for r in self.rows("board-entries")]
        self.assertEqual([b[1] for b in board], ["bob", "alice", "dave"])
        self.assertEqual(board[2][0], "3", "dave's rank closes up")
        # Restore her.
        reason.clear()
        reason.send_keys("the report was wrong")
        d.find_element(By.ID, "restore").click()
        self.accept_confirmation()
        self.wait.until(lambda d: d.find_element(By.ID, "suspension-state").text == "active")
        d.find_element(By.ID, "load-board").click()
        self.wait.until(lambda d: len(self.rows("board-entries")) == 4)
        # The held level completion: its check and record shown; approved.
        d.find_element(By.ID, "load-review").click()
        self.wait.until(lambda d: len(self.rows("held")) == 1)
        held = cells(self.rows("held")[0])
        self.assertEqual(held[1:5], ["level-completion", "c-lv1", "carol", "mahjong_level_floor_ms"])
        d.find_element(By.ID, "review-reason").send_keys("checked against the replay")
        self.rows("held")[0].find_element(By.CSS_SELECTOR, "button.approve").click()
        self.accept_confirmation()
        self.wait.until(lambda d: len(self.rows("held")) == 0)
        # The audit view shows all three (the served clock is fixed: one instant).
        select = Select(d.find_element(By.ID, "audit-by"))
        select.select_by_value("operator")
        who = d.find_element(By.ID, "audit-who")
        who.clear()
        who.send_keys("support")
        d.find_element(By.ID, "load-audit").click()
        self.wait.until(lambda d: len(self.rows("audit")) == 3)
        entries = {cells(r)[2]: cells(r) for r in self.rows("audit")}
        self.assertEqual(sorted(entries), ["approve", "restore", "suspend"])
        self.assertEqual(entries["suspend"][3:5], ["carol", "reported for a modified client"])
        self.assertEqual(entries["approve"][3], "level-completion/c-lv1")
        # Nothing is left under way: the jobs' view says so.
        d.find_element(By.ID, "load-jobs").click()
        self.wait.until(lambda d: len(self.rows("jobs")) == 1)
        self.assertEqual(cells(self.rows("jobs")[0])[1], "nothing under way")
        os.makedirs(ARTIFACTS, exist_ok=True)
        d.save_screenshot(os.path.join(ARTIFACTS, "actions.png"))

    def test_8_operator_creates_previews_edits_and_retires_an_event(self):
        """BD-1 … BD-13 from the console: a dry run answers and writes nothing; a
        preview ranks the seed's week and writes nothing; the event is created (version 1), the
        Periods form offers it (its window not ended yet), its title edited (version 2, at once: BD-10),
        then retired; each step shows in the definitions and versions tables."""
        self.open_console()
        d = self.driver
        d.find_element(By.ID, "new-definition").click()
        example = json.loads(d.find_element(By.ID, "definition-json").get_attribute("value"))
        self.assertEqual(example["source"], {"kind": "wins"})
        event = {
            "id": "console-cup",
            "title": "Console cup",
            "game": "seega",
            "source": {"kind": "wins"},
            "operator": "count",
            "order": "higher_first",
            "tie_breaks": [{"source": {"kind": "moves"}, "operator": "sum", "order": "lower_first"}],
            "schedule": {"kind": "window", "start": "2026-11-07T22:00:00Z", "end": "2026-11-09T22:00:00Z"},
        }

        def type_definition(definition):
            box = d.find_element(By.ID, "definition-json")
            d.execute_script("arguments[0].value = arguments[1];", box, json.dumps(definition, indent=2))

        type_definition(event)
        d.find_element(By.ID, "definition-dry-run").click()
        self.wait.until(lambda d: "Dry run" in d.find_element(By.ID, "definition-info").text)
        self.assertIn("version 1 of console-cup", d.find_element(By.ID, "definition-info").text)
        d.find_element(By.ID, "load-definitions").click()
        self.wait.until(lambda d: d.find_element(By.ID, "status").text.endswith("definition(s)."))
        self.assertEqual(self.rows("definitions"), [], "a dry run writes nothing")
        # BD-14: the built-in boards are listed as the definitions they equal; "Copy"
        # starts a new definition from one.
        built_in = [cells(r)[0] for r in self.rows("built-in-definitions")]
        self.assertEqual(built_in, ["seega", "dots-and-boxes", "minesweeper", "mahjong-weekly", "mahjong-daily", "mahjong-level-1"])
        self.rows("built-in-definitions")[3].find_element(By.TAG_NAME, "button").click()
        copied = json.loads(d.find_element(By.ID, "definition-json").get_attribute("value"))
        self.assertEqual((copied["id"], copied["source"], copied["schedule"]["kind"]), ("copy-of-mahjong-weekly", {"kind": "credits"}, "weekly"))
        # A broken definition is refused naming its field and rule.
        type_definition({**event, "operator": "median"})
        d.find_element(By.ID, "definition-dry-run").click()
        self.wait.until(lambda d: "operator" in d.find_element(By.ID, "status").text)
        # Previewed against the seed's week of Seega (BD-13): alice and bob 2 wins in 40
        # moves each (alice reached it first), carol 1; nothing written.
        type_definition({**event, "schedule": {"kind": "window", "start": "2026-11-01T00:00:00Z", "end": "2026-11-08T00:00:00Z"},
                         "prizes": [{"from": 1, "to": 2, "points": 100}]})
        d.find_element(By.ID, "preview-from").send_keys("2026-11-01T00:00:00Z")
        d.find_element(By.ID, "preview-to").send_keys("2026-11-08T00:00:00Z")
        d.find_element(By.ID, "definition-preview").click()
        self.wait.until(lambda d: d.find_element(By.ID, "status").text.startswith("Previewed"))
        self.assertEqual(
            [cells(r) for r in self.rows("preview-lines")],
            [["window", "1", "alice", "2", "40", "100 points"], ["window", "1", "bob", "2", "40", "100 points"],
             ["window", "3", "carol", "1", "20", ""]],
        )
        self.assertIn("window: 3 ranked, prizes 200 points", d.find_element(By.ID, "preview-info").text)
        d.find_element(By.ID, "load-definitions").click()
        self.wait.until(lambda d: d.find_element(By.ID, "status").text.endswith("definition(s)."))
        self.assertEqual(self.rows("definitions"), [], "a preview writes nothing")
        type_definition(event)
        d.find_element(By.ID, "definition-reason").send_keys("the November console cup")
        d.find_element(By.ID, "definition-create").click()
        self.accept_confirmation()
        self.wait.until(lambda d: len(self.rows("definition-versions")) == 1)
        self.assertEqual(cells(self.rows("definitions")[0])[:4], ["console-cup", "seega", "1", "active"])
        # The Periods form names a defined board as it names a built-in one (BD-9): the
        # cup's window has not ended at the served clock, and the refusal says so.
        offered = [o.get_attribute("value") for o in d.find_elements(By.CSS_SELECTOR, "#close-boards option")]
        self.assertEqual(offered, ["mahjong-weekly", "mahjong-daily", "console-cup"])
        for field, text in (("close-board", "console-cup"), ("close-period", "window"), ("close-reason", "the console cup's prizes")):
            box = d.find_element(By.ID, field)
            box.clear()
            box.send_keys(text)
        d.find_element(By.ID, "close-dry-run").click()
        self.wait.until(lambda d: "has not ended" in d.find_element(By.ID, "status").text)
        # Edit the title: a new version, effective at once.
        type_definition({**event, "title": "Console cup (edited)"})
        d.find_element(By.ID, "definition-update").click()
        self.accept_confirmation()
        self.wait.until(lambda d: len(self.rows("definition-versions")) == 2)
        versions = [cells(r) for r in self.rows("definition-versions")]
        self.assertEqual([v[4] for v in versions], ["Console cup", "Console cup (edited)"])
        self.assertEqual(versions[1][1], SETTLED, "effective at once (the served clock)")
        # Retire it.
        d.find_element(By.ID, "definition-retire").click()
        self.accept_confirmation()
        self.wait.until(lambda d: cells(self.rows("definitions")[0])[3].startswith("retired"))
        self.assertTrue(d.find_element(By.ID, "definition-update").get_attribute("disabled"))
        os.makedirs(ARTIFACTS, exist_ok=True)
        d.save_screenshot(os.path.join(ARTIFACTS, "definitions.png"))

    def test_9_live_feed_shows_a_push_after_a_replayed_match_and_a_refresh(self):
        """LIVE-1 … LIVE-3 in the browser: the live page connects to /v1/live as alice
        and watches Seega; carol's win (replayed by another process) passes alice, and
        a refresh (podium snapshot) pushes the board's change and alice's `overtaken`
        message to the page within seconds."""
        work = os.environ.get("PODIUM_CONSOLE_WORK")
        if not work:
            self.fail("PODIUM_CONSOLE_WORK (the served store's directory) is not set: run scripts/console-test")

        def podium(clock, *args, stdin=None):
            import subprocess
            env = {**os.environ, "PODIUM_TEST_CLOCK": clock}
            done = subprocess.run([os.path.join(work, "podium"), *args], cwd=work, env=env,
                                  input=stdin, capture_output=True, text=True, timeout=120)
            self.assertEqual(done.returncode, 0, done.stderr)
        # The board as it stands, snapshotted (the older snapshot a pass is seen from).
        podium("2026-11-08T12:01:00Z", "snapshot")
        d = self.driver
        d.get(BASE + "/console/live?player=alice&boards=seega")
        d.find_element(By.ID, "live-connect").click()
        self.wait.until(lambda d: any(r.get_attribute("data-type") == "watching"
                                      for r in d.find_elements(By.CSS_SELECTOR, "#live-frames tr")))
        # carol (244) beats a newcomer 24 to 0 (+311, SG-2 … SG-4): 555, past bob and alice.
        win = {"match_id": "c-live-1", "game": "seega", "started_at": "2026-11-08T11:00:00Z",
               "ended_at": "2026-11-08T11:10:00Z",
               "players": [{"player_id": "carol", "moves": 20, "stones_on_board": 24, "stones_in_hand": 0},
                           {"player_id": "newcomer", "moves": 20, "stones_on_board": 0, "stones_in_hand": 0}],
               "stones_placed": 48, "outcome": {"result": "win", "winner": "carol", "reason": "completed"}}
        path = os.path.join(work, "live.jsonl")
        with open(path, "w") as f:
            f.write(json.dumps(win) + "\n")
        podium("2026-11-08T12:02:00Z", "replay", path)
        podium("2026-11-08T12:03:00Z", "snapshot")
        types = lambda d: [r.get_attribute("data-type") for r in d.find_elements(By.CSS_SELECTOR, "#live-frames tr")]
        self.wait.until(lambda d: "board_changed" in types(d) and "message" in types(d))
        message = [r for r in d.find_elements(By.CSS_SELECTOR, "#live-frames tr")
                   if r.get_attribute("data-type") == "message"][0]
        self.assertIn("overtaken on seega", cells(message)[2])
        os.makedirs(ARTIFACTS, exist_ok=True)
        d.save_screenshot(os.path.join(ARTIFACTS, "live.png"))

    def test_9b_operator_reads_renames_and_disbands_a_team(self):
        """TM-1, TM-5, OP-5 from the console: a team two players made through the API is
        looked up (its members, its owner), renamed and disbanded with a reason; the
        audit trail of the operator shows both actions."""
        import urllib.request

        def api(player, path, body=None):
            req = urllib.request.Request(BASE + path, method="POST" if body is not None else "GET",
                                         data=json.dumps(body).encode() if body is not None else None,
                                         headers={"Authorization": "Dev " + player, "Content-Type": "application/json"})
            return json.load(urllib.request.urlopen(req, timeout=10))
        team = api("alice", "/v1/teams", {"name": "Console Owls", "access": "open"})["team_id"]
        req = urllib.request.Request(BASE + f"/v1/teams/{team}/join", method="POST",
                                     headers={"Authorization": "Dev bob"})
        json.load(urllib.request.urlopen(req, timeout=10))
        self.open_console()
        d = self.driver
        operator = d.find_element(By.ID, "operator")
        operator.clear()
        operator.send_keys("teams-ops")
        box = d.find_element(By.ID, "team-id")
        box.send_keys(team)
        d.find_element(By.ID, "load-team").click()
        self.wait.until(lambda d: d.find_element(By.ID, "team").is_displayed() and len(self.rows("team-members")) == 2)
        members = [cells(r) for r in self.rows("team-members")]
        self.assertEqual([m[0] for m in members], ["alice", "bob"])
        self.assertEqual(members[0][3], "owner")
        self.assertIn("Console Owls", d.find_element(By.ID, "team-info").text)
        d.find_element(By.ID, "team-reason").send_keys("an offensive name reported")
        d.find_element(By.ID, "team-new-name").send_keys("Team 4417")
        d.find_element(By.ID, "team-rename").click()
        self.accept_confirmation()
        self.wait.until(lambda d: "Team 4417" in d.find_element(By.ID, "team-info").text)
        d.find_element(By.ID, "team-disband").click()
        self.accept_confirmation()
        self.wait.until(lambda d: "disbanded" in d.find_element(By.ID, "team-info").text)
        select = Select(d.find_element(By.ID, "audit-by"))
        select.select_by_value("operator")
        who = d.find_element(By.ID, "audit-who")
        who.clear()
        who.send_keys("teams-ops")
        d.find_element(By.ID, "load-audit").click()
        self.wait.until(lambda d: len(self.rows("audit")) == 2)
        self.assertEqual(sorted(cells(r)[2] for r in self.rows("audit")), ["team-disband", "team-rename"])
        operator.clear()
        operator.send_keys("support")
        os.makedirs(ARTIFACTS, exist_ok=True)
        d.save_screenshot(os.path.join(ARTIFACTS, "team.png"))


if __name__ == "__main__":
    unittest.main(verbosity=2)
