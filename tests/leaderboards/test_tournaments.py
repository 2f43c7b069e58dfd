"""Tournament services: create, enter and withdraw, start (seeding, byes, tables), results
through the games' finish signal, next rounds, no-shows, cancellation, schedules."""
from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from games import services as games_services
from games.models import Game, Room, Seat, Table, TableStatus
from games.rooms import ensure_default_rooms
from leaderboards.models import Rating
from leaderboards.tournaments import pairing as P
from leaderboards.tournaments import services as S
from leaderboards.tournaments.models import (
    Entry,
    Format,
    Match,
    MatchEnding,
    MatchStatus,
    Status,
    Tournament,
    TournamentSchedule,
)
from tests.support.accounts import make_bot
from tests.support.records import make_game

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def rooms(db):
    ensure_default_rooms(Room)


@pytest.fixture
def staff(make_user):
    return make_user("organiser", is_staff=True)


def _soon(minutes=5):
    return timezone.now() + timedelta(minutes=minutes)


def _create(user, **kw):
    kw.setdefault("name", "Friday Cup")
    kw.setdefault("starts_at", _soon())
    return S.tournament_create(user=user, **kw)


def _players(make_user, n, ratings=None):
    users = [make_user(f"p{i}") for i in range(n)]
    for i, u in enumerate(users):
        Rating.objects.create(user=u, mode="classic",
                              rating=(ratings[i] if ratings else 1500 + 10 * i))
    return users


def _due(t: Tournament) -> None:
    Tournament.objects.filter(pk=t.pk).update(starts_at=timezone.now() - timedelta(seconds=1))


def _resign(match: Match, loser_id: int) -> None:
    from django.contrib.auth import get_user_model

    games_services.table_resign(table_id=match.table_id,
                                user=get_user_model().objects.get(pk=loser_id))


def test_creating_needs_rated_games_and_valid_settings(make_user, staff):
    newbie = make_user("newbie")
    with pytest.raises(S.NotAllowed):
        _create(newbie)
    for _ in range(S.min_rated_games()):
        make_game([newbie, make_user()])
    assert S.can_create(newbie)
    for bad in ({"capacity": 500}, {"capacity": 1}, {"starts_at": timezone.now()},
                {"format": Format.ROBIN, "capacity": 20}, {"name": "x"},
                {"target": 20}, {"rating_min": 1800, "rating_max": 1700},
                {"format": "knockout"}, {"mode": "chess"}):
        with pytest.raises(S.TournamentError):
            _create(staff, **bad)
    assert not Tournament.objects.exists()
    t = _create(newbie, format=Format.SWISS, capacity=40)
    assert t.rounds == 7 and t.target == 100 and t.status == Status.SCHEDULED


def test_enter_and_withdraw_rules(make_user, staff, monkeypatch):
    alice, bob, carol = _players(make_user, 3, ratings=[1400, 1600, 1900])
    t = _create(staff, capacity=2, rating_min=1500, rating_max=1800)
    with pytest.raises(S.NotAllowed, match="below"):
        S.tournament_enter(tournament_id=t.pk, user=alice)
    with pytest.raises(S.NotAllowed, match="above"):
        S.tournament_enter(tournament_id=t.pk, user=carol)
    S.tournament_enter(tournament_id=t.pk, user=bob)
    with pytest.raises(S.TournamentError, match="already"):
        S.tournament_enter(tournament_id=t.pk, user=bob)
    dave = make_user("dave")
    monkeypatch.setattr(S.ratings, "playban_until", lambda u: _soon(60) if u == dave else None)
    with pytest.raises(S.NotAllowed, match="rated games until"):
        S.tournament_enter(tournament_id=t.pk, user=dave)
    S.tournament_withdraw(tournament_id=t.pk, user=bob)
    assert not Entry.objects.filter(tournament=t).exists()
    with pytest.raises(S.TournamentError):
        S.tournament_withdraw(tournament_id=t.pk, user=bob)
    private = _create(staff, private=True)
    with pytest.raises(S.NotAllowed, match="invite"):
        S.tournament_enter(tournament_id=private.pk, user=bob)
    S.tournament_enter(tournament_id=private.pk, user=bob, invite=private.invite_token)
    with pytest.raises(S.NotFound):
        S.tournament_enter(tournament_id=999999, user=bob)


def test_a_bot_account_neither_enters_nor_creates_a_tournament(make_user, staff):
    bot = make_bot(make_user("botty"))
    t = _create(staff)
    with pytest.raises(S.NotAllowed, match="Bot accounts"):
        S.tournament_enter(tournament_id=t.pk, user=bot)
    assert not Entry.objects.filter(tournament=t).exists()
    assert not S.can_create(bot)
    with pytest.raises(S.NotAllowed):
        _create(bot)


