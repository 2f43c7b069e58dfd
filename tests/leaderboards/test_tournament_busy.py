"""A player whose tournament match is in play sits down among people nowhere else: not at a
table in the lobby, not by an invitation, a challenge or a rematch (their match's clock runs,
and the other table would wait for them). A game against the computer is theirs to play.
Their waiting tables are left when the match starts."""
from __future__ import annotations

import pytest

from games import services as games_services
from games.exceptions import SeatRefused
from games.models import Room, Seat, Table, TableStatus
from leaderboards.tournaments.models import Match
from social import services as social_services
from tests.support.tournaments import (
    create_tournament,
    enter_and_start,
    rated_players,
    resign_match,
)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("rooms")]


def _befriend(a, b):
    social_services.contact_request_send(sender=a, recipient=b)
    req = b.contact_requests_received.get()
    social_services.contact_request_accept(user=b, request_id=req.pk)


def _match(make_user, staff):
    a, b = rated_players(make_user, 2)
    t = create_tournament(staff, capacity=2)
    enter_and_start(t, (a, b))
    return t, a, b, Match.objects.get(tournament=t)


def test_no_seat_among_people_while_the_match_is_in_play(make_user, staff):
    t, a, b, match = _match(make_user, staff)
    c = make_user("carol")
    room = Room.objects.get(slug="classic")
    waiting = games_services.table_create(user=c, room=room, rated=True)
    with pytest.raises(SeatRefused) as refused:
        games_services.table_sit(table_id=waiting.pk, user=a)
    assert str(refused.value) == (f"You are playing a match of {t.name} (Table "
                                  f"{match.table_id}): finish it before you sit at another "
                                  "table.")
    assert not Seat.objects.filter(table=waiting, user=a).exists()
    casual = games_services.table_create(user=c, room=room)
    with pytest.raises(SeatRefused):
        games_services.table_sit(table_id=casual.pk, user=a)
    with pytest.raises(SeatRefused):
        games_services.table_create(user=a, room=room)
    with pytest.raises(SeatRefused, match=f"a match of {t.name}"):  # "Play now"
        games_services.table_quick(user=a, room=room)
    assert not Table.objects.filter(created_by=a).exists()
    # the computer waits for nobody
    computer = games_services.play_computer(user=a, mode="classic", level=1)
    assert computer.status == TableStatus.PLAYING
    # the match over, every table is open to them again
    resign_match(match, b.pk)
    games_services.table_sit(table_id=waiting.pk, user=a)
    assert Table.objects.get(pk=waiting.pk).status == TableStatus.PLAYING


def test_an_invitation_or_a_challenge_is_refused_with_the_reason(make_user, staff):
    from tests.support.accounts import make_bot

    t, a, b, match = _match(make_user, staff)
    c = make_user("carol")
    _befriend(c, a)
    table = games_services.table_create(user=c, room=Room.objects.get(slug="classic"))
    invitation = social_services.invitation_send(sender=c, recipient=a, table_id=table.pk)
    with pytest.raises(social_services.SocialError, match=f"a match of {t.name}") as refused:
        social_services.invitation_accept(user=a, invitation_id=invitation.pk)
    assert refused.value.code == "busy"
    assert not Seat.objects.filter(table=table, user=a).exists()
    # it stays, to accept once the match is over (it was closed: an audit)
    invitation.refresh_from_db()
    assert invitation.status == "pending"
    bot = make_bot(make_user("robot"))
    a.bots_may_challenge = True
    a.save()
    challenge = social_services.challenge_send(sender=bot, recipient=a, mode="classic")
    with pytest.raises(social_services.SocialError, match=f"a match of {t.name}"):
        social_services.challenge_accept(user=a, challenge_id=challenge.pk)
    assert not Table.objects.filter(seats__user=bot).exists()
    challenge.refresh_from_db()
    assert challenge.status == "pending"
    # the match over, both are accepted
    resign_match(match, b.pk)
    social_services.invitation_accept(user=a, invitation_id=invitation.pk)
    assert Seat.objects.filter(table=table, user=a).exists()
    assert social_services.challenge_accept(user=a, challenge_id=challenge.pk).table_id


