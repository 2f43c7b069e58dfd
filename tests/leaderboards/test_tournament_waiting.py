"""A player in two tournaments plays one match at a time: a match paired while one of its
players is in a game with people elsewhere (the other tournament's match) waits, tableless
and without a no-show clock, and its table opens once both are free. It was opened at once:
the player had two games with running clocks and lost one as absent."""
from __future__ import annotations

from datetime import timedelta
from unittest import mock

import pytest
from django.utils import timezone

from games import services as games_services
from games.exceptions import GameServiceError, SeatRefused
from games.models import Room, Table, TableStatus
from leaderboards.tournaments import services as S
from leaderboards.tournaments.models import Format, Match, MatchEnding, MatchStatus, Status
from leaderboards.tournaments.selectors import page_data
from tests.support.tournaments import (
    create_tournament,
    enter_and_start,
    rated_players,
    resign_match,
)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("rooms")]


def _busy_in_a_match(make_user, staff):
    """p0 and p1 playing the match of "Friday Cup"; p2 and p3 free."""
    players = rated_players(make_user, 4)
    first = create_tournament(staff, capacity=2)
    enter_and_start(first, players[:2])
    return first, Match.objects.get(tournament=first), players


def test_a_match_waits_for_a_player_busy_in_another_tournament(make_user, staff, client):
    first, playing, (p0, p1, p2, _) = _busy_in_a_match(make_user, staff)
    second = create_tournament(staff, name="Night Cup", capacity=2)
    enter_and_start(second, (p1, p2))
    waiting = Match.objects.get(tournament=second)
    assert waiting.status == MatchStatus.WAITING
    assert waiting.table_id is None
    assert Table.objects.filter(seats__user=p1).count() == 1  # the first match's alone
    # the page says what is going on
    data = page_data(second, p2)
    assert data["my_waiting"] == waiting and data["my_match"] is None
    client.force_login(p2)
    page = client.get(second.get_absolute_url()).content.decode()
    assert f"Your match against {p1.public_name} is paired: its table opens as soon" in page
    assert "starts when both are free" in page
    # p2 keeps free for it: a new game with people would keep the match waiting
    with pytest.raises(SeatRefused, match="Your match of Night Cup opens as soon as both"):
        games_services.table_create(user=p2, room=Room.objects.get(slug="classic"))
    # nobody is absent from a table that is not open: the sweep forfeits nothing
    Match.objects.filter(pk=waiting.pk).update(created_at=timezone.now() - timedelta(hours=1))
    assert S.tournament_tick(tournament_id=second.pk)["no_shows"] == 0
    assert Match.objects.get(pk=waiting.pk).status == MatchStatus.WAITING
    # the first match over, the second opens at once (the finished game's task), its
    # no-show clock starting now
    before = timezone.now()
    resign_match(playing, p0.pk)
    opened = Match.objects.get(pk=waiting.pk)
    assert opened.status == MatchStatus.PLAYING
    assert opened.table.status == TableStatus.PLAYING
    assert set(opened.table.seats.values_list("user_id", flat=True)) == {p1.pk, p2.pk}
    assert opened.created_at >= before
    assert S.tournament_tick(tournament_id=second.pk)["no_shows"] == 0


def test_the_sweep_opens_a_waiting_match_whose_result_task_was_lost(make_user, staff):
    first, playing, (p0, p1, p2, _) = _busy_in_a_match(make_user, staff)
    second = create_tournament(staff, name="Night Cup", capacity=2)
    enter_and_start(second, (p1, p2))
    from leaderboards.tournaments import tasks

    with mock.patch.object(tasks.game_finished, "delay"):
        resign_match(playing, p0.pk)
    assert Match.objects.get(tournament=second).status == MatchStatus.WAITING
    assert S.tournament_tick(tournament_id=second.pk)["waiting"] == 1
    assert Match.objects.get(tournament=second).table.status == TableStatus.PLAYING


