// A small client of podium's HTTP API: one function per route, over the types that
// openapi-typescript generates from GET /v1/openapi.json into ./schema.d.ts
// (scripts/clients-test generates them and type-checks this file with tsc). A route
// renamed, a parameter or a field changed in the description breaks this build.
import createClient, { type Client } from "openapi-fetch";
import type { components, paths } from "./schema";

export type Schemas = components["schemas"];
export type Podium = Client<paths>;

/** A client of the API at `baseUrl` (a stack's ApiUrl) sending `authorization`
 *  (`Bearer <JWT>` deployed; `Dev <player-id>` against `podium serve`). */
export function podium(baseUrl: string, authorization?: string): Podium {
  return createClient<paths>({
    baseUrl,
    headers: authorization ? { Authorization: authorization } : {},
  });
}

/** An answer other than 2xx: the API's error body (`error`, `message`). */
export class PodiumError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    super(`podium answered ${status}: ${JSON.stringify(body)}`);
  }
}

function ok<T>(r: { data?: T; error?: unknown; response: Response }): T {
  if (r.data === undefined) throw new PodiumError(r.response.status, r.error);
  return r.data;
}

// ---- leaderboards (LB-1 … LB-7)

/** The boards the app can show now: built-in ones, then defined boards and events live
 *  or coming, each with its period, next reset and the caller's value (BD-12). */
export async function boards(c: Podium): Promise<Schemas["Catalogue"]> {
  return ok(await c.GET("/v1/boards", {}));
}

/** Joins a defined board whose entry rules ask for it (BD-8): the caller's results
 *  count from now on; a repeat answers as the first. */
export async function joinBoard(c: Podium, board: string): Promise<Schemas["JoinAnswer"]> {
  return ok(await c.POST("/v1/boards/{board}/join", { params: { path: { board } } }));
}

export async function boardPage(
  c: Podium,
  board: string,
  query: { limit?: number; cursor?: string; period?: string; country?: string } = {},
): Promise<Schemas["LeaderboardPage"]> {
  return ok(await c.GET("/v1/leaderboards/{board}", { params: { path: { board }, query } }));
}

/** A board's page revalidated with the `ETag` of the answer kept (LB-5, docs/api.md
 *  "Caching"): `notModified` when it still holds (a 304, no body; keep showing the
 *  page kept), else the new page and its tag. `maxAgeSeconds`: how long either may
 *  be shown before asking again. */
export async function boardPageIfChanged(
  c: Podium,
  board: string,
  query: { limit?: number; cursor?: string; period?: string; country?: string } = {},
  etag?: string,
): Promise<{ page?: Schemas["LeaderboardPage"]; etag?: string; notModified: boolean; maxAgeSeconds?: number }> {
  const r = await c.GET("/v1/leaderboards/{board}", {
    params: { path: { board }, query },
    headers: etag ? { "If-None-Match": etag } : {},
  });
  const tag = r.response.headers.get("ETag") ?? undefined;
  const maxAge = /max-age=(\d+)/.exec(r.response.headers.get("Cache-Control") ?? "")?.[1];
  const maxAgeSeconds = maxAge === undefined ? undefined : Number(maxAge);
  if (r.response.status === 304) return { etag: tag ?? etag, notModified: true, maxAgeSeconds };
  return { page: ok(r), etag: tag, notModified: false, maxAgeSeconds };
}