def test_capacity_and_closed_entries(make_user, staff):
    a, b, c = _players(make_user, 3)
    t = _create(staff, capacity=2)
    S.tournament_enter(tournament_id=t.pk, user=a)
    S.tournament_enter(tournament_id=t.pk, user=b)
    with pytest.raises(S.TournamentError, match="full"):
        S.tournament_enter(tournament_id=t.pk, user=c)
    later = _create(staff, entry_opens_at=_soon(2), starts_at=_soon(10))
    with pytest.raises(S.NotAllowed, match="open"):
        S.tournament_enter(tournament_id=later.pk, user=c)


def test_single_elimination_runs_to_a_champion(make_user, staff):
    users = _players(make_user, 5, ratings=[1500, 1700, 1600, 1900, 1800])
    t = _create(staff, capacity=8, target=50)
    for u in users:
        S.tournament_enter(tournament_id=t.pk, user=u)
    assert not S.tournament_start(tournament_id=t.pk)  # not yet due
    _due(t)
    assert S.tournament_start(tournament_id=t.pk)
    assert not S.tournament_start(tournament_id=t.pk)  # twice: nothing more
    t.refresh_from_db()
    assert t.status == Status.RUNNING
    seeds = list(Entry.objects.filter(tournament=t).order_by("seed").values_list("user__username",
                                                                                flat=True))
    assert seeds == ["p3", "p4", "p1", "p2", "p0"]
    # Eight slots, five players: three byes to the top seeds, one match (seed 4 v seed 5).
    # Seeds 2 and 3 have byes into the same second-round match: it opens at once.
    matches = {m.key: m for m in Match.objects.filter(tournament=t)}
    pairs = {k: (m.player_a.username, m.player_b.username) for k, m in matches.items()}
    assert pairs == {"W1-1": ("p2", "p0"), "W2-1": ("p4", "p1")}
    table = matches["W1-1"].table
    assert table.status == TableStatus.PLAYING and table.target == 50 and table.rated
    assert {s.user.username for s in Seat.objects.filter(table=table)} == {"p2", "p0"}
    while True:
        playing = list(Match.objects.filter(tournament=t, status=MatchStatus.PLAYING))
        if not playing:
            break
        for m in playing:
            _resign(m, m.player_b_id)  # the higher seed wins every match
    t.refresh_from_db()
    assert t.status == Status.FINISHED and t.winner.username == "p3"
    assert max(m.round for m in Match.objects.filter(tournament=t)) == P.elimination_rounds(5)
    places = dict(Entry.objects.filter(tournament=t).values_list("user__username", "place"))
    assert places["p3"] == 1 and places["p4"] == 2 and places["p1"] == places["p2"] == 3
    assert places["p0"] == 5
    m = Match.objects.get(tournament=t, key="W1-1")
    assert m.ending == MatchEnding.PLAYED and Game.objects.filter(table=m.table).exists()


def test_swiss_pairs_rounds_without_repeats(make_user, staff):
    users = _players(make_user, 5)
    t = _create(staff, format=Format.SWISS, rounds=3, capacity=8, target=50)
    for u in users:
        S.tournament_enter(tournament_id=t.pk, user=u)
    _due(t)
    S.tournament_start(tournament_id=t.pk)
    seen = set()
    for r in (1, 2, 3):
        t.refresh_from_db()
        assert t.round == r
        round_matches = list(Match.objects.filter(tournament=t, round=r))
        assert sum(m.status == MatchStatus.BYE for m in round_matches) == 1
        for m in round_matches:
            if m.player_b_id:
                pair = frozenset((m.player_a_id, m.player_b_id))
                assert pair not in seen
                seen.add(pair)
        for m in round_matches:
            if m.status == MatchStatus.PLAYING:
                _resign(m, m.player_b_id)
    t.refresh_from_db()
    assert t.status == Status.FINISHED
    rows = list(Entry.objects.filter(tournament=t).order_by("place"))
    assert rows[0].place == 1 and rows[0].score >= rows[-1].score
    assert sum(e.score for e in rows) == 3 * 3  # two games and a bye a round


def _started_arena(make_user, staff):
    """A 30-minute arena of four players, started (two matches playing)."""
    players = _players(make_user, 4)
    t = _create(staff, format=Format.ARENA, duration_minutes=30, capacity=10, target=50)
    for u in players:
        S.tournament_enter(tournament_id=t.pk, user=u)
    _due(t)
    S.tournament_start(tournament_id=t.pk)
    return t, players


