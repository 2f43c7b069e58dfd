"""Tournament pages: list, create form, page with bracket and standings, live endpoint,
enter and withdraw from the lobby, the room and the page; private tournaments; profiles."""
from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone

from core.moments import moment
from games.models import Room
from games.rooms import ensure_default_rooms
from leaderboards.tournaments import services as S
from leaderboards.tournaments.models import Entry, Format, Match, Status, Tournament
from tests.support.records import make_game

pytestmark = pytest.mark.django_db(transaction=True)
PASSWORD = "a-Strong-pass-123"


@pytest.fixture(autouse=True)
def rooms(db):
    ensure_default_rooms(Room)


def _create(user, **kw):
    kw.setdefault("name", "Sunday Open")
    kw.setdefault("starts_at", timezone.now() + timedelta(minutes=30))
    return S.tournament_create(user=user, **kw)


def _login(client, user):
    assert client.login(username=user.username, password=PASSWORD)


def test_list_shows_upcoming_running_finished(client, staff, make_user):
    _create(staff, name="Upcoming Cup")
    hidden = _create(staff, name="Secret Cup", private=True)
    page = client.get("/tournaments/")
    assert page.status_code == 200
    body = page.content.decode()
    assert "Upcoming Cup" in body and "Secret Cup" not in body
    assert "No tournament is being played now." in body
    assert client.get(hidden.get_absolute_url()).status_code == 404
    assert client.get(S.invite_url(hidden)).status_code == 200


def test_a_right_to_left_name_is_isolated_from_the_text_around_it(client, staff, make_user):
    """A Hebrew name in "Arena game of <name>: after the game, ..." or a list row could
    reorder the text that follows it: every name sits in a <bdi>."""
    t = _create(staff, name="\u05d2\u05d1\u05d9\u05e2 \u05e9\u05d1\u05ea")
    assert f"<bdi>{t.name}</bdi>" in client.get("/tournaments/").content.decode()
    assert f"<bdi>{t.name}</bdi>" in client.get(t.get_absolute_url()).content.decode()


def test_a_private_tournament_refuses_an_invite_outside_ascii(client, staff, make_user):
    """The page's link checked out but the form's invite is "ünï": refused, not a 500 (the
    comparison of secrets raised on a character outside ASCII)."""
    hidden = _create(staff, name="Secret Cup", private=True)
    _login(client, make_user("guest"))
    answer = client.post(f"/tournaments/{hidden.pk}/enter/?invite={hidden.invite_token}",
                         {"invite": "\u00fcn\u00ef"})
    assert answer.status_code < 500
    assert not Entry.objects.filter(tournament=hidden).exists()


def test_create_form(client, make_user):
    user = make_user("maker")
    _login(client, user)
    assert "Play 3 rated games" in client.get("/tournaments/new/").content.decode()
    start = (timezone.now() + timedelta(hours=2)).strftime("%Y-%m-%dT%H:%M")
    form = {"name": "My Cup", "mode": "classic", "format": "single", "capacity": "8",
            "seconds_per_turn": "30", "starts_at": start}
    assert client.post("/tournaments/new/", form).status_code == 403
    assert not Tournament.objects.exists()
    for _ in range(3):
        make_game([user, make_user()])
    bad = client.post("/tournaments/new/", {**form, "capacity": "300"})
    assert bad.status_code == 400 and "takes 2 to 128 players" in bad.content.decode()
    assert not Tournament.objects.exists()
    ok = client.post("/tournaments/new/", form)
    t = Tournament.objects.get()
    assert ok.status_code == 302 and ok["Location"] == t.get_absolute_url()
    assert t.created_by == user and t.format == Format.SINGLE


def test_entries_that_opened_long_ago_open_now(client, staff):
    """"Entries open" on 1 January of the year 1, by someone in Tokyo: before the database's
    first day once in UTC, a 500 on saving. Entries that opened in the past open now."""
    staff.time_zone = "Asia/Tokyo"
    staff.save()
    client.force_login(staff)
    from zoneinfo import ZoneInfo

    start = (timezone.now() + timedelta(hours=2)).astimezone(ZoneInfo("Asia/Tokyo"))
    answer = client.post("/tournaments/new/", {
        "name": "Fuzz Cup", "mode": "classic", "format": "single", "capacity": "8",
        "target": "100", "seconds_per_turn": "30", "starts_at": start.strftime("%Y-%m-%dT%H:%M"),
        "entry_opens_at": "0001-01-01T00:00"})
    assert answer.status_code == 302
    t = Tournament.objects.get()
    assert abs((t.entry_opens_at - timezone.now()).total_seconds()) < 60


