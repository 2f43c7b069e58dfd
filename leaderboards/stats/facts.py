"""What one finished game means for each person who played it, read from the stored record.

Nothing here re-derives the rules: every hand fact comes from the engine's ``HandResult``
stored on the ``Game`` (``Game.hands``; see docs/records.md), the game facts from the
``Game``/``GamePlayer`` rows written by the games' finish path (docs/architecture.md).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from games import records
from games.models import Ending, Game, GamePlayer

from ..ratings.rules import counted_players, is_aborted
from .models import BOT_KINDS, PEOPLE, PRIVATE, Result, ResultCounts

# (field on PlayerStats, attribute of PlayerFacts) summed as they are
COUNTERS = (
    "hands_played", "hands_won", "hands_drawn", "stalemates", "gins", "big_gins", "knocks",
    "knock_deadwood", "undercuts_given", "undercuts_received", "rummies", "hand_points",
    "seconds_played", "resignations", "timeouts", "abandonments", "timeout_turns",
)


@dataclass
class PlayerFacts:
    game_id: int
    user_id: int
    mode: str
    opponents: str
    finished_at: datetime
    result: str
    margin: int
    hands_played: int = 0
    hands_won: int = 0
    hands_drawn: int = 0
    stalemates: int = 0
    gins: int = 0
    big_gins: int = 0
    knocks: int = 0
    knock_deadwood: int = 0
    undercuts_given: int = 0
    undercuts_received: int = 0
    rummies: int = 0
    hand_points: int = 0
    seconds_played: int = 0
    resignations: int = 0
    timeouts: int = 0
    abandonments: int = 0
    timeout_turns: int = 0
    # other people at the table: (user id, this player's result against them)
    people: list[tuple[int, str]] = field(default_factory=list)


def opponents_kind(players: list[GamePlayer], seat: int) -> str:
    """``private`` for a game at a private table (counted apart: no figure anyone else sees
    may move with it), else ``people`` when every other seat is a person, else the strongest
    computer's level."""
    if any(p.private for p in players):
        return PRIVATE
    levels = [p.bot_level for p in players if p.seat != seat and p.bot_level is not None]
    if not levels:
        return PEOPLE
    return BOT_KINDS[min(max(levels), len(BOT_KINDS)) - 1]


def _result(game: Game, p: GamePlayer) -> str:
    if p.won:
        return Result.WIN
    if game.winner_seat is None and p.place == 1:
        return Result.TIE
    return Result.LOSS


def _pair_result(mine: GamePlayer, theirs: GamePlayer) -> str:
    if mine.place < theirs.place:
        return Result.WIN
    if mine.place > theirs.place:
        return Result.LOSS
    return Result.TIE


def _hand_facts(f: PlayerFacts, hands: list[dict], seat: int) -> None:
    for h in hands:
        f.hands_played += 1
        outcome = h.get("outcome")
        winner = h.get("winner")
        if outcome == "drawn":
            f.hands_drawn += 1
            continue
        if outcome == "stalemate":  # the rule book: a loss for every player of the hand
            f.stalemates += 1
            continue
        if winner == seat:
            f.hands_won += 1
            f.hand_points += int(h.get("points") or 0)
        if outcome == "gin" and winner == seat:
            f.gins += 1
        elif outcome == "big_gin" and winner == seat:
            f.big_gins += 1
        elif outcome in ("knock", "undercut") and h.get("knocker") == seat:
            f.knocks += 1
            f.knock_deadwood += int(h.get("knocker_deadwood") or 0)
        if outcome == "undercut":
            if winner == seat:
                f.undercuts_given += 1
            elif h.get("knocker") == seat:
                f.undercuts_received += 1
        if outcome == "out" and h.get("going_rummy") and winner == seat:
            f.rummies += 1


# A pause longer than this between two moves counts as this long in "Time played": a game
# against the computer waits for its player, who may leave it and come back days later.
PAUSE_SECONDS = 300


def playing_seconds(game: Game, until: datetime | None = None) -> int:
    """The game's playing time: from its start through each move's time to its end (or to
    ``until``, when a player left a game that went on without them), every gap counted up to
    ``PAUSE_SECONDS`` (a game stored without move times: start to end)."""
    if not (game.started_at and game.finished_at):
        return 0
    end = min(until, game.finished_at) if until is not None else game.finished_at
    times = [game.started_at]
    for a in game.actions or []:
        at = a.get("at") if isinstance(a, dict) else None
        if isinstance(at, str):
            try:
                moment = datetime.fromisoformat(at)
            except ValueError:
                continue
            if moment <= end:
                times.append(moment)
    if len(times) == 1:
        return max(0, int((end - game.started_at).total_seconds()))
    times.append(end)
    total = 0.0
    for earlier, later in zip(times, times[1:], strict=False):
        total += min(PAUSE_SECONDS, max(0.0, (later - earlier).total_seconds()))
    return int(total)