def test_a_rematch_with_people_is_refused_during_the_match(make_user, staff):
    a, b, c = rated_players(make_user, 3)
    room = Room.objects.get(slug="classic")
    table = games_services.table_create(user=a, room=room)
    games_services.table_sit(table_id=table.pk, user=c)
    games_services.table_resign(table_id=table.pk, user=c)
    t = create_tournament(staff, capacity=2)
    enter_and_start(t, (a, b))
    with pytest.raises(SeatRefused, match=f"a match of {t.name}"):
        games_services.table_rematch(table_id=table.pk, user=a)
    assert not Table.objects.get(pk=table.pk).rematch_offers


def test_the_match_starting_takes_its_players_from_their_waiting_tables(make_user, staff):
    a, b = rated_players(make_user, 2)
    c = make_user("carol")
    room = Room.objects.get(slug="classic")
    alone = games_services.table_create(user=a, room=room, seat_count=2)
    shared = games_services.table_create(user=c, room=Room.objects.get(slug="rummy"),
                                         seat_count=3)
    games_services.table_sit(table_id=shared.pk, user=b)
    t = create_tournament(staff, capacity=2)
    enter_and_start(t, (a, b))
    assert Table.objects.get(pk=alone.pk).status == TableStatus.ABANDONED
    assert list(Seat.objects.filter(table=shared, user__isnull=False)
                .values_list("user_id", flat=True)) == [c.pk]
    # a third player taking the shared table's seat deals no game to b
    d = make_user("dave")
    games_services.table_sit(table_id=shared.pk, user=d)
    assert Table.objects.get(pk=shared.pk).status == TableStatus.OPEN
    assert Match.objects.get(tournament=t).table.status == TableStatus.PLAYING


def test_an_arena_pairs_a_player_only_once_their_game_with_people_is_over(make_user, staff):
    from leaderboards.tournaments import services as S
    from leaderboards.tournaments.models import Format, MatchStatus

    a, b = rated_players(make_user, 2)
    c = make_user("carol")
    room = Room.objects.get(slug="classic")
    casual = games_services.table_create(user=c, room=room)
    t = create_tournament(staff, format=Format.ARENA, duration_minutes=30, capacity=10,
                          target=50)
    for u in (a, b):
        S.tournament_enter(tournament_id=t.pk, user=u)
    games_services.table_sit(table_id=casual.pk, user=a)  # entered, then sat down to play c
    # (a game against the computer waits for nobody: b's does not keep b from the arena)
    games_services.play_computer(user=b, mode="classic", level=1)
    from tests.support.tournaments import make_due

    make_due(t)
    S.tournament_start(tournament_id=t.pk)
    assert not Match.objects.filter(tournament=t).exists()  # a is busy with carol
    games_services.table_resign(table_id=casual.pk, user=c)
    S.tournament_tick(tournament_id=t.pk)
    match = Match.objects.get(tournament=t)
    assert {match.player_a_id, match.player_b_id} == {a.pk, b.pk}
    assert match.status == MatchStatus.PLAYING


def test_an_arena_does_not_wait_for_a_private_game(make_user, staff):
    """A private game is nobody else's business: an arena that held its player back told the
    others that they were in a game nobody could see, and when it ended."""
    from leaderboards.tournaments import services as S
    from leaderboards.tournaments.models import Format
    from tests.support.tournaments import make_due

    a, b = rated_players(make_user, 2)
    c = make_user("carol")
    secret = games_services.table_create(user=c, room=Room.objects.get(slug="classic"),
                                         private=True)
    t = create_tournament(staff, format=Format.ARENA, duration_minutes=30, capacity=10,
                          target=50)
    for u in (a, b):
        S.tournament_enter(tournament_id=t.pk, user=u)
    games_services.table_sit(table_id=secret.pk, user=a, invite=secret.invite_token)
    assert Table.objects.get(pk=secret.pk).status == TableStatus.PLAYING
    make_due(t)
    S.tournament_start(tournament_id=t.pk)
    match = Match.objects.get(tournament=t)
    assert {match.player_a_id, match.player_b_id} == {a.pk, b.pk}