def test_enter_from_the_lobby_and_withdraw_from_the_page(client, staff, make_user):
    t = _create(staff, entry_opens_at=timezone.now() - timedelta(minutes=1))
    user = make_user("joiner")
    _login(client, user)
    lobby = client.get("/play/").content.decode()
    assert "Tournaments starting soon" in lobby and "Sunday Open" in lobby
    room = client.get("/play/classic/").content.decode()
    assert "Sunday Open" in room
    assert "Sunday Open" not in client.get("/play/oklahoma/").content.decode()
    answer = client.post(f"/tournaments/{t.pk}/enter/", {"next": "/play/"})
    assert answer.status_code == 302 and answer["Location"] == "/play/"
    assert Entry.objects.filter(tournament=t, user=user).exists()
    again = client.post(f"/tournaments/{t.pk}/enter/", HTTP_ACCEPT="application/json")
    assert again.status_code == 400 and again.json()["error"]["code"] == "already"
    # An outside "next" is ignored.
    out = client.post(f"/tournaments/{t.pk}/withdraw/", {"next": "https://evil.example/"})
    assert out.status_code == 302 and out["Location"] == t.get_absolute_url()
    assert not Entry.objects.filter(tournament=t).exists()
    assert client.get(f"/tournaments/{t.pk}/enter/").status_code == 405
    # a missing tournament answers in JSON too when JSON is asked for
    for verb in ("enter", "withdraw", "cancel"):
        gone = client.post(f"/tournaments/999999/{verb}/", HTTP_ACCEPT="application/json")
        assert gone.status_code == 404 and gone.json()["error"]["code"] == "not_found", verb
    assert client.post("/tournaments/999999/enter/").status_code == 404


def test_anonymous_cannot_enter(client, staff):
    t = _create(staff)
    answer = client.post(f"/tournaments/{t.pk}/enter/")
    assert answer.status_code == 302 and "/login/" in answer["Location"]
    assert not Entry.objects.exists()


def test_page_draws_the_bracket_and_the_live_endpoint(client, staff, make_user):
    users = [make_user(f"p{i}") for i in range(5)]
    t = _create(staff, capacity=8)
    for u in users:
        S.tournament_enter(tournament_id=t.pk, user=u)
    Tournament.objects.filter(pk=t.pk).update(starts_at=timezone.now())
    S.tournament_start(tournament_id=t.pk)
    t.refresh_from_db()
    match = Match.objects.filter(tournament=t).order_by("key").first()
    me = match.player_a
    _login(client, me)
    page = client.get(t.get_absolute_url()).content.decode()
    assert "Bracket" in page and "Play your match" in page
    assert match.table.get_absolute_url() in page
    assert page.count("<em>bye</em>") == 3
    # who went through is said, not only drawn in bold (the three byes' players so far)
    assert page.count('<span class="visually-hidden"> (won)</span>') == 3
    live = client.get(f"/tournaments/{t.pk}/live/?v={t.version}").json()
    assert live == {"id": t.pk, "version": t.version, "status": Status.RUNNING}
    stale = client.get(f"/tournaments/{t.pk}/live/?v=1").json()
    assert "Play your match" in stale["html"]
    assert client.get(f"/tournaments/{t.pk}/live/?v=abc").json()["html"]
    # JSON whatever the answer: a tournament that is not there too (it was the HTML page)
    missing = client.get("/tournaments/999999/live/")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"


def _running_arena(staff, make_user, prefix):
    """A 30-minute arena that two players (``prefix`` 0 and 1) entered, started now."""
    users = [make_user(f"{prefix}{i}") for i in range(2)]
    t = _create(staff, format=Format.ARENA, duration_minutes=30, capacity=4)
    for u in users:
        S.tournament_enter(tournament_id=t.pk, user=u)
    Tournament.objects.filter(pk=t.pk).update(starts_at=timezone.now())
    S.tournament_start(tournament_id=t.pk)
    t.refresh_from_db()
    return t, users


def test_a_running_arena_says_when_it_ends_as_every_moment_is_written(client, staff,
                                                                     make_user):
    t, _ = _running_arena(staff, make_user, "a")
    assert t.status == Status.RUNNING and t.ends_at
    page = client.get(t.get_absolute_url()).content.decode()
    assert f" · ends <time datetime=\"{t.ends_at.isoformat()}\">{moment(t.ends_at)}</time>" in page