def test_a_round_waits_for_its_waiting_match(make_user, staff):
    first, playing, (p0, p1, p2, p3) = _busy_in_a_match(make_user, staff)
    swiss = create_tournament(staff, name="Swiss Cup", format=Format.SWISS, capacity=4,
                              rounds=2)
    from tests.support.tournaments import here

    q = make_user("quinn")
    here(q)
    enter_and_start(swiss, (p1, p2, p3, q))
    round_one = {m.status: m for m in Match.objects.filter(tournament=swiss, round=1)}
    assert set(round_one) == {MatchStatus.WAITING, MatchStatus.PLAYING}
    # the other match of the round ends: round 2 waits for the waiting one
    other = round_one[MatchStatus.PLAYING]
    resign_match(other, other.player_b_id)
    assert not Match.objects.filter(tournament=swiss, round=2).exists()
    resign_match(playing, p0.pk)
    late = Match.objects.get(pk=round_one[MatchStatus.WAITING].pk)
    assert late.status == MatchStatus.PLAYING
    resign_match(late, late.player_b_id)
    assert Match.objects.filter(tournament=swiss, round=2).count() == 2


def test_withdrawing_forfeits_a_waiting_match(make_user, staff):
    first, playing, (p0, p1, p2, _) = _busy_in_a_match(make_user, staff)
    second = create_tournament(staff, name="Night Cup", capacity=2)
    enter_and_start(second, (p1, p2))
    S.tournament_withdraw(tournament_id=second.pk, user=p2)
    match = Match.objects.get(tournament=second)
    assert (match.status, match.winner_id, match.ending) == (
        MatchStatus.FINISHED, p1.pk, MatchEnding.WITHDRAWAL)
    assert match.table_id is None
    second.refresh_from_db()
    assert second.status == Status.FINISHED
    resign_match(playing, p0.pk)  # nothing opens after it
    assert match.table_id is None and not Table.objects.filter(seats__user=p2).exists()


def test_a_cancelled_tournament_drops_its_waiting_match(make_user, staff):
    first, playing, (p0, p1, p2, _) = _busy_in_a_match(make_user, staff)
    second = create_tournament(staff, name="Night Cup", capacity=2)
    enter_and_start(second, (p1, p2))
    S.tournament_cancel(tournament_id=second.pk, user=staff, reason="Storm")
    assert not Match.objects.filter(tournament=second).exists()
    # p2 is free again, and p1's first match ending opens nothing
    games_services.table_create(user=p2, room=Room.objects.get(slug="classic"))
    resign_match(playing, p0.pk)
    assert not Table.objects.filter(seats__user=p1, status=TableStatus.PLAYING).exists()


def test_the_match_that_waited_opens_before_what_the_result_pairs(make_user, staff):
    players = rated_players(make_user, 5)
    cup = create_tournament(staff, capacity=4)
    enter_and_start(cup, players[:4])
    semis = list(Match.objects.filter(tournament=cup))
    x = semis[0].player_a
    other = create_tournament(staff, name="Night Cup", capacity=2)
    enter_and_start(other, (x, players[4]))
    waited = Match.objects.get(tournament=other)
    assert waited.status == MatchStatus.WAITING
    resign_match(semis[1], semis[1].player_b_id)
    resign_match(semis[0], semis[0].player_b_id)  # x goes through to the final
    # the Night Cup's match, paired first, opens; the final waits for it
    assert Match.objects.get(pk=waited.pk).status == MatchStatus.PLAYING
    final = Match.objects.get(tournament=cup, status__in=(MatchStatus.WAITING,
                                                          MatchStatus.PLAYING))
    assert x.pk in (final.player_a_id, final.player_b_id)
    assert final.status == MatchStatus.WAITING


def test_an_arena_pairing_dropped_while_waiting_leaves_the_numbering_whole(make_user, staff,
                                                                            monkeypatch):
    """A waiting arena pairing whose player was playbanned meanwhile is dropped (an arena
    forfeits nothing); the next pairings are numbered on from the highest, not from a count
    that the gap made too small (it gave the number of a match that stands)."""
    from leaderboards.tournaments.models import Entry
    from tests.support.tournaments import started_arena

    t, players = started_arena(make_user, staff)
    from tests.support.tournaments import here

    e, f = make_user("erin"), make_user("fay")
    here(e, f)
    for u in (e, f):
        Entry.objects.create(tournament=t, user=u, seed=10 + u.pk)
    carl = make_user("carl")
    casual = games_services.table_create(user=carl, room=Room.objects.get(slug="classic"))
    games_services.table_sit(table_id=casual.pk, user=e)  # e is busy with carl
    Match.objects.create(tournament=t, key="A3", round=0, player_a=e, player_b=f,
                         status=MatchStatus.WAITING)
    for m in list(Match.objects.filter(tournament=t, status=MatchStatus.PLAYING)):
        resign_match(m, m.player_b_id)
    keys = set(Match.objects.filter(tournament=t).values_list("key", flat=True))
    assert {"A4", "A5"} <= keys
    monkeypatch.setattr(S.ratings, "playban_until",
                        lambda u: timezone.now() + timedelta(hours=1) if u == e else None)
    games_services.table_resign(table_id=casual.pk, user=carl)  # e is free: and banned
    assert not Match.objects.filter(tournament=t, key="A3").exists()
    resign_match(Match.objects.get(tournament=t, key="A4"),
                 Match.objects.get(tournament=t, key="A4").player_b_id)
    assert Match.objects.filter(tournament=t, key="A6").exists()