def test_a_waiting_table_that_starts_meanwhile_does_not_stop_the_pairing(make_user, staff,
                                                                          monkeypatch):
    """The waiting tables are read, then left one by one: one whose last seat was taken in
    between refuses the leave, and the match opens all the same."""
    from games.exceptions import NotOpen
    from games.services import leaving

    a, b = rated_players(make_user, 2)
    room = Room.objects.get(slug="classic")
    raced = games_services.table_create(user=a, room=room)
    other = games_services.table_create(user=b, room=room)
    real = leaving.table_leave

    def leave(*, table_id, user):
        if table_id == raced.pk:
            raise NotOpen("The game has started: resign instead.")
        return real(table_id=table_id, user=user)

    monkeypatch.setattr(leaving, "table_leave", leave)
    t = create_tournament(staff, capacity=2)
    enter_and_start(t, (a, b))
    assert Match.objects.get(tournament=t).table.status == TableStatus.PLAYING
    assert Table.objects.get(pk=other.pk).status == TableStatus.ABANDONED


def test_the_one_accepting_a_challenge_reads_no_reason_of_the_challengers(make_user, staff):
    """The challenger's refusal is theirs: a bot accepting read "You are playing a match of
    <a private tournament> (Table n)…" of the person who had challenged it."""
    from tests.support.accounts import make_bot

    t, a, b, match = _match(make_user, staff)
    bot = make_bot(make_user("robot"))
    challenge = social_services.challenge_send(sender=a, recipient=bot, mode="classic")
    with pytest.raises(social_services.SocialError) as refused:
        social_services.challenge_accept(user=bot, challenge_id=challenge.pk)
    assert str(refused.value) == f"{a.public_name} cannot play this game now."
    assert t.name not in str(refused.value)


def test_a_rematch_offer_made_before_the_match_lapses_when_it_begins(make_user, staff):
    """a offered a rematch, then their tournament match began: c's acceptance dealt a
    second game beside the match. Now a's offer has lapsed, and no rematch is dealt."""
    a, b, c = rated_players(make_user, 3)
    room = Room.objects.get(slug="classic")
    table = games_services.table_create(user=a, room=room)
    games_services.table_sit(table_id=table.pk, user=c)
    games_services.table_resign(table_id=table.pk, user=c)
    games_services.table_rematch(table_id=table.pk, user=a)
    t = create_tournament(staff, capacity=2)
    enter_and_start(t, (a, b))
    from django.utils import timezone

    # a is still at the finished table (its socket open): their offer would stand
    Seat.objects.filter(table=table).update(connected=True, last_seen=timezone.now())
    after = games_services.table_rematch(table_id=table.pk, user=c)
    assert after.rematch_table_id is None
    seats = {s.index: s.user_id for s in Seat.objects.filter(table=table)}
    assert [seats[i] for i in after.rematch_offers] == [c.pk]
    assert not Table.objects.filter(created_by__in=[a, c]).exclude(pk=table.pk).exists()


def test_your_tables_say_which_is_a_tournament_match(make_user, staff, client):
    """Your tables listed the match as any table (an audit): it says whose match it is."""
    t, a, b, match = _match(make_user, staff)
    client.force_login(a)
    page = client.get("/play/").content.decode()
    assert f'data-table="{match.table_id}"' in page
    assert f'<span class="tag">a match of {t.name}</span>' in page
    games_services.play_computer(user=a, mode="classic", level=1)
    assert client.get("/play/").content.decode().count('<span class="tag">a match of') == 1