def test_an_arenas_page_lists_its_games_in_play_and_the_latest_finished(client, staff,
                                                                          make_user):
    """A ten-minute arena of four listed its 298 games on one page, 7,800 px high on a phone
    (an outside audit): the games in play, then the latest finished, 40 in all, and a line
    saying how many earlier ones the standings count too."""
    from leaderboards.tournaments.models import MatchStatus
    from leaderboards.tournaments.selectors import ARENA_GAMES_SHOWN

    t, (a, b) = _running_arena(staff, make_user, "r")
    Match.objects.filter(tournament=t).delete()  # (whatever the start paired)
    Match.objects.create(tournament=t, key="A0", round=0, player_a=a, player_b=b,
                         status=MatchStatus.PLAYING)
    Match.objects.bulk_create([
        Match(tournament=t, key=f"A{i + 1}", round=0, player_a=a, player_b=b, winner=a,
              status=MatchStatus.FINISHED, score_a=i, score_b=0)
        for i in range(ARENA_GAMES_SHOWN + 10)])
    page = client.get(t.get_absolute_url()).content.decode()
    games = page[page.index('id="rounds-title"'):]
    assert games.count("<li>") == ARENA_GAMES_SHOWN
    assert "playing" in games.split("<li>")[1]  # the game in play first
    scores = [int(n) for n in re.findall(r"(\d+)–0", games)]
    assert scores == list(range(ARENA_GAMES_SHOWN + 9, 10, -1))  # the latest finished
    assert "And 11 earlier games, counted in the standings above." in games


def test_swiss_page_shows_tiebreaks_and_profile_results(client, staff, make_user):
    users = [make_user(f"s{i}") for i in range(2)]
    t = _create(staff, format=Format.SWISS, rounds=1, capacity=4, target=50)
    for u in users:
        S.tournament_enter(tournament_id=t.pk, user=u)
    Tournament.objects.filter(pk=t.pk).update(starts_at=timezone.now())
    S.tournament_start(tournament_id=t.pk)
    m = Match.objects.get(tournament=t)
    from games import services as games_services

    games_services.table_resign(table_id=m.table_id, user=m.player_b)
    t.refresh_from_db()
    assert t.status == Status.FINISHED
    page = client.get(t.get_absolute_url()).content.decode()
    assert "Buchholz" in page and "Sonneborn-Berger" in page and "won by" in page
    # a resignation at 0-0 read "s0 0–0 s1", the winner told only by bold type
    assert f"· {m.player_a.public_name} won</span>" in page
    profile = client.get(m.player_a.get_absolute_url()).content.decode()
    assert "Sunday Open" in profile and "place 1 of 2" in profile


def test_cancel_from_the_page(client, staff, make_user):
    t = _create(staff)
    other = make_user("other")
    _login(client, other)
    assert client.post(f"/tournaments/{t.pk}/cancel/", {"reason": "x"}).status_code == 302
    t.refresh_from_db()
    assert t.status == Status.SCHEDULED
    client.logout()
    _login(client, staff)
    assert "Cancel this tournament" in client.get(t.get_absolute_url()).content.decode()
    client.post(f"/tournaments/{t.pk}/cancel/", {"reason": "Server move"})
    t.refresh_from_db()
    assert t.status == Status.CANCELLED
    assert "Server move" in client.get("/tournaments/").content.decode()


def test_forms_drawn_by_the_live_endpoint_come_back_to_the_page(client, staff, make_user):
    t = _create(staff)
    _login(client, make_user("late"))
    html = client.get(f"/tournaments/{t.pk}/live/?v=0").json()["html"]
    assert f'name="next" value="{t.get_absolute_url()}"' in html
    assert "/live/" not in html


def test_a_match_table_links_back_to_its_tournament(client, staff, make_user):
    a, b = make_user("ta"), make_user("tb")
    t = _create(staff, capacity=2)
    for u in (a, b):
        S.tournament_enter(tournament_id=t.pk, user=u)
    Tournament.objects.filter(pk=t.pk).update(starts_at=timezone.now())
    S.tournament_start(tournament_id=t.pk)
    m = Match.objects.get(tournament=t)
    _login(client, a)
    page = client.get(m.table.get_absolute_url()).content.decode()
    # (two players: round 1 is the final)
    assert f'href="{t.get_absolute_url()}"' in page and "Final of" in page


