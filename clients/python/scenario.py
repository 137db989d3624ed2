"""A player's session against `podium serve`, through the Python client that
openapi-python-client generates from GET /v1/openapi.json (scripts/clients-test
generates it as the package `podium_client` and runs this file).

Every answer must parse into the generated model its route documents, and the model
must hold the whole answer: turned back into JSON it equals what the server sent, so
a field the description lacks (or names or types otherwise) fails the run.

    python scenario.py BASE_URL FIXTURES.json

FIXTURES.json names who and what the seeded store holds: {"seega_player",
"seega_match" (one of that player's matches), "mahjong_players" (candidates for an
unclaimed period reward), "arena": {"id", "player"}}.

The Seega player reads a board page and the next (LB-3), their place with neighbours
(LB-4), their profile, two pages of their point history (GM-4) and a match's result;
an Arena's player reads its standings (MJ-11); the first Mahjong player with an
unclaimed period reward claims it, twice (GM-3, LB-5), and claims the daily bonus
twice with one Idempotency-Key (MJ-18). An operator defines an event, renames and
retires it; the Seega player joins it, twice (BD-8, GM-3). A team board is defined,
the Seega player creates a team, another joins, passes, removes and leaves (TM-1 … TM-7).
"""

import datetime
import json
import sys
import time
import uuid

from podium_client import AuthenticatedClient
from podium_client.api.leaderboards import board_friends, board_join, board_list, board_me, board_page
from podium_client.api.operators import (
    create_board,
    list_boards,
    list_previews,
    preview_board,
    read_board,
    read_preview,
    retire_board,
    update_board,
)
from podium_client.api.mahjong import daily_bonus, my_arena
from podium_client.api.teams import (
    create_team,
    get_team,
    invite_to_team,
    join_team,
    leave_team,
    my_team,
    pass_team,
    remove_from_team,
    team_board,
)
from podium_client.api.players import (
    claim_reward,
    me,
    my_friends,
    my_inbox,
    my_ledger,
    my_match,
    my_profile,
    put_friends,
    put_profile,
)
from podium_client.models import (
    ArenaResult,
    BonusAnswer,
    Catalogue,
    Changed,
    ClaimAnswer,
    ContributionList,
    MyTeam,
    NewTeam,
    PlayerBody,
    TeamView,
    DefinitionBody,
    DefinitionList,
    DefinitionView,
    JoinAnswer,
    Preview,
    PreviewBody,
    PreviewList,
    RetireBody,
    ErrorBody,
    FriendList,
    FriendsBoard,
    FriendsBody,
    HistoryPage,
    InboxView,
    LeaderboardAroundMe,
    LeaderboardPage,
    Profile,
    ProfileChangeBody,
    ProfileView,
)
from podium_client.types import UNSET

CALLS = []


def same(sent, parsed, path="$"):
    """`parsed` (the model turned back into JSON) equals `sent`; instants compared
    as instants (the model writes +00:00 where the server wrote Z)."""
    if isinstance(sent, dict) and isinstance(parsed, dict):
        missing = sorted(set(sent) - set(parsed))
        extra = sorted(set(parsed) - set(sent))
        assert not missing and not extra, f"{path}: fields the model lost {missing}, added {extra}"
        for k in sent:
            same(sent[k], parsed[k], f"{path}.{k}")
    elif isinstance(sent, list) and isinstance(parsed, list):
        assert len(sent) == len(parsed), f"{path}: {len(sent)} items sent, {len(parsed)} parsed"
        for i, (a, b) in enumerate(zip(sent, parsed)):
            same(a, b, f"{path}[{i}]")
    elif sent != parsed:
        try:
            a = datetime.datetime.fromisoformat(str(sent).replace("Z", "+00:00"))
            b = datetime.datetime.fromisoformat(str(parsed).replace("Z", "+00:00"))
        except ValueError:
            a, b = sent, parsed
        assert a == b, f"{path}: sent {sent!r}, parsed {parsed!r}"


