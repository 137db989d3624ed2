// podium support console: plain script, no build step. It reads the operator routes
// (GET /v1/operator/players/{id}, GET /v1/operator/leaderboards/{board}, the review
// queue, the audit trail, the board definitions) and acts through them (suspend,
// restore, correct, approve, reject; create, edit and retire a board definition),
// with the development header `Authorization: Operator <name>` locally.
//
// Every value from the API (player ids, match ids, sources) is attacker-controlled:
// it reaches the page only through textContent / createTextNode, never innerHTML.
"use strict";

(function () {
  const $ = (id) => document.getElementById(id);

  /** A new element with text (as text, never markup) and optional class. */
  function el(tag, text, cls) {
    const e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = String(text);
    if (cls) e.className = cls;
    return e;
  }

  /** A table row of plain-text cells; a cell may also be a ready Node. */
  function row(cells) {
    const tr = document.createElement("tr");
    for (const c of cells) {
      const td = document.createElement("td");
      if (c instanceof Node) td.appendChild(c);
      else td.textContent = c === undefined || c === null ? "" : String(c);
      tr.appendChild(td);
    }
    return tr;
  }

  function clear(node) {
    while (node.firstChild) node.removeChild(node.firstChild);
  }

  function status(text, isError) {
    const s = $("status");
    s.textContent = text || "";
    s.className = isError ? "error" : "";
  }

  /** Points as DISP shows them: thousands separated, a minus sign U+2212. */
  function signed(n) {
    if (typeof n !== "number") return "";
    const abs = Math.abs(n).toLocaleString("en-US");
    return n > 0 ? "+" + abs : n < 0 ? "\u2212" + abs : "0";
  }

  function instant(iso) {
    return typeof iso === "string" ? iso.replace("T", " ").replace(/(\.\d+)?Z$/, "") : "";
  }

  /**
   * The Authorization header: deployed, the operator's JWT (with the podium/operator
   * scope) pasted as `Bearer <token>` or as the bare token; locally, an operator name
   * sent as the development header `Operator <name>`.
   */
  function authorization() {
    const value = $("operator").value.trim() || "support";
    if (value.startsWith("Bearer ")) return value;
    if (/^[\w-]+\.[\w-]+\.[\w-]+$/.test(value)) return "Bearer " + value;
    return "Operator " + value;
  }

  /** GET `path` as the operator on the page; the JSON body, or throws its message. */
  async function get(path) {
    const res = await fetch(path, { headers: { Authorization: authorization() } });
    let body = null;
    try {
      body = await res.json();
    } catch (_) {
      body = null;
    }
    if (!res.ok) {
      const kind = body && body.error ? body.error : "HTTP " + res.status;
      const message = body && body.message ? body.message : res.statusText;
      throw new Error(res.status + " " + kind + ": " + message);
    }
    return body;
  }

  /**
   * `method path` with a JSON `body` as the operator on the page; the JSON answer, or
   * throws its message.
   */
  async function send(method, path, body) {
    const res = await fetch(path, {
      method,
      headers: { Authorization: authorization(), "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    let answer = null;
    try {
      answer = await res.json();
    } catch (_) {
      answer = null;
    }
    if (!res.ok) {
      const kind = answer && answer.error ? answer.error : "HTTP " + res.status;
      const message = answer && answer.message ? answer.message : res.statusText;
      throw new Error(res.status + " " + kind + ": " + message);
    }
    return answer;
  }

  /** The reason typed in `input`, or null (with a message) when too short. */
  function reasonOf(input) {
    const reason = $(input).value.trim();
    if (reason.length < 3) {
      status("A reason of at least 3 characters is required (OP-5).", true);
      $(input).focus();
      return null;
    }
    return reason;
  }

  /** Runs an operator action after a confirmation; shows its outcome; true when it ran. */
  async function act(question, run, done) {
    if (!window.confirm(question)) return false;
    try {
      const answer = await run();
      status(done(answer));
      return true;
    } catch (e) {
      status(e.message, true);
      return false;
    }
  }

  // ---------------------------------------------------------------- player

  let chart = null;

  async function lookUp(id) {
    id = (id || "").trim();
    if (!id) return;
    $("player-id").value = id;
    status("Looking up " + id + " …");
    try {
      const o = await get("/v1/operator/players/" + encodeURIComponent(id));
      showPlayer(o);
      status("");
    } catch (e) {
      $("player").hidden = true;
      status(e.message, true);
    }
  }

  let shownPlayer = null;

  function showPlayer(o) {
    $("player").hidden = false;
    shownPlayer = o.player_id;
    const sus = o.suspension;
    $("suspension-state").textContent = sus
      ? "SUSPENDED since " + instant(sus.since) + " UTC by " + sus.operator + " (" + sus.reason + "); restorable until " + instant(sus.restorable_until) + " UTC"
      : "active";
    $("suspension-state").className = sus ? "error" : "muted";
    $("suspend").disabled = !!sus;
    $("restore").disabled = !sus;
    const prof = o.profile || {};
    const shown = prof.name ? " · " + prof.name + (prof.country ? " (" + prof.country + ")" : "") : "";
    $("player-title").textContent = o.player_id + shown + " · as of " + instant(o.as_of) + " UTC";

    const games = $("games").tBodies[0];
    clear(games);
    for (const g of o.games) {
      const r = g.rank;
      const tr = row([
        g.game,
        g.balance === null ? "no account" : g.balance_shown,
        r ? r.rank_name_en + " (" + r.rank_id + ")" : "",
        r ? r.badge : "",
        g.ledger.length,
      ]);
      tr.dataset.game = g.game;
      if (g.balance === null) tr.className = "muted";
      games.appendChild(tr);
    }

    const places = $("places").tBodies[0];
    clear(places);
    for (const p of o.boards) {
      const tr = row([p.board, p.period, p.rank === undefined ? "no entry" : p.rank, p.value_shown]);
      tr.dataset.board = p.board;
      places.appendChild(tr);
    }

    const ledger = $("ledger").tBodies[0];
    clear(ledger);
    // Newest settled first (GM-4): the order each game's balance went through, so a
    // row's balance follows from the row of its game below it, however late its record.
    const all = [];
    for (const g of o.games) g.ledger.forEach((e, i) => all.push(Object.assign({ game: g.game, order: i }, e)));
    all.sort((a, b) => {
      const ta = settled(a);
      const tb = settled(b);
      if (ta !== tb) return ta < tb ? 1 : -1;
      if (a.game === b.game) return b.order - a.order;
      return a.at < b.at ? 1 : a.at > b.at ? -1 : 0;
    });
    for (const e of all) {
      const applied = el("span", signed(e.applied), e.floored ? "floored" : "");
      const notes = [];
      if (e.floored) {
        applied.title = "cut by the floor at zero (SG-7)";
        notes.push("floor at zero (SG-7): " + e.rule + " computed " + signed(e.nominal) + ", the balance had only " + signed(-e.applied).replace("+", "") + " to lose");
      }
      if (e.settled_at && e.at < e.settled_at && late(e, all)) notes.push("late record: its event is older than entries settled before it");
      const tr = row([
        instant(e.settled_at || e.at),
        instant(e.at),
        e.game,
        e.source,
        e.source_id,
        e.rule,
        signed(e.nominal),
        applied,
        e.balance_after.toLocaleString("en-US"),
        notes.join("; "),
      ]);
      tr.dataset.source = e.source_id;
      ledger.appendChild(tr);
    }
    if (all.length === 0) ledger.appendChild(row(["no ledger entries"]));

    const matches = $("matches").tBodies[0];
    clear(matches);
    for (const m of o.matches) matches.appendChild(matchRow(m));
    if (o.matches.length === 0) matches.appendChild(row(["no matches"]));

    drawChart(o);
  }

  /** When a ledger row was settled (its event's instant on rows written before that was recorded). */
  function settled(e) {
    return e.settled_at || e.at;
  }

  /** Whether an entry of its game settled before `e` has a later event: `e` came late. */
  function late(e, all) {
    return all.some((x) => x.game === e.game && x.order < e.order && x.at > e.at);
  }

  /** One match result (Seega, Dots and Boxes or Minesweeper) as a row. */
  function matchRow(m) {
    const players = (m.players || []).map((p) => {
      if (p.boxes !== undefined) return p.player_id + ": " + p.boxes + " boxes, " + p.rating_before + "→" + p.rating_after;
      if (p.score !== undefined) return p.player_id + ": score " + p.score + ", " + p.rating_before + "→" + p.rating_after;
      const side = p.side || "void";
      let pts = p.points_shown !== undefined ? " " + p.points_shown : "";
      // The floor (SG-7) cut the loss: say what was applied.
      if (typeof p.applied === "number" && typeof p.points === "number" && p.applied !== p.points) {
        pts += " (applied " + signed(p.applied) + ")";
      }
      const after = p.balance_after !== undefined ? " → " + p.balance_after : "";
      return p.player_id + ": " + side + pts + after;
    });
    let outcome = "";
    if (m.status) outcome = m.status + (m.void_reason ? " (" + m.void_reason + ")" : "");
    else if (m.outcome !== undefined) {
      outcome = m.outcome === "draw" ? "draw" : "win: " + ((m.players || [])[m.outcome.win] || {}).player_id;
    } else if (m.decided !== undefined) {
      outcome = m.decided === "draw" ? "draw" : "win: " + ((m.players || [])[m.decided.win.player] || {}).player_id + " (" + m.decided.win.kind + ")";
    }
    if (m.rated === false) outcome += " · not rated";
    return row([m.match_id, m.game, instant(m.ended_at), outcome, players.join(" · ")]);
  }

  /** The balance over time, one stepped line per game with entries (uPlot, if installed). */
  function drawChart(o) {
    const box = $("chart");
    if (chart) {
      chart.destroy();
      chart = null;
    }
    clear(box);
    const games = o.games.filter((g) => g.series.length > 0);
    if (games.length === 0) {
      box.appendChild(el("p", "No ledger entries: nothing to chart.", "muted"));
      return;
    }
    if (typeof window.uPlot !== "function") {
      const p = el("p", "The chart library is not installed: run ", "muted");
      p.appendChild(el("code", "scripts/console-assets"));
      p.appendChild(document.createTextNode(" and reload (podium serve reads it from PODIUM_CONSOLE_ASSETS, default console/vendor)."));
      box.appendChild(p);
      return;
    }
    // One x axis (seconds): every balance change of every game at the instant it was
    // settled, in settlement order (changes settled in the same millisecond are spread
    // a millisecond apart), so each stepped line goes only where its ledger went.
    const points = [];
    games.forEach((g, gi) => g.series.forEach((p, i) => points.push({ gi: gi, i: i, t: p.at_ms, balance: p.balance })));
    points.sort((a, b) => a.t - b.t || (a.gi === b.gi ? a.i - b.i : a.gi - b.gi));
    let last = -Infinity;
    for (const p of points) {
      p.x = Math.max(p.t, last + 1);
      last = p.x;
    }
    const xs = points.map((p) => p.x / 1000);
    const colours = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd"];
    const data = [xs];
    const series = [{}];
    games.forEach((g, i) => {
      const ys = new Array(xs.length).fill(null);
      points.forEach((p, k) => {
        if (p.gi === i) ys[k] = p.balance;
      });
      data.push(ys);
      series.push({
        label: g.game,
        stroke: colours[i % colours.length],
        width: 2,
        spanGaps: true,
        paths: uPlot.paths && uPlot.paths.stepped ? uPlot.paths.stepped({ align: 1 }) : undefined,
        points: { show: true, size: 7 },
      });
    });
    const width = Math.max(320, Math.min(box.clientWidth || 900, 1100));
    const opts = {
      width: width,
      height: 260,
      series: series,
      scales: { x: { time: true } },
      axes: [{}, { label: "balance" }],
    };
    // Instants in UTC, as everywhere else on the page.
    if (typeof uPlot.tzDate === "function") opts.tzDate = (ts) => uPlot.tzDate(new Date(ts * 1e3), "Etc/UTC");
    chart = new uPlot(opts, data, box);
  }

  // ---------------------------------------------------------------- boards

  let nextCursor = null;
  let current = null; // {board, period, limit}

  function boardName() {
    const picked = $("board-select").value;
    return picked !== "" ? picked : $("board-other").value.trim();
  }

  async function loadBoard(cursor) {
    const board = cursor ? current.board : boardName();
    if (!board) return status("Name a board", true);
    const period = cursor ? current.period : $("period").value.trim();
    const country = cursor ? current.country : $("country").value.trim().toUpperCase();
    const limit = cursor ? current.limit : $("limit").value;
    const q = new URLSearchParams({ limit: limit });
    if (period) q.set("period", period);
    if (country) q.set("country", country);
    if (cursor) q.set("cursor", cursor);
    status("Reading " + board + " …");
    try {
      const page = await get("/v1/operator/leaderboards/" + encodeURIComponent(board) + "?" + q.toString());
      current = { board: board, period: period, country: country, limit: limit };
      showPage(page, !!cursor);
      status("");
    } catch (e) {
      status(e.message, true);
    }
  }

  function showPage(page, more) {
    const tbody = $("board-entries").tBodies[0];
    clear(tbody);
    for (const e of page.entries) {
      const link = el("a", e.player_id);
      link.href = "#";
      link.addEventListener("click", (ev) => {
        ev.preventDefault();
        lookUp(e.player_id);
        window.scrollTo(0, 0);
      });
      tbody.appendChild(row([e.rank, link, e.name || "", e.country || "", e.value_shown, e.badge || ""]));
    }
    if (page.entries.length === 0) tbody.appendChild(row(["no entries"]));
    const p = page.period || {};
    $("board-info").textContent =
      page.board + " · period " + (p.period || "") + " (" + (p.kind || "") + ", " + (p.zone || "") + ")" +
      (current.country ? " · players of " + current.country : "") +
      " · " + (page.snapshot ? "snapshot " + page.snapshot : "live board") + " · as of " + instant(page.as_of) + " UTC" +
      (more ? " · a following page" : "");
    nextCursor = page.next_cursor || null;
    $("next-page").disabled = !nextCursor;
  }

  // ---------------------------------------------------------------- actions

  function playerPath(suffix) {
    return "/v1/operator/players/" + encodeURIComponent(shownPlayer) + suffix;
  }

  async function afterAction(message) {
    await lookUp(shownPlayer);
    await loadAudit("player", shownPlayer);
    status(message);
  }

  function suspend() {
    const reason = reasonOf("action-reason");
    if (!reason || !shownPlayer) return;
    act(
      "Suspend " + shownPlayer + "? They disappear from every board and their records are held until restored.",
      () => send("POST", playerPath("/suspend"), { reason }),
      () => "",
    ).then((ok) => ok && afterAction("Suspended " + shownPlayer + "."));
  }

  function restore() {
    const reason = reasonOf("action-reason");
    if (!reason || !shownPlayer) return;
    let released = 0;
    act(
      "Restore " + shownPlayer + "? Their held records are settled.",
      () => send("POST", playerPath("/restore"), { reason }).then((a) => (released = a.released || 0)),
      () => "",
    ).then((ok) => ok && afterAction("Restored " + shownPlayer + "; " + released + " held records settled."));
  }

  function correct() {
    const reason = reasonOf("action-reason");
    const points = Number($("correction-points").value);
    if (!reason || !shownPlayer) return;
    if (!Number.isInteger(points) || points === 0) {
      status("Points: a whole number, not 0 (OP-1).", true);
      return;
    }
    const game = $("correction-game").value;
    const id = "console-" + Date.now().toString(36) + "-" + Math.floor(Math.random() * 1e6).toString(36);
    act(
      "Correct " + shownPlayer + "'s " + game + " balance by " + signed(points) + "?",
      () => send("POST", playerPath("/corrections"), { correction_id: id, game, points, reason }),
      () => "",
    ).then((ok) => ok && afterAction("Correction applied to " + shownPlayer + "."));
  }

  // ---------------------------------------------------------------- review queue

  async function loadReview() {
    const body = $("held").tBodies[0];
    try {
      const page = await get("/v1/operator/review?limit=100");
      clear(body);
      for (const h of page.held) {
        const details = document.createElement("details");
        details.appendChild(el("summary", "record"));
        let pretty = h.record;
        try {
          pretty = JSON.stringify(JSON.parse(h.record), null, 2);
        } catch (_) {
          /* shown as sent */
        }
        details.appendChild(el("pre", pretty));
        const decide = document.createElement("span");
        for (const verdict of ["approve", "reject"]) {
          const b = el("button", verdict === "approve" ? "Approve" : "Reject");
          b.type = "button";
          b.className = verdict;
          b.addEventListener("click", () => decideHeld(h, verdict));
          decide.appendChild(b);
        }
        const tr = row([instant(h.held_at), h.kind, h.id, h.players.join(", "), h.cause.check, h.cause.message, details, decide]);
        tr.dataset.id = h.id;
        body.appendChild(tr);
      }
      status(page.held.length + " held records.");
    } catch (e) {
      status(e.message, true);
    }
  }

  function decideHeld(h, verdict) {
    const reason = reasonOf("review-reason");
    if (!reason) return;
    act(
      (verdict === "approve" ? "Approve" : "Reject") + " " + h.kind + " " + h.id + "?",
      () => send("POST", "/v1/operator/review/" + encodeURIComponent(h.kind) + "/" + encodeURIComponent(h.id), { verdict, reason }),
      (a) => h.kind + " " + h.id + ": " + a.state + (a.decision && a.decision.outcome ? " (" + a.decision.outcome + ")" : ""),
    ).then((ok) => ok && loadReview());
  }

  // ---------------------------------------------------------------- periods

  function closePeriod(dryRun) {
    const reason = reasonOf("close-reason");
    const board = $("close-board").value.trim();
    const period = $("close-period").value.trim();
    if (!reason || !period || !board) return;
    const path = "/v1/operator/periods/" + encodeURIComponent(board) + "/" + encodeURIComponent(period) + "/close";
    const run = () => send("POST", path, { reason, dry_run: dryRun });
    const show = (op) => {
      $("close-info").textContent =
        op.board + " " + op.period + (op.was_frozen ? " (frozen before)" : " (not frozen before)") + ": " +
        op.ranked + " ranked, " + op.already_sent + " sent before, " +
        (dryRun ? op.to_send + " would be sent now" : op.sent + " sent now") +
        (!dryRun && !op.done ? "; under way: the next ticks carry it on (close again to follow it)" : "");
      const body = $("close-results").tBodies[0];
      clear(body);
      for (const r of op.results) {
        const reward = r.jokers ? r.reward + " + " + r.jokers + (r.jokers === 1 ? " Joker" : " Jokers") : r.reward;
        body.appendChild(row([r.rank, r.of, r.player_id, r.value, reward, r.sent ? "yes" : "no"]));
      }
      return "";
    };
    if (dryRun) {
      run().then(show).catch((e) => status(e.message, true));
    } else {
      act("Close " + board + " " + period + "? Every result not sent yet is sent now.", run, show);
    }
  }

  // ---------------------------------------------------------------- jobs under way

  async function loadJobs() {
    const body = $("jobs").tBodies[0];
    try {
      const jobs = await get("/v1/operator/jobs");
      clear(body);
      const rows = [];
      for (const r of jobs.refreshes || [])
        rows.push(["refresh", r.board + " " + r.period + " (" + r.id + ")", r.pages + " pages listed", instant(r.as_of), ""]);
      for (const a of jobs.actions || [])
        rows.push(["close", a.board + " " + a.period, a.settled + " of " + a.ranked + " settled, " + a.sent + " sent" +
          (a.unapplied ? ", " + a.unapplied + " unapplied" : ""), instant(a.requested_at), a.operator]);
      for (const d of jobs.dry_runs || [])
        rows.push(["dry run", d.board + " " + d.period, d.checked + " of " + d.ranked + " checked" +
          (d.finished_at ? " (finished)" : ""), instant(d.requested_at), ""]);
      for (const p of jobs.player_actions || [])
        rows.push([p.action, p.player_id, "asked " + p.calls + (p.calls === 1 ? " time" : " times"), instant(p.requested_at), p.operator]);
      for (const u of jobs.unapplied || [])
        rows.push(["unapplied (" + u.job + ")", u.kind + " " + u.id + (u.player ? " of " + u.player : ""), u.error, instant(u.at), ""]);
      if (rows.length === 0) rows.push(["", "nothing under way", "", "", ""]);
      for (const r of rows) body.appendChild(row(r));
    } catch (e) {
      status(e.message, true);
    }
  }

  // ---------------------------------------------------------------- audit trail

  async function loadAudit(by, who) {
    by = by || $("audit-by").value;
    who = (who || $("audit-who").value).trim();
    if (!who) return;
    $("audit-by").value = by;
    $("audit-who").value = who;
    const body = $("audit").tBodies[0];
    try {
      const page = await get("/v1/operator/audit?" + encodeURIComponent(by) + "=" + encodeURIComponent(who) + "&limit=100");
      clear(body);
      for (const e of page.entries) {
        const tr = row([instant(e.at), e.operator, e.action, e.target, e.reason, e.changes === null ? "" : JSON.stringify(e.changes)]);
        tr.dataset.action = e.action;
        body.appendChild(tr);
      }
    } catch (e) {
      status(e.message, true);
    }
  }

  // ---------------------------------------------------------------- teams

  /** The team shown: its id. */
  let shownTeam = null;

  async function loadTeam(id) {
    id = (id || $("team-id").value).trim();
    if (!id) return;
    const board = $("team-board").value.trim();
    const period = $("team-period").value.trim();
    const q = new URLSearchParams();
    if (board) q.set("board", board);
    if (period) q.set("period", period);
    status("Reading team " + id + " …");
    try {
      const o = await get("/v1/operator/teams/" + encodeURIComponent(id) + (q.toString() ? "?" + q.toString() : ""));
      shownTeam = id;
      const t = o.team;
      $("team-info").textContent =
        t.name + " · " + t.access + " · " + t.member_count + " of " + t.member_cap + " members" +
        (t.country ? " · " + t.country : "") + " · created " + instant(t.created_at) + " UTC" +
        (t.invites && t.invites.length ? " · invited: " + t.invites.join(", ") : "") +
        (t.disbanded_at ? " · disbanded " + instant(t.disbanded_at) + " UTC (its last members listed)" : "");
      const members = $("team-members").tBodies[0];
      clear(members);
      for (const m of t.members) {
        const link = el("a", m.player_id);
        link.href = "#";
        link.addEventListener("click", (ev) => {
          ev.preventDefault();
          lookUp(m.player_id);
          window.scrollTo(0, 0);
        });
        members.appendChild(row([link, (m.card && m.card.name) || "", instant(m.joined_at), m.player_id === t.owner ? "owner" : ""]));
      }
      if (t.members.length === 0) members.appendChild(row(["no members"]));
      const lines = $("team-contributions").tBodies[0];
      clear(lines);
      if (o.contributions) {
        for (const l of o.contributions.members) {
          lines.appendChild(row([l.rank, l.player_id, (l.card && l.card.name) || "", l.value]));
        }
        lines.appendChild(row(["", "total", o.contributions.board + " · " + o.contributions.period, o.contributions.total]));
      }
      $("team").hidden = false;
      status("");
    } catch (e) {
      status(e.message, true);
    }
  }

  function renameTeam() {
    const reason = reasonOf("team-reason");
    const name = $("team-new-name").value.trim();
    if (!reason || !shownTeam) return;
    act(
      "Rename team " + shownTeam + " to " + name + "?",
      () => send("POST", "/v1/operator/teams/" + encodeURIComponent(shownTeam) + "/rename", { reason: reason, name: name }),
      (t) => "Renamed to " + t.name,
    ).then((ran) => ran && loadTeam(shownTeam));
  }

  function disbandTeam() {
    const reason = reasonOf("team-reason");
    if (!reason || !shownTeam) return;
    act(
      "Disband team " + shownTeam + "? Its members are released.",
      () => send("POST", "/v1/operator/teams/" + encodeURIComponent(shownTeam) + "/disband", { reason: reason }),
      (t) => "Disbanded: " + t.members.length + " members released",
    ).then((ran) => ran && loadTeam(shownTeam));
  }

  // ---------------------------------------------------------------- board definitions

  /** The definition open in the editor: its id and the version a change replaces. */
  let editing = null;

  /** An example event: next weekend's Seega wins, ties broken by fewer moves. */
  function exampleDefinition() {
    const saturday = new Date();
    saturday.setUTCDate(saturday.getUTCDate() + ((6 - saturday.getUTCDay() + 7) % 7 || 7));
    saturday.setUTCHours(0, 0, 0, 0);
    const monday = new Date(saturday.getTime() + 2 * 86400000);
    return {
      id: "weekend-seega-wins",
      title: "Weekend Seega wins",
      game: "seega",
      source: { kind: "wins" },
      operator: "count",
      order: "higher_first",
      tie_breaks: [{ source: { kind: "moves" }, operator: "sum", order: "lower_first" }],
      schedule: { kind: "window", start: saturday.toISOString().replace(".000", ""), end: monday.toISOString().replace(".000", "") },
    };
  }

  function setEditing(value) {
    editing = value;
    $("definition-update").disabled = !editing || editing.retired;
    $("definition-retire").disabled = !editing || editing.retired;
    $("definition-create").disabled = !!editing;
    $("definition-editing").textContent = editing
      ? "editing " + editing.id + " (version " + editing.version + (editing.retired ? ", retired" : "") + ")"
      : "a new definition";
  }

  /** The definition typed in the editor, or null (with a message) when it is no JSON object. */
  function typedDefinition() {
    try {
      const d = JSON.parse($("definition-json").value);
      if (d && typeof d === "object" && !Array.isArray(d)) return d;
    } catch (e) {
      status("The definition is not JSON: " + e.message, true);
      return null;
    }
    status("The definition must be a JSON object.", true);
    return null;
  }

  async function loadDefinitions() {
    try {
      const list = await get("/v1/operator/boards");
      const tbody = $("definitions").tBodies[0];
      clear(tbody);
      for (const h of list.boards) {
        const open = el("button", "Open");
        open.type = "button";
        open.addEventListener("click", () => openDefinition(h.id));
        tbody.appendChild(row([h.id, h.game, h.version, h.retired_at ? "retired " + instant(h.retired_at) : "active", open]));
      }
      // The built-in boards as the definitions they equal (BD-14): read-only; "Copy"
      // starts a new definition from one.
      const builtIn = $("built-in-definitions").tBodies[0];
      clear(builtIn);
      for (const d of list.built_in || []) {
        const copy = el("button", "Copy");
        copy.type = "button";
        copy.addEventListener("click", () => {
          $("definition-json").value = JSON.stringify(Object.assign({}, d, { id: "copy-of-" + d.id, title: "Copy of " + d.title }), null, 2);
          setEditing(null);
        });
        builtIn.appendChild(row([d.id, d.game, d.title, copy]));
      }
      // The Periods form offers the defined boards with periods next to the built-in ones.
      const boards = $("close-boards");
      for (const o of Array.from(boards.options)) if (o.dataset.defined) o.remove();
      for (const h of list.boards) {
        const o = el("option");
        o.value = h.id;
        o.dataset.defined = "1";
        boards.appendChild(o);
      }
      status(list.boards.length + " definition(s).");
    } catch (e) {
      status(e.message, true);
    }
  }

  async function openDefinition(id) {
    try {
      const view = await get("/v1/operator/boards/" + encodeURIComponent(id));
      const latest = view.versions[view.versions.length - 1];
      $("definition-json").value = JSON.stringify(latest.definition, null, 2);
      setEditing({ id: view.head.id, version: view.head.version, retired: !!view.head.retired_at });
      const tbody = $("definition-versions").tBodies[0];
      clear(tbody);
      for (const v of view.versions) {
        const d = v.definition;
        const schedule = d.schedule.kind === "cron" ? d.schedule.cron + " " + d.schedule.zone
          : d.schedule.kind === "window" ? instant(d.schedule.start) + " \u2192 " + instant(d.schedule.end) : "all-time";
        tbody.appendChild(row([v.version, instant(v.effective_from), instant(v.written_at), v.written_by, d.title, d.operator, schedule]));
      }
      $("definition-info").textContent = "";
      status("Opened " + view.head.id + ".");
    } catch (e) {
      status(e.message, true);
    }
  }

  /** Checks the typed definition as a creation or as the next version: nothing written. */
  async function dryRunDefinition() {
    const definition = typedDefinition();
    if (!definition) return;
    const reason = $("definition-reason").value.trim() || "dry run";
    try {
      const answer = editing
        ? await send("PUT", "/v1/operator/boards/" + encodeURIComponent(editing.id), { reason, dry_run: true, version: editing.version, definition })
        : await send("POST", "/v1/operator/boards", { reason, dry_run: true, definition });
      const v = answer.after;
      $("definition-info").textContent = "Dry run: it would write version " + v.version + " of " + answer.head.id
        + ", effective from " + instant(v.effective_from) + " UTC. Nothing was written." + notesOf(answer);
      status("The definition holds.");
    } catch (e) {
      $("definition-info").textContent = "";
      status(e.message, true);
    }
  }

  /** Previews the typed definition against the results settled in [from, to) (BD-13),
   * following it until it is finished (the ticks carry a long one on). */
  async function previewDefinition() {
    const definition = typedDefinition();
    if (!definition) return;
    const from = $("preview-from").value.trim();
    const to = $("preview-to").value.trim();
    if (!from || !to) {
      status("A preview needs the window of past play: from and to (UTC, RFC 3339).", true);
      return;
    }
    const tbody = $("preview-lines").tBodies[0];
    clear(tbody);
    $("preview-info").textContent = "";
    try {
      let p = await send("POST", "/v1/operator/board-previews", { definition, from, to });
      for (let waited = 0; !p.finished_at && waited < 300; waited++) {
        $("preview-info").textContent = "Under way: " + p.results_read + " stored results read\u2026";
        await new Promise((r) => setTimeout(r, 1000));
        p = await get("/v1/operator/board-previews/" + encodeURIComponent(p.id));
      }
      if (!p.finished_at) {
        status("The preview is still under way (" + p.id + "); preview again to follow it.", true);
        return;
      }
      for (const period of p.periods) {
        for (const l of period.top) {
          const prize = l.prize_points || l.prize_jokers
            ? l.prize_points + " points" + (l.prize_jokers ? ", " + l.prize_jokers + " Jokers" : "") : "";
          tbody.appendChild(row([period.period, l.rank, l.player_id, l.value, l.tie_breaks.join(", "), prize]));
        }
      }
      const periods = p.periods.map((x) => x.period + (x.partial ? " (only partly in the window)" : "") + ": " + x.entries + " ranked, prizes " + x.prize_points
        + " points and " + x.prize_jokers + " Jokers" + (x.left_out ? ", " + x.left_out + " suspended or deleted left out" : ""));
      $("preview-info").textContent = "Preview of " + p.definition.id + " (" + p.results_read + " stored results of the game read): "
        + p.counted + " values counted in the window, " + p.held + " outside the score range (a live board would hold them for review), "
        + p.undated + " undated. "
        + (periods.length ? periods.join("; ") + "." : "No period met.")
        + (p.joins_assumed ? " Everyone who played is counted (who would have joined cannot be known)." : "")
        + (p.stopped ? " Stopped: " + p.stopped : "") + " Nothing was written.";
      status("Previewed " + p.definition.id + ".");
    } catch (e) {
      status(e.message, true);
    }
  }

  /** What an accepted change will not do (BD-9), as the answer's notes say. */
  function notesOf(answer) {
    return answer.notes && answer.notes.length ? " Note: " + answer.notes.join(" ") : "";
  }

  async function createDefinition() {
    const definition = typedDefinition();
    const reason = definition && reasonOf("definition-reason");
    if (!reason) return;
    const ran = await act("Create " + definition.id + "? Results of " + definition.game + " feed it from now on.",
      () => send("POST", "/v1/operator/boards", { reason, definition }),
      (a) => "Created " + a.head.id + " (version " + a.head.version + ")." + notesOf(a));
    if (ran) {
      await loadDefinitions();
      await openDefinition(definition.id);
    }
  }

  async function updateDefinition() {
    const definition = typedDefinition();
    const reason = definition && reasonOf("definition-reason");
    if (!reason || !editing) return;
    const id = editing.id;
    const ran = await act("Save " + id + " as version " + (editing.version + 1) + "?",
      () => send("PUT", "/v1/operator/boards/" + encodeURIComponent(id), { reason, version: editing.version, definition }),
      (a) => "Saved " + id + " version " + a.after.version + ", effective from " + instant(a.after.effective_from) + " UTC." + notesOf(a));
    if (ran) {
      await loadDefinitions();
      await openDefinition(id);
    }
  }

  async function retireDefinition() {
    const reason = reasonOf("definition-reason");
    if (!reason || !editing) return;
    const id = editing.id;
    const ran = await act("Retire " + id + "? Nothing feeds it from now on; its pages stay readable.",
      () => send("POST", "/v1/operator/boards/" + encodeURIComponent(id) + "/retire", { reason, version: editing.version }),
      () => "Retired " + id + ".");
    if (ran) {
      await loadDefinitions();
      await openDefinition(id);
    }
  }

  // ---------------------------------------------------------------- wiring

  document.addEventListener("DOMContentLoaded", () => {
    $("lookup-form").addEventListener("submit", (ev) => {
      ev.preventDefault();
      lookUp($("player-id").value);
    });
    $("board-form").addEventListener("submit", (ev) => {
      ev.preventDefault();
      loadBoard(null);
    });
    $("next-page").addEventListener("click", () => {
      if (nextCursor) loadBoard(nextCursor);
    });
    $("suspend").addEventListener("click", suspend);
    $("restore").addEventListener("click", restore);
    $("correct").addEventListener("click", correct);
    $("review-form").addEventListener("submit", (ev) => {
      ev.preventDefault();
      loadReview();
    });
    $("period-form").addEventListener("submit", (ev) => {
      ev.preventDefault();
      closePeriod(true);
    });
    $("close-apply").addEventListener("click", () => closePeriod(false));
    $("jobs-form").addEventListener("submit", (ev) => {
      ev.preventDefault();
      loadJobs();
    });
    $("audit-form").addEventListener("submit", (ev) => {
      ev.preventDefault();
      loadAudit();
    });
    $("definitions-form").addEventListener("submit", (ev) => {
      ev.preventDefault();
      loadDefinitions();
    });
    $("new-definition").addEventListener("click", () => {
      $("definition-json").value = JSON.stringify(exampleDefinition(), null, 2);
      setEditing(null);
    });
    $("team-form").addEventListener("submit", (ev) => {
      ev.preventDefault();
      loadTeam();
    });
    $("team-rename").addEventListener("click", renameTeam);
    $("team-disband").addEventListener("click", disbandTeam);
    $("definition-dry-run").addEventListener("click", dryRunDefinition);
    $("definition-create").addEventListener("click", createDefinition);
    $("definition-update").addEventListener("click", updateDefinition);
    $("definition-retire").addEventListener("click", retireDefinition);
    $("definition-preview").addEventListener("click", previewDefinition);
    setEditing(null);
    $("board-select").addEventListener("change", () => {
      $("board-other-label").hidden = $("board-select").value !== "";
    });
  });
})();