def test_enter_and_withdraw_from_the_list(client, staff, make_user):
    """An upcoming tournament is entered from the list itself, as from the lobby's box; the
    answer comes back to the list. A visitor is asked to log in; running and finished rows
    offer nothing."""
    t = _create(staff, name="List Cup")
    body = client.get("/tournaments/").content.decode()
    assert "/accounts/login/?next=/tournaments/" in body
    player = make_user("lister")
    _login(client, player)
    body = client.get("/tournaments/").content.decode()
    assert f'action="/tournaments/{t.pk}/enter/"' in body
    response = client.post(f"/tournaments/{t.pk}/enter/", {"next": "/tournaments/"})
    assert response.status_code == 302 and response.url == "/tournaments/"
    assert Entry.objects.filter(tournament=t, user=player).exists()
    body = client.get("/tournaments/").content.decode()
    assert f'action="/tournaments/{t.pk}/withdraw/"' in body and "you are in" in body
    Tournament.objects.filter(pk=t.pk).update(status=Status.RUNNING)
    body = client.get("/tournaments/").content.decode()
    assert f"/tournaments/{t.pk}/withdraw/" not in body


def test_standings_mark_a_provisional_seed_rating(client, staff, make_user):
    """The standings show each entrant's rating at the start as everywhere else on the site:
    "1500?" while it is provisional, "1612" once settled (it read "1500" for a new player)."""
    from leaderboards.models import Rating
    from tests.support.tournaments import enter_and_start

    settled, new = make_user("settled"), make_user("newcomer")
    Rating.objects.create(user=settled, mode="classic", rating=1612, provisional=False)
    t = _create(staff, format=Format.ROBIN, capacity=4)
    enter_and_start(t, [settled, new])
    entries = {e.user_id: e for e in Entry.objects.filter(tournament=t)}
    assert (entries[settled.pk].rating, entries[settled.pk].provisional) == (1612, False)
    assert entries[new.pk].provisional is True
    body = client.get(t.get_absolute_url()).content.decode()
    assert ">1612<" in body
    assert f">{entries[new.pk].rating}?<" in body


def test_a_private_tournaments_page_links_only_the_viewers_own_tables(client, staff, make_user):
    """A private tournament's tables are its matches' players' alone: its page linked every
    match's table, and the other entrants and its creator got a 404 there."""
    t = _create(staff, name="Secret Robin", private=True, format=Format.ROBIN, capacity=4)
    players = [make_user(name) for name in ("frank", "gina", "hank", "ivy")]
    for user in players:
        S.tournament_enter(tournament_id=t.pk, user=user, invite=t.invite_token)
    Tournament.objects.filter(pk=t.pk).update(starts_at=timezone.now() - timedelta(seconds=1))
    S.tournament_start(tournament_id=t.pk)
    matches = list(Match.objects.filter(tournament=t, table__isnull=False)
                   .select_related("table"))
    assert len(matches) == 2 and all(m.table.private for m in matches)
    for viewer in [*players, staff]:
        client.force_login(viewer)
        page = client.get(S.invite_url(t)).content.decode()
        live = client.get(f"/tournaments/{t.pk}/live/?invite={t.invite_token}").json()["html"]
        for m in matches:
            mine = viewer.pk in (m.player_a_id, m.player_b_id)
            link = f'href="{m.table.get_absolute_url()}"'
            assert (link in page) is mine and (link in live) is mine, (viewer, m)
            assert client.get(m.table.get_absolute_url()).status_code == (200 if mine else 404)