/** Every entry of a board, page after page (LB-3: the cursor pins the snapshot). */
export async function wholeBoard(c: Podium, board: string, limit = 100): Promise<Schemas["Entry"][]> {
  const all: Schemas["Entry"][] = [];
  let cursor: string | undefined;
  do {
    const page = await boardPage(c, board, cursor ? { limit, cursor } : { limit });
    all.push(...page.entries);
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  return all;
}

export async function boardMe(
  c: Podium,
  board: string,
  query: { neighbours?: number; period?: string; country?: string } = {},
): Promise<Schemas["LeaderboardAroundMe"]> {
  return ok(await c.GET("/v1/leaderboards/{board}/me", { params: { path: { board }, query } }));
}

/** The caller and their friends on a board, ranked among themselves (PF-4). */
export async function boardFriends(
  c: Podium,
  board: string,
  query: { period?: string } = {},
): Promise<Schemas["FriendsBoard"]> {
  return ok(await c.GET("/v1/leaderboards/{board}/friends", { params: { path: { board }, query } }));
}

export async function myLeague(c: Podium, league: string): Promise<Schemas["MyLeague"]> {
  return ok(await c.GET("/v1/leagues/{league}/me", { params: { path: { league } } }));
}

export async function leagueCohort(
  c: Podium,
  league: string,
  cohort: string,
  week?: string,
): Promise<Schemas["CohortView"]> {
  return ok(
    await c.GET("/v1/leagues/{league}/cohorts/{cohort}", {
      params: { path: { league, cohort }, query: week ? { week } : {} },
    }),
  );
}

// ---- the caller

export async function me(c: Podium): Promise<Schemas["Profile"]> {
  return ok(await c.GET("/v1/me"));
}

/** The caller's name, avatar and country (PF-1 … PF-3). */
export async function myProfile(c: Podium): Promise<Schemas["ProfileView"]> {
  return ok(await c.GET("/v1/me/profile"));
}

/** Changes the caller's profile: fields left out are kept, `null` removes one. */
export async function setProfile(
  c: Podium,
  change: Schemas["ProfileChangeBody"],
): Promise<Schemas["ProfileView"]> {
  return ok(await c.PUT("/v1/me/profile", { body: change }));
}

export async function myFriends(c: Podium): Promise<Schemas["FriendList"]> {
  return ok(await c.GET("/v1/me/friends"));
}

/** Replaces the caller's friend list with the platform's (PF-4, at most 200 ids). */
export async function setFriends(c: Podium, friends: string[]): Promise<Schemas["FriendList"]> {
  return ok(await c.PUT("/v1/me/friends", { body: { friends } }));
}

export async function mahjongMe(c: Podium): Promise<Schemas["MahjongProfile"]> {
  return ok(await c.GET("/v1/me/mahjong-rivals"));
}

export async function myMatch(c: Podium, match_id: string): Promise<Schemas["MatchView"]> {
  return ok(await c.GET("/v1/me/matches/{match_id}", { params: { path: { match_id } } }));
}

export async function myLedger(
  c: Podium,
  game: string,
  query: { limit?: number; cursor?: string } = {},
): Promise<Schemas["HistoryPage"]> {
  return ok(await c.GET("/v1/me/ledger", { params: { query: { game, ...query } } }));
}

export async function myInbox(c: Podium): Promise<Schemas["InboxView"]> {
  return ok(await c.GET("/v1/me/inbox"));
}

export async function claimReward(c: Podium, message_id: string): Promise<Schemas["ClaimAnswer"]> {
  return ok(await c.POST("/v1/me/inbox/{message_id}/claim", { params: { path: { message_id } } }));
}

export async function myFollows(c: Podium): Promise<Schemas["Following"]> {
  return ok(await c.GET("/v1/me/follows"));
}

export async function follow(c: Podium, board: string): Promise<Schemas["Following"]> {
  return ok(await c.PUT("/v1/me/follows/{board}", { params: { path: { board } } }));
}

export async function unfollow(c: Podium, board: string): Promise<Schemas["Following"]> {
  return ok(await c.DELETE("/v1/me/follows/{board}", { params: { path: { board } } }));
}

// ---- Mahjong Rivals

export async function myArena(c: Podium, arena_id: string): Promise<Schemas["ArenaResult"]> {
  return ok(await c.GET("/v1/me/arenas/{arena_id}", { params: { path: { arena_id } } }));
}

export async function myLevelCompletion(c: Podium, completion_id: string): Promise<Schemas["CompletionView"]> {
  return ok(await c.GET("/v1/me/level-completions/{completion_id}", { params: { path: { completion_id } } }));
}

export async function myQuickMatch(c: Podium, match_id: string): Promise<Schemas["QuickMatchResult"]> {
  return ok(await c.GET("/v1/me/quick-matches/{match_id}", { params: { path: { match_id } } }));
}

export async function myTable(c: Podium, table_id: string): Promise<Schemas["TableResult"]> {
  return ok(await c.GET("/v1/me/tournament-tables/{table_id}", { params: { path: { table_id } } }));
}

/** A tournament's settings and where it stands (`open`, `running`, `cancelled`,
 *  `closing`, `final` with its winners; MJ-12 … MJ-17). */
export async function tournament(c: Podium, tournament_id: string): Promise<Schemas["TournamentState"]> {
  return ok(await c.GET("/v1/tournaments/{tournament_id}", { params: { path: { tournament_id } } }));
}

/** Today's bonus (MJ-18); `idempotencyKey` the same on every retry of this claim. */
export async function dailyBonus(c: Podium, idempotencyKey: string): Promise<Schemas["BonusAnswer"]> {
  return ok(
    await c.POST("/v1/games/mahjong-rivals/daily-bonus", {
      params: { header: { "Idempotency-Key": idempotencyKey } },
    }),
  );
}

// ---- teams (TM-1 … TM-7)

/** Creates a team whose owner and first member is the caller (TM-1 … TM-3). */
export async function createTeam(c: Podium, team: Schemas["NewTeam"]): Promise<Schemas["TeamView"]> {
  return ok(await c.POST("/v1/teams", { body: team }));
}

/** A team, its members (suspended ones hidden) and, to its members, its invitations. */
export async function team(c: Podium, team_id: string): Promise<Schemas["TeamView"]> {
  return ok(await c.GET("/v1/teams/{team_id}", { params: { path: { team_id } } }));
}

/** Joins an open team, or accepts an invitation to an invite-only one (TM-1 … TM-3). */
export async function joinTeam(c: Podium, team_id: string): Promise<Schemas["TeamView"]> {
  return ok(await c.POST("/v1/teams/{team_id}/join", { params: { path: { team_id } } }));
}

/** The caller's team, memberships and, within the cooldown, from when they may join one. */
export async function myTeam(c: Podium): Promise<Schemas["MyTeam"]> {
  return ok(await c.GET("/v1/me/team"));
}

/** Leaves the caller's team (TM-5); TM-3's cooldown starts. */
export async function leaveTeam(c: Podium): Promise<Schemas["MyTeam"]> {
  return ok(await c.POST("/v1/me/team/leave"));
}

/** A member invites a player (TM-1). */
export async function inviteToTeam(c: Podium, team_id: string, player_id: string): Promise<Schemas["TeamView"]> {
  return ok(await c.POST("/v1/teams/{team_id}/invites", { params: { path: { team_id } }, body: { player_id } }));
}

/** The owner removes a member (TM-5). */
export async function removeFromTeam(c: Podium, team_id: string, player_id: string): Promise<Schemas["TeamView"]> {
  return ok(await c.POST("/v1/teams/{team_id}/remove", { params: { path: { team_id } }, body: { player_id } }));
}

/** The owner passes ownership to a member (TM-5). */
export async function passTeam(c: Podium, team_id: string, player_id: string): Promise<Schemas["TeamView"]> {
  return ok(await c.POST("/v1/teams/{team_id}/owner", { params: { path: { team_id } }, body: { player_id } }));
}

/** A team's members by what they brought on a team board in a period (TM-4, TM-7). */
export async function teamContributions(
  c: Podium,
  team_id: string,
  board: string,
  period?: string,
): Promise<Schemas["ContributionList"]> {
  return ok(
    await c.GET("/v1/teams/{team_id}/boards/{board}", {
      params: { path: { team_id, board }, query: period ? { period } : {} },
    }),
  );
}

// ---- ad callbacks (sent by the ad networks, signed; here for completeness)

export async function admobCallback(
  c: Podium,
  query: paths["/v1/ad-callbacks/admob"]["get"]["parameters"]["query"],
): Promise<Schemas["AdAnswer"]> {
  return ok(await c.GET("/v1/ad-callbacks/admob", { params: { query } }));
}

export async function unityCallback(
  c: Podium,
  query: paths["/v1/ad-callbacks/unity-ads"]["get"]["parameters"]["query"],
): Promise<string> {
  return ok(await c.GET("/v1/ad-callbacks/unity-ads", { params: { query }, parseAs: "text" }));
}

// ---- operators (JWT with the podium/operator scope)

export async function operatorPlayer(c: Podium, player_id: string): Promise<Schemas["PlayerOverview"]> {
  return ok(await c.GET("/v1/operator/players/{player_id}", { params: { path: { player_id } } }));
}

export async function operatorBoard(
  c: Podium,
  board: string,
  query: { limit?: number; cursor?: string; period?: string; country?: string } = {},
): Promise<Schemas["LeaderboardPage"]> {
  return ok(await c.GET("/v1/operator/leaderboards/{board}", { params: { path: { board }, query } }));
}

export async function operatorJobs(c: Podium): Promise<Schemas["JobsStatus"]> {
  return ok(await c.GET("/v1/operator/jobs"));
}

/** Every board definition (BD-*), retired ones too. */
export async function boardDefinitions(c: Podium): Promise<Schemas["DefinitionList"]> {
  return ok(await c.GET("/v1/operator/boards"));
}

/** Creates a board definition (BD-1 … BD-11), audited; `dry_run` only checks it. */
export async function createBoardDefinition(c: Podium, body: Schemas["DefinitionBody"]): Promise<Schemas["Changed"]> {
  return ok(await c.POST("/v1/operator/boards", { body }));
}

/** One board definition with every version (BD-10). */
export async function boardDefinition(c: Podium, board: string): Promise<Schemas["DefinitionView"]> {
  return ok(await c.GET("/v1/operator/boards/{board}", { params: { path: { board } } }));
}

/** Writes a board definition's next version (BD-10), audited. */
export async function updateBoardDefinition(
  c: Podium,
  board: string,
  body: Schemas["DefinitionBody"],
): Promise<Schemas["Changed"]> {
  return ok(await c.PUT("/v1/operator/boards/{board}", { params: { path: { board } }, body }));
}

/** Retires a board definition (BD-10), audited. */
export async function retireBoardDefinition(
  c: Podium,
  board: string,
  body: Schemas["RetireBody"],
): Promise<Schemas["Changed"]> {
  return ok(await c.POST("/v1/operator/boards/{board}/retire", { params: { path: { board } }, body }));
}

/** Previews a definition against past play (BD-13): per period its size, top and prize cost. Under way while `finished_at` is absent: read it again with `readBoardPreview`. */
export async function previewBoard(
  c: Podium,
  body: Schemas["PreviewBody"],
): Promise<Schemas["Preview"]> {
  return ok(await c.POST("/v1/operator/board-previews", { body }));
}

/** One preview of a definition (BD-13), finished or under way. */
export async function readBoardPreview(c: Podium, preview: string): Promise<Schemas["Preview"]> {
  return ok(await c.GET("/v1/operator/board-previews/{preview}", { params: { path: { preview } } }));
}

/** Every preview kept (finished ones for 24 hours), without their lines. */
export async function listBoardPreviews(c: Podium): Promise<Schemas["PreviewList"]> {
  return ok(await c.GET("/v1/operator/board-previews"));
}

/** Corrects a player's balance (OP-1); the same `correction_id` applies once. */
export async function correctBalance(
  c: Podium,
  player_id: string,
  correction: Schemas["CorrectionBody"],
): Promise<Schemas["CorrectionAnswer"]> {
  return ok(await c.POST("/v1/operator/players/{player_id}/corrections", { params: { path: { player_id } }, body: correction }));
}

/** The audit trail (OP-5) of a player, an operator or a UTC day, newest first. */
export async function auditTrail(
  c: Podium,
  query: { player?: string; operator?: string; day?: string; limit?: number; cursor?: string },
): Promise<Schemas["AuditPage"]> {
  return ok(await c.GET("/v1/operator/audit", { params: { query } }));
}

/** A team as the support console shows it, with its members' contributions on `board`. */
export async function operatorTeam(
  c: Podium,
  team_id: string,
  query: { board?: string; period?: string } = {},
): Promise<Schemas["OperatorTeam"]> {
  return ok(await c.GET("/v1/operator/teams/{team_id}", { params: { path: { team_id }, query } }));
}

/** Renames a team (PF-1; OP-5: audited). */
export async function renameTeam(c: Podium, team_id: string, body: Schemas["TeamRenameBody"]): Promise<Schemas["TeamView"]> {
  return ok(await c.POST("/v1/operator/teams/{team_id}/rename", { params: { path: { team_id } }, body }));
}

/** Disbands a team, its members released (TM-5; OP-5: audited). */
export async function disbandTeam(
  c: Podium,
  team_id: string,
  body: Schemas["TeamDisbandBody"],
): Promise<Schemas["DisbandedTeam"]> {
  return ok(await c.POST("/v1/operator/teams/{team_id}/disband", { params: { path: { team_id } }, body }));
}

/** The review queue of held records (OP-2), oldest first. */
export async function reviewQueue(c: Podium, query: { limit?: number; cursor?: string } = {}): Promise<Schemas["QueuePage"]> {
  return ok(await c.GET("/v1/operator/review", { params: { query } }));
}

/** Approves or rejects a held record (OP-3). */
export async function decideHeld(
  c: Podium,
  kind: string,
  id: string,
  decision: Schemas["DecisionBody"],
): Promise<Schemas["HeldRecord"]> {
  return ok(await c.POST("/v1/operator/review/{kind}/{id}", { params: { path: { kind, id } }, body: decision }));
}

/** Everything stored about a player (GDPR Art. 15, 20). */
export async function exportPlayer(c: Podium, player_id: string): Promise<Schemas["PlayerExport"]> {
  return ok(await c.GET("/v1/operator/players/{player_id}/export", { params: { path: { player_id } } }));
}

/** Suspends a player (OP-4): hidden from every read, their records held. */
export async function suspendPlayer(c: Podium, player_id: string, reason: string): Promise<Schemas["SuspensionAnswer"]> {
  return ok(await c.POST("/v1/operator/players/{player_id}/suspend", { params: { path: { player_id } }, body: { reason } }));
}

/** Restores a suspended player (OP-4); their held records are settled. */
export async function restorePlayer(c: Podium, player_id: string, reason: string): Promise<Schemas["SuspensionAnswer"]> {
  return ok(await c.POST("/v1/operator/players/{player_id}/restore", { params: { path: { player_id } }, body: { reason } }));
}

/** Closes an ended period (LB-5), or says what that would send (`dry_run`). */
export async function closePeriod(
  c: Podium,
  board: string,
  period: string,
  body: Schemas["CloseBody"],
): Promise<Schemas["PeriodOperation"]> {
  return ok(await c.POST("/v1/operator/periods/{board}/{period}/close", { params: { path: { board, period } }, body }));
}

/** Removes a player's display name (PF-1). */
export async function resetName(c: Podium, player_id: string, reason: string): Promise<Schemas["ProfileView"]> {
  return ok(await c.POST("/v1/operator/players/{player_id}/name-reset", { params: { path: { player_id } }, body: { reason } }));
}

/** Deletes a player (GM-6), resumably. */
export async function deletePlayer(c: Podium, player_id: string, reason: string): Promise<unknown> {
  return ok(await c.POST("/v1/operator/players/{player_id}/delete", { params: { path: { player_id } }, body: { reason } }));
}

// ---- the description itself

export async function openapiDocument(c: Podium): Promise<unknown> {
  return ok(await c.GET("/v1/openapi.json"));
}

/** What a leaderboard screen shows: the top page, the caller's place, their inbox. */
export async function leaderboardScreen(c: Podium, board: string) {
  const [top, mine, inbox] = await Promise.all([boardPage(c, board, { limit: 10 }), boardMe(c, board), myInbox(c)]);
  const rows = top.entries.map((e) => `${e.rank}. ${e.name ?? e.player_id} ${e.value_shown}`);
  return { rows, myRank: mine.me?.rank ?? null, unclaimed: inbox.unclaimed };
}
