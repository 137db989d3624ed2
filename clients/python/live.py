"""A small typed helper beside the generated Python client: the live feed (LIVE-1 …
LIVE-4, docs/api.md "Live feed (WebSocket)"). It connects as a player (deployed:
`?token=<JWT>` on the stack's LiveUrl; `podium serve`: `Dev <player-id>` on
ws://127.0.0.1:8080/v1/live), watches boards, and yields each frame podium pushes,
typed: an inbox message is parsed by the generated client's `Message` model.

    feed = LiveFeed("ws://127.0.0.1:8080/v1/live", "Dev p-00007")
    feed.watch([{"board": "seega"}])
    for frame in feed.frames(timeout=30):
        ...
"""

import json
from dataclasses import dataclass
from typing import Iterator, List, Optional, Union
from urllib.parse import quote

from podium_client.models import Message
from websockets.sync.client import connect


@dataclass
class Watching:
    """The boards now watched, after a watch."""
    boards: List[dict]


@dataclass
class Pushed:
    """An inbox message, as GET /v1/me/inbox serves it."""
    message: Message


@dataclass
class BoardChanged:
    """A refresh changed a watched board: answers whose ETag does not begin with
    `"{snapshot}.` are stale."""
    board: str
    period: str
    view: str
    snapshot: str
    country: Optional[str] = None


@dataclass
class Lagging:
    """Pushes were dropped past the rate cap: read the inbox `since` this id."""
    since: Optional[str]


@dataclass
class Pong:
    pass


@dataclass
class Refused:
    """A client message refused, naming the field and rule (nothing changed)."""
    message: str


Frame = Union[Watching, Pushed, BoardChanged, Lagging, Pong, Refused]


def parse(frame: dict) -> Frame:
    """One frame of the feed, typed; ValueError for a type this helper does not know."""
    kind = frame.get("type")
    if kind == "watching":
        return Watching(frame["boards"])
    if kind == "message":
        return Pushed(Message.from_dict(frame["message"]))
    if kind == "board_changed":
        return BoardChanged(frame["board"], frame["period"], frame["view"], frame["snapshot"], frame.get("country"))
    if kind == "lagging":
        return Lagging(frame.get("since"))
    if kind == "pong":
        return Pong()
    if kind == "error":
        return Refused(frame["message"])
    raise ValueError(f"an unknown frame: {frame}")


class LiveFeed:
    """One connection of the live feed. Raises websockets' InvalidStatus (401, 403) when
    the connection is refused."""

    def __init__(self, url: str, token: str, open_timeout: float = 10):
        sep = "&" if "?" in url else "?"
        self.ws = connect(f"{url}{sep}token={quote(token)}", open_timeout=open_timeout)

    def watch(self, boards: List[dict]) -> None:
        self.ws.send(json.dumps({"action": "watch", "boards": boards}))

    def ping(self) -> None:
        self.ws.send(json.dumps({"action": "ping"}))

    def next(self, timeout: float) -> Frame:
        """The next frame; TimeoutError when none comes within `timeout` seconds."""
        return parse(json.loads(self.ws.recv(timeout=timeout)))

    def frames(self, timeout: float) -> Iterator[Frame]:
        """Every frame until none comes within `timeout` seconds or the server closes."""
        while True:
            try:
                yield self.next(timeout)
            except (TimeoutError, OSError):
                return

    def close(self) -> None:
        self.ws.close()