def test_a_private_tournaments_link_opens_it_only_until_its_start(client, staff, make_user):
    """The link let anyone see the bracket, the standings and the winner once it had started
    and ended (an outside audit); a private table's link stops at its start, and so does a
    tournament's now: after it, the page is its creator's and entrants' alone, and the link
    says why it no longer opens."""
    t = _create(staff, name="Secret Duel", private=True, capacity=2)
    frank, gina, stranger = (make_user(n) for n in ("frank", "gina", "stranger"))
    link, live = S.invite_url(t), f"/tournaments/{t.pk}/live/?invite={t.invite_token}"
    client.force_login(staff)  # its creator is shown the link to share while it takes entries
    assert t.invite_token in client.get(f"/tournaments/{t.pk}/").content.decode()
    client.force_login(stranger)
    assert client.get(link).status_code == 200  # while it takes entries
    for user in (frank, gina):
        S.tournament_enter(tournament_id=t.pk, user=user, invite=t.invite_token)
    Tournament.objects.filter(pk=t.pk).update(starts_at=timezone.now() - timedelta(seconds=1))
    S.tournament_start(tournament_id=t.pk)
    for viewer in (stranger, None):
        client.logout()
        if viewer is not None:
            client.force_login(viewer)
        page = client.get(link)
        assert page.status_code == 403, viewer
        text = page.content.decode()
        assert "This private tournament has started" in text
        assert "frank" not in text and "gina" not in text and "Secret Duel" not in text
        answer = client.get(live)
        assert answer.status_code == 403 and "html" not in answer.json()
        assert answer.json()["error"]["code"] == "not_allowed"
        # a write through the link is refused the same way, and changes nothing
        entered = client.post(f"/tournaments/{t.pk}/enter/", {"invite": t.invite_token},
                              HTTP_ACCEPT="application/json")
        assert entered.status_code in (401, 403), entered.content
        # without the link: a tournament that is not there
        assert client.get(f"/tournaments/{t.pk}/").status_code == 404
    assert Entry.objects.filter(tournament=t).count() == 2
    for viewer in (frank, gina, staff):  # its players and its creator
        client.force_login(viewer)
        page = client.get(f"/tournaments/{t.pk}/")
        assert page.status_code == 200
        # nor is its creator offered the link, dead now, to share (an outside audit)
        assert t.invite_token not in page.content.decode()
        assert client.get(link).status_code == 200


def test_a_public_tournaments_tables_are_linked_for_everyone(client, staff, make_user):
    t = _create(staff, name="Open Robin", format=Format.ROBIN, capacity=4)
    players = [make_user(name) for name in ("jo", "kim")]
    for user in players:
        S.tournament_enter(tournament_id=t.pk, user=user)
    Tournament.objects.filter(pk=t.pk).update(starts_at=timezone.now() - timedelta(seconds=1))
    S.tournament_start(tournament_id=t.pk)
    match = Match.objects.get(tournament=t, table__isnull=False)
    assert f'href="{match.table.get_absolute_url()}"' in client.get(
        t.get_absolute_url()).content.decode()


def test_a_row_says_full_or_when_entries_open_instead_of_enter(client, staff, make_user):
    """A visitor read "Log in to enter" on a full tournament and on one whose entries had not
    opened (and a player got Enter there, to be refused): the row now says which."""
    now = timezone.now()
    full = _create(staff, name="Cap Two", capacity=2, starts_at=now + timedelta(minutes=20))
    for name in ("ann", "ben"):
        S.tournament_enter(tournament_id=full.pk, user=make_user(name))
    later = _create(staff, name="Floor Later", starts_at=now + timedelta(hours=30),
                    entry_opens_at=now + timedelta(hours=20))
    open_now = _create(staff, name="Open Now", starts_at=now + timedelta(minutes=20))

    def row(body, t):
        start = body.index(f'href="{t.get_absolute_url()}"')
        return body[start:body.index("</li>", start)]

    for who in (None, make_user("cat")):
        if who is not None:
            client.force_login(who)
        body = client.get("/tournaments/").content.decode()
        assert "Full" in row(body, full)
        assert "Log in to enter" not in row(body, full) and ">Enter<" not in row(body, full)
        assert "Entries open" in row(body, later) and ">Enter<" not in row(body, later)
        assert "Log in to enter" not in row(body, later)
        wanted = "Log in to enter" if who is None else ">Enter</button>"
        assert wanted in row(body, open_now)
        lobby = client.get("/play/").content.decode()  # starting soon: the full one shows
        assert "Full" in row(lobby, full)
        # its start written as every moment of the site ("Sun 6 Dec, 07:50 UTC"), not a bare
        # "07:50 UTC" that could be today or tomorrow
        assert f">{moment(full.starts_at)}</time>" in row(lobby, full)
    client.logout()
    page = client.get(later.get_absolute_url()).content.decode()
    assert "Entries open" in page and "Log in to enter" not in page
    assert "Log in to enter" in client.get(open_now.get_absolute_url()).content.decode()