def test_a_game_ended_by_the_sweep_opens_the_waiting_match_before_the_next_pairing(
        make_user, staff):
    """A no-show forfeited by the sweep ended x's game and let its tournament pair x again
    in the same sweep, ahead of the match that had waited for that game (an audit saw the
    waiting one passed over); a player's match paired first opens first, whatever ended the
    game."""
    players = rated_players(make_user, 5)
    cup = create_tournament(staff, capacity=4)
    enter_and_start(cup, players[:4])
    semis = list(Match.objects.filter(tournament=cup).order_by("pk"))
    x = semis[0].player_a
    other = create_tournament(staff, name="Night Cup", capacity=2)
    enter_and_start(other, (x, players[4]))
    waited = Match.objects.get(tournament=other)
    resign_match(semis[1], semis[1].player_b_id)
    # nobody came to x's semi-final: the sweep forfeits it (player b loses), x goes through
    Match.objects.filter(pk=semis[0].pk).update(created_at=timezone.now() - timedelta(hours=1))
    assert S.tournament_tick(tournament_id=cup.pk)["no_shows"] == 1
    assert Match.objects.get(pk=waited.pk).status == MatchStatus.PLAYING
    final = Match.objects.get(tournament=cup, status__in=(MatchStatus.WAITING,
                                                          MatchStatus.PLAYING))
    assert x.pk in (final.player_a_id, final.player_b_id)
    assert final.status == MatchStatus.WAITING and final.table_id is None


def test_a_waiting_match_takes_its_players_from_their_waiting_tables(make_user, staff):
    """Paired and waiting, a player sitting at a table waiting for players was dealt a game
    there when someone took its last seat, and their match waited on (an audit)."""
    first, playing, (p0, p1, p2, _) = _busy_in_a_match(make_user, staff)
    carol = make_user("carol")
    table = games_services.table_create(user=p2, room=Room.objects.get(slug="classic"))
    second = create_tournament(staff, name="Night Cup", capacity=2)
    enter_and_start(second, (p1, p2))
    assert Match.objects.get(tournament=second).status == MatchStatus.WAITING
    assert not Table.objects.filter(pk=table.pk, seats__user=p2).exists()
    with pytest.raises(GameServiceError):  # (left, the table closed: nobody waits there)
        games_services.table_sit(table_id=table.pk, user=carol)
    assert not Table.objects.filter(seats__user=p2, status=TableStatus.PLAYING).exists()


def test_an_arena_does_not_pair_a_player_whose_other_match_waits(make_user, staff):
    from tests.support.tournaments import make_due

    first, playing, (p0, p1, p2, p3) = _busy_in_a_match(make_user, staff)
    second = create_tournament(staff, name="Night Cup", capacity=2)
    enter_and_start(second, (p1, p2))  # p2 waits for p1
    arena = create_tournament(staff, name="Arena", format=Format.ARENA, duration_minutes=30,
                              capacity=10, target=50)
    for u in (p2, p3):
        S.tournament_enter(tournament_id=arena.pk, user=u)
    make_due(arena)
    S.tournament_start(tournament_id=arena.pk)
    assert not Match.objects.filter(tournament=arena).exists()