def test_arena_pairs_again_at_once_and_ends(make_user, staff):
    t, _ = _started_arena(make_user, staff)
    first = list(Match.objects.filter(tournament=t))
    assert len(first) == 2
    m = first[0]
    _resign(m, m.player_b_id)
    # Its two players are free again but just met: they wait for the other pair.
    assert Match.objects.filter(tournament=t).count() == 2
    other = first[1]
    _resign(other, other.player_b_id)
    new = list(Match.objects.filter(tournament=t, status=MatchStatus.PLAYING))
    assert len(new) == 2
    for x in new:
        assert {x.player_a_id, x.player_b_id} not in ({m.player_a_id, m.player_b_id},
                                                      {other.player_a_id, other.player_b_id})
    winner_entry = Entry.objects.get(tournament=t, user_id=m.player_a_id)
    assert winner_entry.score == 2
    Tournament.objects.filter(pk=t.pk).update(ends_at=timezone.now() - timedelta(seconds=1))
    for x in new:
        _resign(x, x.player_b_id)
    t.refresh_from_db()
    assert t.status == Status.FINISHED
    assert Match.objects.filter(tournament=t).count() == 4  # nothing paired after the end


def test_no_shows_forfeit_after_the_grace(make_user, staff):
    a, b, c, d = _players(make_user, 4)
    t = _create(staff, capacity=4)
    for u in (a, b, c, d):
        S.tournament_enter(tournament_id=t.pk, user=u)
    _due(t)
    S.tournament_start(tournament_id=t.pk)
    m1, m2 = Match.objects.filter(tournament=t).order_by("key")
    # In m1 seat of player_a came to the table; in m2 nobody did.
    Seat.objects.filter(table=m1.table, user_id=m1.player_a_id).update(last_seen=timezone.now())
    S.tournament_tick(tournament_id=t.pk)
    assert Match.objects.filter(tournament=t, status=MatchStatus.PLAYING).count() == 2
    Match.objects.filter(tournament=t).update(
        created_at=timezone.now() - timedelta(seconds=S.no_show_seconds() + 5))
    assert S.tournament_tick(tournament_id=t.pk)["no_shows"] == 2
    m1.refresh_from_db()
    m2.refresh_from_db()
    assert m1.ending == MatchEnding.NO_SHOW and m1.winner_id == m1.player_a_id
    assert m2.ending == MatchEnding.NO_SHOW and m2.winner_id == m2.player_a_id  # higher seed
    assert Table.objects.get(pk=m1.table_id).status == TableStatus.FINISHED
    final = Match.objects.get(tournament=t, key="W2-0")
    assert {final.player_a_id, final.player_b_id} == {m1.player_a_id, m2.player_a_id}


def test_withdrawing_mid_event_forfeits_the_rest(make_user, staff):
    users = _players(make_user, 4)
    t = _create(staff, capacity=4)
    for u in users:
        S.tournament_enter(tournament_id=t.pk, user=u)
    _due(t)
    S.tournament_start(tournament_id=t.pk)
    m = Match.objects.filter(tournament=t).order_by("key").first()
    quitter = m.player_a
    S.tournament_withdraw(tournament_id=t.pk, user=quitter)
    m.refresh_from_db()
    assert m.status == MatchStatus.FINISHED and m.ending == MatchEnding.WITHDRAWAL
    assert m.winner_id == m.player_b_id
    assert Table.objects.get(pk=m.table_id).status == TableStatus.FINISHED
    assert Entry.objects.get(tournament=t, user=quitter).withdrawn


def test_too_few_players_cancel_with_a_reason(make_user, staff):
    (a,) = _players(make_user, 1)
    t = _create(staff)
    S.tournament_enter(tournament_id=t.pk, user=a)
    _due(t)
    S.tournament_start(tournament_id=t.pk)
    t.refresh_from_db()
    assert t.status == Status.CANCELLED and "Not enough players" in t.cancel_reason


def test_only_the_creator_or_staff_cancel(make_user, staff):
    users = _players(make_user, 4)
    for _ in range(S.min_rated_games()):
        make_game([users[0], users[1]])
    t = _create(users[0])
    with pytest.raises(S.NotAllowed):
        S.tournament_cancel(tournament_id=t.pk, user=users[1], reason="no")
    S.tournament_cancel(tournament_id=t.pk, user=users[0], reason="  rain  ")
    t.refresh_from_db()
    assert t.status == Status.CANCELLED and t.cancel_reason == "rain"