def test_a_matchs_table_is_named_as_in_the_bracket(client, staff, make_user):
    """The final's table read "Round 2 of …" where the bracket said "Final"."""
    from tests.support.tournaments import enter_and_start, rated_players, resign_match

    players = rated_players(make_user, 4)
    t = _create(staff, name="Knockout Four", format=Format.SINGLE, capacity=4)
    enter_and_start(t, players)

    def title(match):
        page = client.get(match.table.get_absolute_url()).content.decode()
        start = page.index('class="table-tournament"')
        return page[page.index(">", start) + 1:page.index(" of <a", start)]

    first = list(Match.objects.filter(tournament=t, table__isnull=False))
    assert [title(m) for m in first] == ["Round 1", "Round 1"]
    client.force_login(first[0].player_a)
    page = client.get(first[0].table.get_absolute_url()).content.decode()
    # before the game ends either player may lose, and a knockout's loser has no next match
    assert "the tournament page says what comes next for you" in page
    assert "next match" not in page
    client.logout()
    for m in first:
        resign_match(m, m.player_b_id)
    final = Match.objects.get(tournament=t, round=2, table__isnull=False)
    assert title(final) == "Final"
    # "what comes next for you" is for the match's players, not a watcher
    url = final.table.get_absolute_url()
    assert "comes next" not in client.get(url).content.decode()
    client.force_login(final.player_a)
    page = client.get(url).content.decode()  # a final has no next match
    assert "comes next" not in page and "the results are on the tournament page" in page


def test_a_name_that_says_its_format_is_not_followed_by_it_again(client, staff, make_user):
    """The lobby read "Hourly Classic Arena Arena · 21:00" (the schedule's name, then the
    format)."""
    opens = timezone.now() - timedelta(minutes=1)
    _create(staff, name="Hourly Classic Arena", format=Format.ARENA, duration_minutes=30,
            entry_opens_at=opens)
    _create(staff, name="Sunday Open", format=Format.ARENA, duration_minutes=30,
            entry_opens_at=opens)
    _create(staff, name="Swissquote Cup", format=Format.SWISS, rounds=3, capacity=8,
            entry_opens_at=opens)
    lobby = client.get("/play/").content.decode()
    assert "Arena Arena" not in lobby.replace("</bdi></a> <span class=\"muted\">", " ")
    assert "Sunday Open</bdi></a> <span class=\"muted\">Arena ·" in lobby
    # (a word of the name, not a part of one)
    assert "Swissquote Cup</bdi></a> <span class=\"muted\">Swiss ·" in lobby


def _play_out_round(t, loser_of):
    """Every match in play ends with ``loser_of(match)`` resigning."""
    from tests.support.tournaments import resign_match

    for m in Match.objects.filter(tournament=t, status="playing"):
        resign_match(m, loser_of(m))


def test_a_player_knocked_out_is_told_so_and_not_offered_to_withdraw(client, staff, make_user):
    """A bracket's loser read "Your next match opens when its players are known", with a
    Withdraw button, until the tournament ended."""
    from tests.support.tournaments import enter_and_start, rated_players

    users = rated_players(make_user, 4)
    for u in users:
        u.set_password(PASSWORD)
        u.save()
    t = _create(staff, format=Format.SINGLE, capacity=4, target=50)
    enter_and_start(t, users)
    first = Match.objects.filter(tournament=t).order_by("key").first()
    loser, winner = first.player_b, first.player_a
    from tests.support.tournaments import resign_match

    resign_match(first, loser.pk)
    _login(client, loser)
    page = client.get(t.get_absolute_url()).content.decode()
    assert "You are out of this tournament" in page and "your place is known" in page
    assert "next match opens" not in page and "Withdraw" not in page
    _login(client, winner)
    page = client.get(t.get_absolute_url()).content.decode()
    assert "You are out" not in page and "Withdraw" in page
    # the round ends: the loser's place is given
    _play_out_round(t, lambda m: m.player_b_id)
    _login(client, loser)
    page = client.get(t.get_absolute_url()).content.decode()
    # both semi-final losers placed 3: a shared place, not only the first, says so
    assert "You are out of this tournament: you placed 3 of 4 (shared)" in page
    _play_out_round(t, lambda m: m.player_b_id)  # the final
    final = Match.objects.get(tournament=t, round=2)
    page = client.get(t.get_absolute_url()).content.decode()
    assert "you placed 3, shared." in page
    _login(client, final.player_b)
    page = client.get(t.get_absolute_url()).content.decode()
    assert "you placed 2." in page and "shared" not in page


