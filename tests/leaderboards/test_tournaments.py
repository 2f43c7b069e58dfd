"""Tournament services: create, enter and withdraw, cancellation, schedules, the players
told of their match, and the sweep making good a lost task (the formats played through:
test_tournament_formats.py)."""
from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone

from games.models import Table, TableStatus
from leaderboards.models import Rating
from leaderboards.tournaments import services as S
from leaderboards.tournaments.conf import max_upcoming
from leaderboards.tournaments.models import (
    Entry,
    Format,
    Match,
    MatchEnding,
    MatchStatus,
    OutReason,
    Status,
    Tournament,
    TournamentSchedule,
)
from tests.support.accounts import make_bot
from tests.support.records import make_game
from tests.support.tournaments import create_tournament as _create
from tests.support.tournaments import enter_and_start
from tests.support.tournaments import make_due as _due
from tests.support.tournaments import rated_players as _players
from tests.support.tournaments import resign_match as _resign
from tests.support.tournaments import soon as _soon

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("rooms")]


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
                {"format": "knockout"}, {"mode": "chess"}, {"name": "Cup \x1b[31m"},
                {"name": "Cup \u202eevil"}):
        with pytest.raises(S.TournamentError):
            _create(staff, **bad)
    assert not Tournament.objects.exists()
    # a name of zero-width spaces alone shows nothing (its list link was invisible)
    with pytest.raises(S.TournamentError, match="characters that show"):
        _create(staff, name="\u200b" * 4)
    assert not Tournament.objects.exists()
    t = _create(newbie, format=Format.SWISS, capacity=40)
    assert t.rounds == 7 and t.target == 100 and t.status == Status.SCHEDULED


def test_a_player_has_a_few_tournaments_waiting_at_most(make_user, staff, client):
    """An outside audit: one player made 45 tournaments in a few seconds, each on the list of
    upcoming ones. A player may have TOURNAMENTS_MAX_UPCOMING waiting to start; staff any."""
    host = make_user("host")
    for _ in range(S.min_rated_games()):
        make_game([host, make_user()])
    most = max_upcoming()
    assert most == 3
    made = [_create(host, name=f"Cup {i}") for i in range(most)]
    with pytest.raises(S.TournamentError, match="already have 3 tournaments waiting") as err:
        _create(host, name="One more")
    assert err.value.code == "too_many"
    assert Tournament.objects.filter(created_by=host).count() == most
    # the form says why, and creates nothing
    client.force_login(host)
    start = (timezone.now() + timedelta(hours=2)).strftime("%Y-%m-%dT%H:%M")
    page = client.post("/tournaments/new/", {
        "name": "Form cup", "mode": "classic", "format": "single", "capacity": "8",
        "seconds_per_turn": "30", "starts_at": start})
    assert page.status_code == 400 and "already have 3 tournaments" in page.content.decode()
    assert Tournament.objects.filter(created_by=host).count() == most
    # one cancelled: room for another; staff are not counted
    S.tournament_cancel(tournament_id=made[0].pk, user=host)
    _create(host, name="Cup again")
    for i in range(most + 1):
        _create(staff, name=f"Staff cup {i}")


def test_enter_and_withdraw_rules(make_user, staff, monkeypatch):
    alice, bob, carol = _players(make_user, 3, ratings=[1400, 1600, 1900])
    t = _create(staff, capacity=2, rating_min=1500, rating_max=1800)
    # a provisional rating is written with its "?", as on every page (an outside audit read
    # "Your rating (1330)" for a provisional 1330?)
    Rating.objects.filter(user=alice).update(provisional=True)
    Rating.objects.filter(user=carol).update(provisional=False)
    with pytest.raises(S.NotAllowed, match=r"^Your rating \(1400\?\) is below this tournament's "
                                           r"floor \(1500\)\.$"):
        S.tournament_enter(tournament_id=t.pk, user=alice)
    with pytest.raises(S.NotAllowed, match=r"^Your rating \(1900\) is above this tournament's "
                                           r"ceiling \(1800\)\.$"):
        S.tournament_enter(tournament_id=t.pk, user=carol)
    S.tournament_enter(tournament_id=t.pk, user=bob)
    with pytest.raises(S.TournamentError, match="already"):
        S.tournament_enter(tournament_id=t.pk, user=bob)
    dave = make_user("dave")
    monkeypatch.setattr(S.ratings, "playban_until", lambda u: _soon(60) if u == dave else None)
    with pytest.raises(S.NotAllowed, match="rated games until") as refused:
        S.tournament_enter(tournament_id=t.pk, user=dave)
    # the site's one way to write a moment, with its time zone ("Sun 6 Dec, 07:50 UTC")
    assert re.search(r"until \w{3} \d{1,2} \w{3}, \d\d:\d\d UTC\.$", str(refused.value))
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


