// Connects the live feed's helper (src/live.ts, compiled by scripts/clients-test) to
// `podium serve`, with `ws` as Node's WebSocket: a watch naming an unknown board is
// refused through the `error` handler, and a malformed identity is refused at connect
// (the `closed` handler, with no frame first).
//
//   node live-check.mjs COMPILED_LIVE_JS WS_URL PLAYER
import WebSocket from "ws";

globalThis.WebSocket = WebSocket;
const [compiled, url, player] = process.argv.slice(2);
const { connectLive } = await import(compiled);

function within(ms, what, run) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what}: nothing within ${ms} ms`)), ms);
    run((v) => {
      clearTimeout(timer);
      resolve(v);
    });
  });
}

const refused = await within(10000, "a watch of an unknown board", (done) => {
  const socket = connectLive(url, `Dev ${player}`, [{ board: "seega" }, { board: "no-such-board" }], {
    error: (message) => {
      socket.close();
      done(message);
    },
  });
});
if (!refused.startsWith("boards[1].board (LIVE-2): no board")) {
  throw new Error(`unexpected refusal: ${refused}`);
}
const code = await within(10000, "a malformed identity", (done) => {
  connectLive(url, "Dev bad id!", [{ board: "seega" }], {
    message: () => done(-1),
    closed: (c) => done(c),
  });
});
if (code === -1 || code === 1000) {
  throw new Error(`a malformed identity connected (close code ${code})`);
}
console.log(`typescript live helper: connected and refused as expected ("${refused.slice(0, 40)}…", close ${code})`);