def test_a_tie_at_the_top_is_a_shared_first_place(client, staff, make_user):
    """Three players level on points and both tie-breaks: the page said "won by" one of them
    and told the other two "you placed 1"."""
    from tests.support.tournaments import enter_and_start, rated_players

    users = rated_players(make_user, 3)
    beats = {users[0].pk: users[1].pk, users[1].pk: users[2].pk, users[2].pk: users[0].pk}
    t = _create(staff, format=Format.ROBIN, capacity=4, target=50)
    enter_and_start(t, users)
    while Match.objects.filter(tournament=t, status="playing").exists():
        _play_out_round(t, lambda m: m.player_b_id if beats[m.player_a_id] == m.player_b_id
                        else m.player_a_id)
    t.refresh_from_db()
    assert t.status == Status.FINISHED
    assert list(Entry.objects.filter(tournament=t).values_list("place", flat=True)) == [1] * 3
    page = client.get(t.get_absolute_url()).content.decode()
    assert "shared first place" in page and "won by" not in page
    for u in users:
        assert u.public_name in page
    listed = client.get("/tournaments/").content.decode()
    assert "Shared first place" in listed and "2 more" in listed
    # the row ends with the date, as a won one does (it read "... and 2 more," and no date)
    assert re.search(r"2 more, <time datetime=\"[^\"]+\">\d+ \w+</time>", listed)
    assert "players level on both share the place" in page


@pytest.mark.parametrize("fmt, then", [
    (Format.SINGLE, "your remaining matches are forfeited"),
    (Format.SWISS, "you are no longer paired; your results so far stand"),
])
def test_a_player_who_withdrew_is_told_why_and_what_follows(client, staff, make_user, fmt,
                                                            then):
    from tests.support.tournaments import enter_and_start, rated_players

    users = rated_players(make_user, 4)
    t = _create(staff, format=fmt, capacity=4, **({"rounds": 3} if fmt == Format.SWISS else {}))
    enter_and_start(t, users)
    S.tournament_withdraw(tournament_id=t.pk, user=users[0])
    _login(client, users[0])
    page = client.get(t.get_absolute_url()).content.decode()
    assert f"You are out of this tournament (you withdrew): {then}." in page


def test_entry_refusals_write_a_moment_as_the_pages_do_in_the_viewers_zone(client, staff,
                                                                           make_user):
    """"Entries open at 06:50, 06 Dec." had no zone and another layout than "Starts Sun 6
    Dec, 07:50 UTC"."""
    from django.utils import timezone as tz

    from core.moments import moment

    now = timezone.now()
    later = _create(staff, name="Later Cup", starts_at=now + timedelta(hours=3),
                    entry_opens_at=now + timedelta(hours=2))
    viewer = make_user("tokyo")
    viewer.time_zone = "Asia/Tokyo"
    viewer.save(update_fields=["time_zone"])
    _login(client, viewer)
    page = client.get(later.get_absolute_url()).content.decode()
    with tz.override("Asia/Tokyo"):
        opens, starts = moment(later.entry_opens_at), moment(later.starts_at)
    assert opens.endswith(" JST") and f"Entries open {opens}." in page
    assert f">{starts}</time>" in page  # "Starts ...", the same function


def test_the_lobby_offers_enter_only_where_the_entry_would_be_taken(client, staff, make_user):
    """A player above the ceiling saw Enter under "Tournaments starting soon", and was then
    refused: the row says why instead."""
    from tests.support.tournaments import rated_players

    high, fits = rated_players(make_user, 2, ratings=[1900, 1600])
    t = _create(staff, name="Club Cup", rating_max=1800,
                entry_opens_at=timezone.now() - timedelta(minutes=1))

    def row(body):
        start = body.index(f'href="{t.get_absolute_url()}"')
        return body[start:body.index("</li>", start)]

    client.force_login(high)
    for url in ("/play/", "/tournaments/"):
        here = row(client.get(url).content.decode())
        assert ">Enter<" not in here
        assert "Your rating (1900?) is above this tournament&#x27;s ceiling (1800)." in here
    client.force_login(fits)
    assert ">Enter</button>" in row(client.get("/play/").content.decode())


def test_a_swiss_cut_at_the_start_says_why(client, staff, make_user):
    """5 rounds set, 3 players came: the page read just "Swiss (2 rounds)"."""
    from tests.support.tournaments import enter_and_start, rated_players

    t = _create(staff, format=Format.SWISS, rounds=5, capacity=8, target=50)
    enter_and_start(t, rated_players(make_user, 3))
    page = client.get(t.get_absolute_url()).content.decode()
    assert "Swiss (2 rounds: 5 were set; 3 players came)" in page
    full = _create(staff, name="Full Swiss", format=Format.SWISS, rounds=2, capacity=4)
    enter_and_start(full, [make_user(f"f{i}") for i in range(3)])  # nothing cut
    assert "Swiss (2 rounds)" in client.get(full.get_absolute_url()).content.decode()