def test_withdrawing_mid_event_forfeits_the_rest(make_user, staff):
    users = _players(make_user, 4)
    t = _create(staff, capacity=4)
    enter_and_start(t, users)
    m = Match.objects.filter(tournament=t).order_by("key").first()
    assert not Table.objects.get(pk=m.table_id).private  # a public event: anyone may watch
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
    with pytest.raises(S.TournamentError, match="at most 200 characters; it has 201"):
        S.tournament_cancel(tournament_id=t.pk, user=users[0], reason="word " * 40 + "x")
    t.refresh_from_db()
    assert t.status == Status.SCHEDULED  # refused, not cut off mid-word
    S.tournament_cancel(tournament_id=t.pk, user=users[0], reason="  rain  ")
    t.refresh_from_db()
    assert t.status == Status.CANCELLED and t.cancel_reason == "rain"


def test_refusals_name_the_real_reason(make_user, staff):
    """Entering, cancelling or withdrawing at a tournament that has ended says so; a second
    withdrawal says the player already withdrew."""
    users = _players(make_user, 5)
    for _ in range(S.min_rated_games()):
        make_game([users[0], users[1]])
    early = _create(users[0])
    S.tournament_enter(tournament_id=early.pk, user=users[1])
    S.tournament_cancel(tournament_id=early.pk, user=users[0], reason="rain")
    with pytest.raises(S.TournamentError, match="cancelled before its start"):
        S.tournament_cancel(tournament_id=early.pk, user=users[0], reason="again")
    with pytest.raises(S.TournamentError, match="cancelled before its start"):
        S.tournament_withdraw(tournament_id=early.pk, user=users[1])
    with pytest.raises(S.TournamentError,
                       match="Entries are closed: the tournament was cancelled before"):
        S.tournament_enter(tournament_id=early.pk, user=users[2])

    running = _create(staff, capacity=4)
    enter_and_start(running, users[:4])
    S.tournament_withdraw(tournament_id=running.pk, user=users[0])
    with pytest.raises(S.TournamentError, match="already withdrawn"):
        S.tournament_withdraw(tournament_id=running.pk, user=users[0])
    S.tournament_cancel(tournament_id=running.pk, user=staff, reason="power cut")
    with pytest.raises(S.TournamentError, match="^The tournament was cancelled.$"):
        S.tournament_withdraw(tournament_id=running.pk, user=users[1])

    Tournament.objects.filter(pk=running.pk).update(status=Status.FINISHED)
    with pytest.raises(S.TournamentError, match="Entries are closed: the tournament is over"):
        S.tournament_enter(tournament_id=running.pk, user=users[4])
    with pytest.raises(S.TournamentError, match="The tournament is over"):
        S.tournament_cancel(tournament_id=running.pk, user=staff, reason="late")
    # withdrawing too, for someone who never entered (it had said "You are not in this
    # tournament", an outside audit) and for one who had already withdrawn
    for user in (users[4], users[0], users[1]):
        with pytest.raises(S.TournamentError, match="^The tournament is over.$") as over:
            S.tournament_withdraw(tournament_id=running.pk, user=user)
        assert over.value.code == "over"


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
    enter_and_start(t, (a, b))
    m = Match.objects.get(tournament=t)
    ready = {ids[0]: f for ids, f in sent if f["event"] == "match"}
    assert set(ready) == {a.pk, b.pk}
    assert ready[a.pk]["table"] == {"id": m.table_id, "url": m.table.get_absolute_url()}
    assert ready[a.pk]["opponent"]["username"] == b.username
    assert ready[a.pk]["tournament"]["url"] == t.get_absolute_url()
    assert any(f["event"] == "started" and set(ids) == {a.pk, b.pk} for ids, f in sent)