def call(module, model, *args, status=200, **kwargs):
    """One request through the generated `module`; its answer parsed as `model`."""
    r = module.sync_detailed(*args, **kwargs)
    name = module.__name__.rsplit(".", 1)[-1]
    CALLS.append(f"{name} {int(r.status_code)}")
    assert int(r.status_code) == status, f"{name}: {int(r.status_code)} {r.content[:300]!r}"
    assert isinstance(r.parsed, model), f"{name}: parsed as {type(r.parsed).__name__}, not {model.__name__}"
    same(json.loads(r.content), r.parsed.to_dict(), name)
    return r.parsed


def client_of(base, player):
    return AuthenticatedClient(base_url=base, token=player, prefix="Dev", raise_on_unexpected_status=True)


def main(base, fixtures):
    seega_player = fixtures["seega_player"]
    seega = client_of(base, seega_player)

    # BD-12: the boards the app can show, with the caller's value on each.
    listed = call(board_list, Catalogue, client=seega)
    assert [b.board for b in listed.boards][:1] == ["seega"], listed
    assert listed.boards[0].me is not UNSET and listed.boards[0].me.value > 0, listed.boards[0]

    first = call(board_page, LeaderboardPage, "seega", client=seega, limit=5)
    assert len(first.entries) == 5, first
    assert isinstance(first.next_cursor, str), "a next page"
    second = call(board_page, LeaderboardPage, "seega", client=seega, limit=5, cursor=first.next_cursor)
    assert {e.player_id for e in first.entries}.isdisjoint(e.player_id for e in second.entries)
    assert second.entries[0].rank >= first.entries[-1].rank
    call(board_page, ErrorBody, "no-such-board", client=seega, status=404)

    around = call(board_me, LeaderboardAroundMe, "seega", client=seega, neighbours=2)
    assert around.me is not UNSET and around.me is not None and around.me.player_id == seega_player, around

    profile = call(me, Profile, client=seega)
    assert profile.player_id == seega_player

    # PF-1 … PF-4: a name, an avatar, a country; friends; a country's board.
    named = call(put_profile, ProfileView, client=seega, body=ProfileChangeBody(name=" Ｓｃｅｎａｒｉｏ ", avatar="a03", country="ro"))
    assert (named.name, named.country) == ("Scenario", "RO"), named
    assert call(my_profile, ProfileView, client=seega).to_dict() == named.to_dict()
    call(put_profile, ErrorBody, client=seega, body=ProfileChangeBody(name="ab"), status=400)
    friends = [e.player_id for e in first.entries if e.player_id != seega_player][:3]
    stored = call(put_friends, FriendList, client=seega, body=FriendsBody(friends=friends))
    assert stored.friends == friends, stored
    assert call(my_friends, FriendList, client=seega).friends == friends
    among = call(board_friends, FriendsBoard, "seega", client=seega)
    assert {e.player_id for e in among.entries} >= {seega_player}, among
    call(board_page, LeaderboardPage, "seega", client=seega, limit=5, country="RO")

    ledger = call(my_ledger, HistoryPage, client=seega, game="seega", limit=3)
    assert ledger.entries, "the Seega player has a point history"
    if isinstance(ledger.next_cursor, str):
        older = call(my_ledger, HistoryPage, client=seega, game="seega", limit=3, cursor=ledger.next_cursor)
        assert older.entries

    result = my_match.sync_detailed(fixtures["seega_match"], client=seega)
    CALLS.append(f"my_match {int(result.status_code)}")
    assert int(result.status_code) == 200, result.content[:300]
    assert result.parsed is not None and not isinstance(result.parsed, ErrorBody), result.parsed
    same(json.loads(result.content), result.parsed.to_dict(), "my_match")

    arena = fixtures["arena"]
    standings = call(my_arena, ArenaResult, arena["id"], client=client_of(base, arena["player"]))
    assert arena["player"] in {s.player_id for s in standings.standings}

    for player in fixtures["mahjong_players"]:
        client = client_of(base, player)
        inbox = call(my_inbox, InboxView, client=client)
        rewarded = [m for m in inbox.messages if m.reward is not UNSET and m.reward is not None]
        if inbox.unclaimed and rewarded:
            break
    else:
        raise AssertionError(f"none of {fixtures['mahjong_players']} has an unclaimed reward")
    message = rewarded[0]
    claimed = call(claim_reward, ClaimAnswer, message.id, client=client)
    assert claimed.points == message.reward.points
    again = call(claim_reward, ClaimAnswer, message.id, client=client)
    assert again.to_dict() == claimed.to_dict(), "a repeat gets the first answer (GM-3)"
    after = call(my_inbox, InboxView, client=client)
    assert after.unclaimed == inbox.unclaimed - 1

    key = f"scenario-{uuid.uuid4().hex[:12]}"
    bonus = call(daily_bonus, BonusAnswer, client=client, idempotency_key=key)
    repeat = call(daily_bonus, BonusAnswer, client=client, idempotency_key=key)
    assert repeat.to_dict() == bonus.to_dict(), "one claim per Idempotency-Key (MJ-18)"
    call(daily_bonus, ErrorBody, client=client, idempotency_key="not a valid key!", status=400)

    # BD-1 … BD-10: an operator defines an event, reads, renames and lists it; BD-8:
    # the Seega player joins it (once: a repeat answers as the first) and the app's
    # list says so; the operator retires it.
    ops = AuthenticatedClient(base_url=base, token="scenario-ops", prefix="Operator", raise_on_unexpected_status=True)
    now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
    cup = f"scenario-cup-{uuid.uuid4().hex[:8]}"
    definition = {
        "id": cup, "title": "Scenario cup", "game": "seega",
        "source": {"kind": "wins"}, "operator": "count", "order": "higher_first",
        "schedule": {"kind": "window",
                     "start": (now - datetime.timedelta(hours=1)).isoformat().replace("+00:00", "Z"),
                     "end": (now + datetime.timedelta(days=2)).isoformat().replace("+00:00", "Z")},
        "entry": {"join_required": True},
        "prizes": [{"from": 1, "to": 3, "points": 100}],
    }
    # BD-13: previewed first against the last 60 days of the seeded Seega matches,
    # followed to its end; nothing written.
    iso = lambda t: t.isoformat().replace("+00:00", "Z")
    past = {"kind": "window", "start": iso(now - datetime.timedelta(days=60)), "end": iso(now)}
    asked = PreviewBody.from_dict({"definition": {**definition, "schedule": past}, "from": past["start"], "to": past["end"]})
    preview = call(preview_board, Preview, client=ops, body=asked)
    for _ in range(120):
        if preview.finished_at is not UNSET:
            break
        time.sleep(1)
        preview = call(read_preview, Preview, preview.id, client=ops)
    assert preview.finished_at is not UNSET, preview
    assert preview.counted > 0 and preview.joins_assumed, preview
    top = preview.periods[0].top
    assert top[0].rank == 1 and [line.rank for line in top] == sorted(line.rank for line in top), top
    assert preview.id in {p.id for p in call(list_previews, PreviewList, client=ops).previews}
    assert cup not in {h.id for h in call(list_boards, DefinitionList, client=ops).boards}, "a preview writes nothing"
    body = DefinitionBody.from_dict({"reason": "the scenario's cup", "definition": definition})
    created = call(create_board, Changed, client=ops, body=body)
    assert created.after.version == 1, created
    definition["title"] = "Scenario cup, renamed"
    body = DefinitionBody.from_dict({"reason": "a clearer title", "version": 1, "definition": definition})
    call(update_board, Changed, cup, client=ops, body=body)
    view = call(read_board, DefinitionView, cup, client=ops)
    assert [v.version for v in view.versions] == [1, 2], view
    assert cup in {h.id for h in call(list_boards, DefinitionList, client=ops).boards}
    joined = call(board_join, JoinAnswer, cup, client=seega)
    again = call(board_join, JoinAnswer, cup, client=seega)
    assert again.to_dict() == joined.to_dict(), "a repeat gets the first answer (GM-3)"
    listed = call(board_list, Catalogue, client=seega)
    entry = next(b for b in listed.boards if b.board == cup).entry
    assert entry.join_required and entry.joined, entry
    call(board_join, ErrorBody, "seega", client=seega, status=409)
    retire = RetireBody.from_dict({"reason": "the scenario is over", "version": 2})
    call(retire_board, Changed, cup, client=ops, body=retire)

    # TM-1 … TM-7: an operator defines a team board; the Seega player creates a team,
    # another player joins it; the team, its contributions and the caller's own team
    # read back; ownership passes, the new owner removes the first, then leaves.
    teams_board = f"scenario-teams-{uuid.uuid4().hex[:8]}"
    team_def = {
        "id": teams_board, "title": "Scenario teams", "game": "seega",
        "source": {"kind": "points"}, "operator": "sum", "order": "higher_first",
        "schedule": {"kind": "weekly", "zone": "UTC"},
        "teams": {"split": {"kind": "equal"}},
    }
    call(create_board, Changed, client=ops, body=DefinitionBody.from_dict({"reason": "team week", "definition": team_def}))
    made = call(create_team, TeamView, client=seega, body=NewTeam.from_dict({"name": "Scenario Owls", "access": "open"}))
    joiner = client_of(base, "scenario-joiner")
    joined_team = call(join_team, TeamView, made.team_id, client=joiner)
    assert joined_team.member_count == 2 and joined_team.owner == seega_player, joined_team
    call(get_team, TeamView, made.team_id, client=seega)
    call(invite_to_team, TeamView, made.team_id, client=seega, body=PlayerBody.from_dict({"player_id": "scenario-guest"}))
    listing = call(team_board, ContributionList, made.team_id, teams_board, client=seega)
    assert listing.total == 0 and listing.members == [], listing
    mine = call(my_team, MyTeam, client=joiner)
    assert mine.team.team_id == made.team_id, mine
    call(pass_team, TeamView, made.team_id, client=seega, body=PlayerBody.from_dict({"player_id": "scenario-joiner"}))
    call(remove_from_team, TeamView, made.team_id, client=joiner, body=PlayerBody.from_dict({"player_id": seega_player}))
    left = call(leave_team, MyTeam, client=joiner)
    assert left.may_join_at is not UNSET and left.team is UNSET, left
    # The joiner was the last member: the team is disbanded (TM-5); the removed
    # player is within TM-3's cooldown.
    call(join_team, ErrorBody, made.team_id, client=seega, status=404)
    refused = call(create_team, ErrorBody, client=seega, body=NewTeam.from_dict({"name": "Second Owls", "access": "open"}), status=400)
    assert refused.message.startswith("caller (TM-3)"), refused

    # LIVE-1 … LIVE-3: the live feed's helper beside the client connects as the player.
    import live
    from websockets.exceptions import InvalidStatus
    ws_url = base.replace("http://", "ws://", 1) + "/v1/live"
    feed = live.LiveFeed(ws_url, f"Dev {seega_player}")
    feed.watch([{"board": "seega"}, {"board": "mahjong-weekly", "view": "friends"}])
    watching = feed.next(timeout=10)
    assert isinstance(watching, live.Watching) and len(watching.boards) == 2, watching
    feed.watch([{"board": "no-such-board"}])
    refused = feed.next(timeout=10)
    assert isinstance(refused, live.Refused) and refused.message.startswith("boards[0].board (LIVE-2)"), refused
    feed.ping()
    assert isinstance(feed.next(timeout=10), live.Pong)
    feed.close()
    try:
        live.LiveFeed(ws_url, "Dev bad id!")
        raise AssertionError("a malformed identity connects")
    except InvalidStatus as e:
        assert e.response.status_code == 401, e
    CALLS.append("live feed")

    print(f"python client scenario: {len(CALLS)} calls, every answer parsed by its generated model:")
    print("  " + ", ".join(CALLS))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1].rstrip("/"), json.load(open(sys.argv[2])))
