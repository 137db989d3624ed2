// The live feed (LIVE-1 … LIVE-4, docs/api.md "Live feed (WebSocket)"), a small typed
// helper beside the generated client: connects as a player (deployed: the stack's
// LiveUrl with `?token=<JWT>`; `podium serve`: ws://127.0.0.1:8080/v1/live with the
// token `Dev <player-id>`), watches boards, and hands each frame to its handler. An
// inbox message is typed by the generated schema's `Message`.
import type { components } from "./schema";

export type Message = components["schemas"]["Message"];

/** One watched board: its view (global when absent), a country view's country, a
 *  period (the current one when absent). */
export interface Watched {
  board: string;
  view?: "global" | "friends" | "country";
  country?: string;
  period?: string;
}

/** What podium pushes. */
export type Frame =
  | { type: "message"; message: Message }
  | { type: "board_changed"; board: string; period: string; view: "global" | "friends" | "country"; country?: string; snapshot: string }
  | { type: "watching"; boards: Watched[] }
  | { type: "lagging"; since: string | null }
  | { type: "pong" }
  | { type: "error"; message: string };

export interface Handlers {
  /** An inbox message, as GET /v1/me/inbox serves it: remember its id for `since`. */
  message?: (m: Message) => void;
  /** A watched board changed: a kept page whose ETag does not begin with
   *  `"${snapshot}.` is stale. */
  board_changed?: (b: Extract<Frame, { type: "board_changed" }>) => void;
  /** Pushes were dropped past the rate cap: read GET /v1/me/inbox?since=`since`. */
  lagging?: (since: string | null) => void;
  /** A client message refused (the field and rule named). */
  error?: (message: string) => void;
  /** The connection closed: 1006 when refused at connect (a browser does not see the
   *  401 or 403), 1008 when the server closed it (a newer connection past the cap,
   *  the account suspended) and 1001 after its 2 hours on `podium serve` (deployed,
   *  API Gateway gives no code); connect again after a pause. */
  closed?: (code: number) => void;
}

/** Connects to `url` with `token`, watches `boards`, and calls `on` for each frame;
 *  the socket, to close it. */
export function connectLive(url: string, token: string, boards: Watched[], on: Handlers): WebSocket {
  const sep = url.includes("?") ? "&" : "?";
  const socket = new WebSocket(`${url}${sep}token=${encodeURIComponent(token)}`);
  socket.addEventListener("open", () => socket.send(JSON.stringify({ action: "watch", boards })));
  socket.addEventListener("message", (e: MessageEvent) => {
    const frame = JSON.parse(String(e.data)) as Frame;
    switch (frame.type) {
      case "message":
        on.message?.(frame.message);
        break;
      case "board_changed":
        on.board_changed?.(frame);
        break;
      case "lagging":
        on.lagging?.(frame.since);
        break;
      case "error":
        on.error?.(frame.message);
        break;
      default:
        break;
    }
  });
  // A refused or broken connection: `close` follows, with its code.
  socket.addEventListener("error", () => undefined);
  socket.addEventListener("close", (e: CloseEvent) => on.closed?.(e.code));
  return socket;
}