def test_round_robin_plays_everyone_once(make_user, staff):
    users = _players(make_user, 3)
    t = _create(staff, format=Format.ROBIN, capacity=4, target=50)
    for u in users:
        S.tournament_enter(tournament_id=t.pk, user=u)
    _due(t)
    S.tournament_start(tournament_id=t.pk)
    while True:
        playing = list(Match.objects.filter(tournament=t, status=MatchStatus.PLAYING))
        if not playing:
            break
        for m in playing:
            _resign(m, m.player_a_id)
    t.refresh_from_db()
    assert t.status == Status.FINISHED and t.round == 3
    pairs = [frozenset((m.player_a_id, m.player_b_id))
             for m in Match.objects.filter(tournament=t, status=MatchStatus.FINISHED)]
    assert len(pairs) == len(set(pairs)) == 3


def test_schedules_create_each_edition_once(staff):
    TournamentSchedule.objects.all().delete()
    start = timezone.now() + timedelta(minutes=20)
    s = TournamentSchedule.objects.create(name="Hourly Arena", format=Format.ARENA,
                                          duration_minutes=30, capacity=50, every_hours=1,
                                          entry_minutes=30, next_start=start)
    assert S.schedules_run() == 1
    assert S.schedules_run() == 0
    t = Tournament.objects.get(schedule=s)
    assert t.starts_at == start and t.created_by is None
    s.refresh_from_db()
    assert s.next_start == start + timedelta(hours=1)


def test_players_are_told_their_match_is_ready(make_user, staff, monkeypatch):
    import social.notify

    sent = []
    monkeypatch.setattr(social.notify, "notify_users",
                        lambda ids, frame: sent.append((list(ids), frame)))
    a, b = _players(make_user, 2)
    t = _create(staff, capacity=2)
    for u in (a, b):
        S.tournament_enter(tournament_id=t.pk, user=u)
    _due(t)
    S.tournament_start(tournament_id=t.pk)
    m = Match.objects.get(tournament=t)
    ready = {ids[0]: f for ids, f in sent if f["event"] == "match"}
    assert set(ready) == {a.pk, b.pk}
    assert ready[a.pk]["table"] == {"id": m.table_id, "url": m.table.get_absolute_url()}
    assert ready[a.pk]["opponent"]["username"] == b.username
    assert ready[a.pk]["tournament"]["url"] == t.get_absolute_url()
    assert any(f["event"] == "started" and set(ids) == {a.pk, b.pk} for ids, f in sent)


def test_double_elimination_needs_two_losses(make_user, staff):
    users = _players(make_user, 4)
    t = _create(staff, format=Format.DOUBLE, capacity=4, target=50)
    for u in users:
        S.tournament_enter(tournament_id=t.pk, user=u)
    _due(t)
    S.tournament_start(tournament_id=t.pk)
    top = Entry.objects.get(tournament=t, seed=1).user_id
    while True:
        playing = list(Match.objects.filter(tournament=t, status=MatchStatus.PLAYING))
        if not playing:
            break
        for m in playing:
            # The top seed loses its first match, then wins everything (the reset is played).
            first = not Match.objects.filter(tournament=t, status=MatchStatus.FINISHED).filter(
                player_a_id=top).exists() and not Match.objects.filter(
                tournament=t, status=MatchStatus.FINISHED, player_b_id=top).exists()
            if top in (m.player_a_id, m.player_b_id):
                _resign(m, top if first else (m.player_b_id if m.player_a_id == top
                                              else m.player_a_id))
            else:
                _resign(m, m.player_b_id)
    t.refresh_from_db()
    assert t.status == Status.FINISHED and t.winner_id == top
    keys = set(Match.objects.filter(tournament=t).values_list("key", flat=True))
    assert {"GF1", "GF2"} <= keys
    places = sorted(Entry.objects.filter(tournament=t).values_list("place", flat=True))
    assert places == [1, 2, 3, 4]


def test_the_sweep_records_a_result_whose_task_was_lost(make_user, staff):
    from games import signals
    from leaderboards.tournaments import receivers

    signals.game_finished.disconnect(dispatch_uid="tournaments.game_finished")
    try:
        a, b = _players(make_user, 2)
        t = _create(staff, capacity=2)
        for u in (a, b):
            S.tournament_enter(tournament_id=t.pk, user=u)
        _due(t)
        S.tournament_start(tournament_id=t.pk)
        m = Match.objects.get(tournament=t)
        _resign(m, m.player_b_id)
        m.refresh_from_db()
        assert m.status == MatchStatus.PLAYING  # nobody heard the game end
        assert S.tournaments_sweep()["ticked"] == 1
        m.refresh_from_db()
        t.refresh_from_db()
        assert m.winner_id == m.player_a_id and t.status == Status.FINISHED
    finally:
        receivers.connect()