def test_a_tournament_cancelled_before_its_start_shows_no_standings(client, staff, make_user):
    """It showed a Standings table ("– gina – 0") and "Ratings as they were at the start"."""
    gina = make_user("gina")
    t = _create(staff)
    S.tournament_enter(tournament_id=t.pk, user=gina)
    S.tournament_cancel(tournament_id=t.pk, user=staff, reason="rain")
    page = client.get(t.get_absolute_url()).content.decode()
    assert "Players who had entered" in page and gina.public_name in page
    assert "Standings" not in page and "Ratings as they were" not in page
    assert "<th scope=\"col\">#</th>" not in page


def test_games_finished_after_a_cancel_count_in_the_standings(client, staff, make_user):
    """Cancelled while running: the bracket showed the final won 123-98 and the standings
    gave its winner 0 wins."""
    from tests.support.tournaments import enter_and_start, rated_players, resign_match

    t = _create(staff, format=Format.SINGLE, capacity=4, target=50)
    enter_and_start(t, rated_players(make_user, 4))
    first, second = Match.objects.filter(tournament=t).order_by("key")
    resign_match(first, first.player_b_id)
    S.tournament_cancel(tournament_id=t.pk, user=staff, reason="power cut")
    resign_match(second, second.player_b_id)  # left to finish as an ordinary game
    second.refresh_from_db()
    assert second.status == "finished" and second.winner_id == second.player_a_id
    wins = dict(Entry.objects.filter(tournament=t).values_list("user_id", "score"))
    assert wins[first.player_a_id] == 1 and wins[second.player_a_id] == 1
    page = client.get(t.get_absolute_url()).content.decode()
    assert "Standings" in page and "Ratings as they were at the start" in page


@pytest.mark.parametrize("reason", ["a\x07b", "rain\u202e", "x\x1b[31m"])
def test_a_cancel_reason_with_control_characters_is_refused(client, staff, reason):
    """An outside audit: "a\x07b" cancelled the tournament and its page showed it (every
    other text field refuses control characters). Refused as they are; nothing changes."""
    from leaderboards.tournaments.exceptions import TournamentError

    t = _create(staff)
    with pytest.raises(TournamentError) as err:
        S.tournament_cancel(tournament_id=t.pk, user=staff, reason=reason)
    assert err.value.code == "control_characters"
    client.force_login(staff)
    response = client.post(f"{t.get_absolute_url()}cancel/", {"reason": reason},
                           HTTP_ACCEPT="application/json")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "control_characters"
    assert Tournament.objects.get(pk=t.pk).status == Status.SCHEDULED


def test_the_enter_check_reads_the_players_facts_once_for_the_whole_list(
        staff, make_user):
    """Each row asked the entry policy, which read the player's playban and rating again: two
    queries a row, up to 100 on the list of 50 upcoming tournaments."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from leaderboards.tournaments import selectors

    player = make_user("many")

    def count():
        with CaptureQueriesContext(connection) as seen:
            lists = selectors.tournament_lists(player)
        return len(seen), lists

    _create(staff, name="Cup 0", rating_max=1800,
            entry_opens_at=timezone.now() - timedelta(minutes=1))
    few, _ = count()
    for i in range(1, 8):
        _create(staff, name=f"Cup {i}", rating_max=1800,
                entry_opens_at=timezone.now() - timedelta(minutes=1))
    many, lists = count()
    assert len(lists["upcoming"]) == 8
    assert many == few, (few, many)


def test_a_player_who_withdrew_during_the_event_is_still_counted(client, staff, make_user):
    """A round robin of four whose player withdrew in round 2 read "3/4 players" in the list
    (and an arena "3/10" after a no-show), while the standings placed the fourth."""
    from tests.support.tournaments import enter_and_start, rated_players

    users = rated_players(make_user, 4)
    t = _create(staff, name="Counted Robin", format=Format.ROBIN, capacity=4)
    enter_and_start(t, users)
    S.tournament_withdraw(tournament_id=t.pk, user=users[0])
    listing = " ".join(client.get("/tournaments/").content.decode().split())
    assert "4/4 players (1 withdrawn)" in listing
    page = " ".join(client.get(t.get_absolute_url()).content.decode().split())
    assert "· 4 players (1 withdrawn)." in page
    # before the start a withdrawal deletes the entry: the count is of those still in
    later = _create(staff, name="Later Cup", capacity=8)
    for u in users[:3]:
        S.tournament_enter(tournament_id=later.pk, user=u)
    S.tournament_withdraw(tournament_id=later.pk, user=users[0])
    listing = " ".join(client.get("/tournaments/").content.decode().split())
    assert "2/8 players" in listing and "2/8 players (" not in listing