def test_both_players_are_told_their_match_waits_then_that_it_is_ready(make_user, staff,
                                                                       monkeypatch):
    import social.notify

    sent = []
    monkeypatch.setattr(social.notify, "notify_users",
                        lambda ids, frame: sent.append((list(ids), frame)))
    first, playing, (p0, p1, p2, _) = _busy_in_a_match(make_user, staff)
    second = create_tournament(staff, name="Night Cup", capacity=2)
    sent.clear()
    enter_and_start(second, (p1, p2))
    waiting = {ids[0]: f for ids, f in sent if f["event"] == "waiting"}
    assert set(waiting) == {p1.pk, p2.pk}
    assert waiting[p2.pk]["opponent"]["username"] == p1.username
    assert waiting[p2.pk]["tournament"]["url"] == second.get_absolute_url()
    assert not any(f["event"] == "match" for _, f in sent)
    resign_match(playing, p0.pk)
    ready = {ids[0]: f for ids, f in sent if f["event"] == "match"
             and f["tournament"]["id"] == second.pk}
    assert set(ready) == {p1.pk, p2.pk}


def test_a_private_tournaments_waiting_match_holds_no_public_pairing(make_user, staff):
    """A public match held by a private tournament's waiting match would tell everyone that
    a game nobody may see was due: a private tournament holds nobody elsewhere, as a private
    game does not."""
    first, playing, (p0, p1, p2, p3) = _busy_in_a_match(make_user, staff)
    from tests.support.tournaments import make_due

    secret = create_tournament(staff, name="Secret Cup", capacity=2, private=True)
    for u in (p1, p2):
        S.tournament_enter(tournament_id=secret.pk, user=u, invite=secret.invite_token)
    make_due(secret)
    S.tournament_start(tournament_id=secret.pk)  # its match waits for p1
    assert Match.objects.get(tournament=secret).status == MatchStatus.WAITING
    public = create_tournament(staff, name="Open Cup", capacity=2)
    enter_and_start(public, (p2, p3))
    assert Match.objects.get(tournament=public).status == MatchStatus.PLAYING


def test_opening_waiting_matches_reads_the_same_whatever_waits(make_user, staff,
                                                               django_assert_max_num_queries):
    """Whether others wait elsewhere is read once for the tournament, not once a match."""
    from leaderboards.tournaments.services.matches import matches_waiting_open

    first, playing, (p0, p1, p2, _) = _busy_in_a_match(make_user, staff)
    second = create_tournament(staff, name="Night Cup", capacity=2)
    enter_and_start(second, (p1, p2))
    for key, other in (("X1", p0), ("X2", p2)):  # (more waiting, as a larger event would)
        Match.objects.create(tournament=second, key=key, player_a=p1, player_b=other,
                             status=MatchStatus.WAITING)
    from django.db import connection, transaction

    # matches, users, in play, waiting elsewhere (and on PostgreSQL the pairing lock; it is
    # taken inside a transaction, as every caller's is)
    with transaction.atomic(), django_assert_max_num_queries(
            5 if connection.vendor == "postgresql" else 4):
        assert matches_waiting_open(second) == 0


def test_the_home_and_play_pages_list_a_players_waiting_match(make_user, staff, client):
    """A waiting match has no table, so Your tables did not list it: the player saw it on
    the tournament's page alone. Its two players see it on the home and Play pages, with the
    tournament's link; nobody else does."""
    _, _, (_, p1, p2, p3) = _busy_in_a_match(make_user, staff)
    second = create_tournament(staff, name="Night Cup", capacity=2)
    enter_and_start(second, (p1, p2))
    assert Match.objects.get(tournament=second).status == MatchStatus.WAITING
    for user, opponent in ((p2, p1), (p1, p2)):
        client.force_login(user)
        for url in ("/", "/play/"):
            page = client.get(url).content.decode()
            assert "Tournament match paired" in page, (user, url)
            assert (f"Your match against <bdi>{opponent.public_name}</bdi> in "
                    f'<a href="{second.get_absolute_url()}"><bdi>Night Cup</bdi></a> is paired'
                    in page), (user, url)
    client.force_login(p3)
    assert "Tournament match paired" not in client.get("/").content.decode()
    client.logout()
    assert "Tournament match paired" not in client.get("/play/").content.decode()
    # opened, it is a table of Your tables, and no longer listed as paired
    Match.objects.filter(tournament=second).update(status=MatchStatus.PLAYING)
    client.force_login(p2)
    assert "Tournament match paired" not in client.get("/").content.decode()