def test_the_sweep_records_a_result_whose_task_was_lost(make_user, staff):
    from games import signals
    from leaderboards.tournaments import receivers

    signals.game_finished.disconnect(dispatch_uid="tournaments.game_finished")
    try:
        a, b = _players(make_user, 2)
        t = _create(staff, capacity=2)
        enter_and_start(t, (a, b))
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
    enter_and_start(t, users)
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
    assert Entry.objects.get(tournament=t, user_id=banned).out_reason == OutReason.BANNED
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


def test_a_match_table_offers_no_rematch_even_over_the_socket(make_user, staff):
    """The page offers no rematch after a match, and the server refuses one sent anyway (a
    rematch would keep both players from the tournament's next game); a table of no
    tournament still has its rematch."""
    from asgiref.sync import async_to_sync

    from games import services as games_services
    from games.exceptions import RematchRefused
    from tests.support.sockets import connect, recv, send
    from tests.support.tables import start_table

    a, b = _players(make_user, 2)
    t = _create(staff, capacity=2)
    enter_and_start(t, (a, b))
    m = Match.objects.get(tournament=t)
    _resign(m, m.player_b_id)
    table = Table.objects.get(pk=m.table_id)
    assert table.status == TableStatus.FINISHED
    with pytest.raises(RematchRefused, match="no rematch") as refused:
        games_services.table_rematch(table_id=table.pk, user=a)
    # the final of a finished tournament: no next match to send the players to
    assert "next match" not in str(refused.value)
    assert "results are on the tournament's page" in str(refused.value)

    async def over_the_socket():
        comm = await connect(table.pk, b)
        try:
            await recv(comm, "snapshot")
            await send(comm, {"type": "rematch", "accept": True, "id": "r1"})
            return await recv(comm, "error")
        finally:
            await comm.disconnect()

    err = async_to_sync(over_the_socket)()
    assert err["code"] == "no_rematch" and t.name in err["message"]
    table.refresh_from_db()
    assert table.rematch_offers == [] and table.rematch_table_id is None
    # withdrawing (nothing to withdraw) stays allowed: it changes nothing anyway
    games_services.table_rematch(table_id=table.pk, user=a, accept=False)

    from games.models import Room

    other = start_table(Room.objects.get(slug="classic"), [a, b])
    games_services.table_resign(table_id=other.pk, user=b)
    assert games_services.table_rematch(table_id=other.pk, user=a).rematch_offers == [
        s.index for s in other.seats.all() if s.user_id == a.pk]


def test_a_private_tournaments_games_are_its_players_alone(make_user, staff, client):
    """A private tournament's matches were dealt at public tables: someone outside it could
    open the table ("Round 1 of Secret Duel"), its game and the players' profiles showed it.
    The tables are private now, as a private table is everywhere."""
    users = _players(make_user, 2)
    t = _create(staff, private=True, format=Format.SINGLE, capacity=2)
    for u in users:
        S.tournament_enter(tournament_id=t.pk, user=u, invite=t.invite_token)
    _due(t)
    S.tournament_start(tournament_id=t.pk)
    match = Match.objects.get(tournament=t)
    table = Table.objects.get(pk=match.table_id)
    assert table.private and table.invite_token
    outsider = make_user("eve")
    client.force_login(outsider)
    page = client.get(f"/tables/{table.pk}/")
    assert page.status_code == 404 and b"Round 1" not in page.content
    client.force_login(users[0])
    assert client.get(f"/tables/{table.pk}/").status_code == 200
