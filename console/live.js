// podium live feed page: connects to /v1/live as a player, watches boards, and lists
// every frame received (LIVE-1 … LIVE-4). Plain JavaScript, no build step.
"use strict";

(function () {
  const $ = (id) => document.getElementById(id);
  let socket = null;

  function status(text) {
    $("status").textContent = text;
  }

  // One line of what a frame says.
  function describe(f) {
    switch (f.type) {
      case "message": {
        const m = f.message || {};
        const by = m.overtaken && m.overtaken.by && m.overtaken.by.length
          ? " by " + m.overtaken.by.map((p) => p.name || p.player_id).join(", ")
          : "";
        return `${m.kind} on ${m.board} ${m.period}` + (m.rank ? `: rank ${m.rank}` : "") + by + ` (message ${m.id})`;
      }
      case "board_changed":
        return `${f.board} ${f.period} (${f.view}${f.country ? " " + f.country : ""}): snapshot ${f.snapshot}`;
      case "watching":
        return "watching " + (f.boards || []).map((b) => b.board + (b.view && b.view !== "global" ? " " + b.view : "")).join(", ");
      case "lagging":
        return "pushes dropped past the rate cap; read the inbox since " + (f.since || "the start");
      case "error":
        return f.message;
      default:
        return JSON.stringify(f);
    }
  }

  function show(frame) {
    const row = document.createElement("tr");
    row.dataset.type = frame.type || "";
    for (const text of [new Date().toISOString().slice(11, 19), frame.type || "?", describe(frame)]) {
      const cell = document.createElement("td");
      cell.textContent = text;
      row.appendChild(cell);
    }
    $("live-frames").prepend(row);
  }

  function connect(event) {
    event.preventDefault();
    if (socket) socket.close();
    const player = $("live-player").value.trim();
    const boards = $("live-boards").value.split(",").map((b) => b.trim()).filter(Boolean);
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const url = `${scheme}//${location.host}/v1/live?token=${encodeURIComponent("Dev " + player)}`;
    status("connecting as " + player + " …");
    socket = new WebSocket(url);
    socket.addEventListener("open", () => {
      status("connected as " + player);
      $("live-close").disabled = false;
      socket.send(JSON.stringify({ action: "watch", boards: boards.map((board) => ({ board })) }));
    });
    socket.addEventListener("message", (e) => {
      try {
        show(JSON.parse(e.data));
      } catch (_) {
        show({ type: "?", message: String(e.data) });
      }
    });
    socket.addEventListener("close", (e) => {
      status(`closed (${e.code}${e.reason ? ": " + e.reason : ""}); a refused connection (401, 403) closes at once`);
      $("live-close").disabled = true;
    });
  }

  document.addEventListener("DOMContentLoaded", () => {
    const q = new URLSearchParams(location.search);
    if (q.get("player")) $("live-player").value = q.get("player");
    if (q.get("boards")) $("live-boards").value = q.get("boards");
    $("live-form").addEventListener("submit", connect);
    $("live-close").addEventListener("click", () => socket && socket.close());
  });
})();