def aborted(game: Game, players: list[GamePlayer]) -> bool:
    """A game that ended early (resignation, timeout, abandonment) before every person at it
    had made a move of their own (Lichess's abort): nothing was played. Read as the ratings'
    rule reads it (``ratings.rules``): a person who left a game of three or four before
    moving, the computer playing their seat on, is not asked, as the game went on without
    them; at a game of people, fewer than two left who moved is an abort."""
    if game.ending == Ending.NORMAL:
        return False
    people = [p for p in players if p.bot_level is None]
    counted = counted_players(game, people)
    return (not counted or (len(people) >= 2 and len(counted) < 2)
            or is_aborted(game, counted))


def game_facts(game: Game, players: list[GamePlayer]) -> list[PlayerFacts]:
    """One ``PlayerFacts`` per seat held by a (still existing) user; none for a game one of
    its players never came to (``Ending.NO_SHOW``) or one ended before everyone had moved
    (``aborted``): nothing was played, so it counts for nobody, as no rating counts it. (A
    resignation before the first move counted as a win, a loss and a streak, while the game's
    panel said "not rated: ended before both players moved": an audit.)"""
    if game.ending == Ending.NO_SHOW or aborted(game, players):
        return []
    players = sorted(players, key=lambda p: p.seat)
    private = any(p.private for p in players)
    seconds = playing_seconds(game)
    # a person who left a game that went on played only the hands finished before they left,
    # and until then: the computer played the rest in their seat (its rummy is not theirs)
    stood_in = {s["seat"]: s for s in records.stand_ins(game)}
    out = []
    for p in players:
        if p.user_id is None:
            continue
        others = [o for o in players if o.seat != p.seat]
        best_other = max((o.score for o in others), default=0)
        left_game = stood_in.get(p.seat)
        f = PlayerFacts(
            game_id=game.pk, user_id=p.user_id, mode=game.mode,
            opponents=opponents_kind(players, p.seat), finished_at=game.finished_at,
            result=_result(game, p), margin=p.score - best_other,
            seconds_played=(seconds if left_game is None
                            else playing_seconds(game, until=left_game["left_at"])),
        )
        hands = game.hands or []
        _hand_facts(f, hands if left_game is None else hands[:left_game["after_hands"]],
                    p.seat)
        # how this player left the game: every leaver of a game that went on without them
        # has it on their row (GamePlayer.left); games stored before name only the seat
        # whose forfeit ended the game
        left = p.left or (game.ending if game.loser_seat == p.seat else "")
        if left == Ending.RESIGNATION:
            f.resignations = 1
        elif left == Ending.TIMEOUT:
            f.timeouts = 1
        elif left == Ending.ABANDONMENT:
            f.abandonments = 1
        f.timeout_turns = sum(
            1 for a in game.actions or []
            if a.get("source") == "timeout" and a.get("seat") == p.seat
        )
        # whom someone plays at private tables is nobody else's business: those games count
        # in the player's own figures (their own bucket) but not in favourite opponents or
        # head to head
        if not private:
            f.people = [
                (o.user_id, _pair_result(p, o)) for o in others if o.user_id is not None
            ]
        out.append(f)
    return out


def accumulate(row, f: PlayerFacts) -> None:
    """Add one game to a ``PlayerStats`` row (in memory). Games must come in finishing order
    for the streaks; both the incremental task and the rebuild use this one function."""
    count_result(row, f.result, f.finished_at)
    if f.result == Result.WIN:
        row.current_streak += 1
        row.longest_streak = max(row.longest_streak, row.current_streak)
        # a win by resignation or timeout at level scores (or from behind) has no margin
        # to show: "Best game" is the widest win on points
        if f.margin > 0 and (row.best_margin is None or f.margin > row.best_margin):
            row.best_margin = f.margin
            row.best_game_id = f.game_id
    else:
        row.current_streak = 0
    for name in COUNTERS:
        setattr(row, name, getattr(row, name) + getattr(f, name))


def count_result(row: ResultCounts, result: str, finished_at: datetime) -> None:
    """Count one game of ``result`` finished at ``finished_at`` into ``row`` (a player's
    bucket, or one player's record against another)."""
    row.games += 1
    if result == Result.WIN:
        row.wins += 1
    elif result == Result.LOSS:
        row.losses += 1
    else:
        row.ties += 1
    if row.last_game_at is None or finished_at > row.last_game_at:
        row.last_game_at = finished_at