def test_a_player_playbanned_mid_event_forfeits_instead_of_sitting(make_user, staff,
                                                                   monkeypatch):
    users = _players(make_user, 4)
    t = _create(staff, capacity=4)
    for u in users:
        S.tournament_enter(tournament_id=t.pk, user=u)
    _due(t)
    S.tournament_start(tournament_id=t.pk)
    m1, m2 = Match.objects.filter(tournament=t).order_by("key")
    banned = m2.player_a_id
    monkeypatch.setattr(S.ratings, "playban_until",
                        lambda u: _soon(30) if u.pk == banned else None)
    _resign(m2, m2.player_b_id)  # the banned player wins their game ...
    _resign(m1, m1.player_b_id)
    final = Match.objects.get(tournament=t, key="W2-0")
    # ... but is not seated at a rated table: the final is a forfeit.
    assert final.table is None and final.ending == MatchEnding.WITHDRAWAL
    assert final.winner_id == m1.player_a_id
    assert Entry.objects.get(tournament=t, user_id=banned).withdrawn
    t.refresh_from_db()
    assert t.status == Status.FINISHED and t.winner_id == m1.player_a_id


def test_the_sweep_starts_a_tournament_whose_start_task_was_lost(make_user, staff):
    a, b = _players(make_user, 2)
    t = _create(staff, capacity=2)
    for u in (a, b):
        S.tournament_enter(tournament_id=t.pk, user=u)
    assert S.tournaments_sweep()["started"] == 0  # not due yet
    _due(t)
    assert S.tournaments_sweep()["started"] == 1
    assert S.tournaments_sweep()["started"] == 0
    assert Match.objects.filter(tournament=t).count() == 1


def test_an_absent_arena_player_is_not_paired_again(make_user, staff):
    users = _players(make_user, 4)
    t = _create(staff, format=Format.ARENA, duration_minutes=30, capacity=4)
    for u in users:
        S.tournament_enter(tournament_id=t.pk, user=u)
    _due(t)
    S.tournament_start(tournament_id=t.pk)
    m1, m2 = Match.objects.filter(tournament=t).order_by("id")
    for m in (m1, m2):  # everyone came except m1's player_b
        for u in (m.player_a_id, m.player_b_id):
            if u != m1.player_b_id:
                Seat.objects.filter(table=m.table, user_id=u).update(last_seen=timezone.now())
    Match.objects.filter(tournament=t).update(
        created_at=timezone.now() - timedelta(seconds=S.no_show_seconds() + 5))
    assert S.tournament_tick(tournament_id=t.pk)["no_shows"] == 1
    assert Entry.objects.get(tournament=t, user_id=m1.player_b_id).withdrawn
    _resign(m2, m2.player_b_id)
    playing = Match.objects.filter(tournament=t, status=MatchStatus.PLAYING)
    assert all(m1.player_b_id not in (m.player_a_id, m.player_b_id) for m in playing)


def test_arena_performance_is_stored_exactly_and_shown_rounded(make_user, staff, client):
    t, (a, b, c, d) = _started_arena(make_user, staff)
    for _ in range(2):  # two waves: everybody plays two games
        for m in Match.objects.filter(tournament=t, status=MatchStatus.PLAYING):
            _resign(m, m.player_b_id)
    # Ratings that make means with halves: 1501 + 1520 is odd.
    for u, r in zip((a, b, c, d), (1501, 1510, 1520, 1530), strict=True):
        Entry.objects.filter(tournament=t, user=u).update(rating=r)
    S.standings_refresh(t)
    rating = dict(Entry.objects.filter(tournament=t).values_list("user_id", "rating"))
    expected = {}
    for m in Match.objects.filter(tournament=t, status=MatchStatus.FINISHED):
        for me, them in ((m.player_a_id, m.player_b_id), (m.player_b_id, m.player_a_id)):
            bonus = 500 if m.winner_id == me else -500
            expected.setdefault(me, []).append(rating[them] + bonus)
    stored = dict(Entry.objects.filter(tournament=t).values_list("user_id", "tiebreak1"))
    assert stored == {u: sum(v) / len(v) for u, v in expected.items()}
    halves = [v for v in stored.values() if v != int(v)]
    assert halves, stored  # some mean is not a whole number, and it is kept so
    page = client.get(t.get_absolute_url()).content.decode()
    for v in halves:
        assert f"<td>{int(v + 0.5)}</td>" in page  # shown rounded (half up)
        assert f"{v:.1f}" not in page
