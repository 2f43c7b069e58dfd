"""Issue 19, item 15: the rules and help page, its numbers read from the engine and the
settings, reachable at /rules/ and /help/ and linked from the table, the lobby and the footer."""
from __future__ import annotations

import re

import pytest

from games import conf as games_conf
from games.engine.modes import MODES


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


@pytest.mark.django_db
def test_rules_page_states_the_engine_numbers(client):
    response = client.get("/rules/")
    assert response.status_code == 200
    html = response.content.decode()
    text = _text(html)
    for anchor in ("classic", "straight", "oklahoma", "hollywood", "rummy", "rated",
                   "leaderboards", "tournaments", "timeouts"):
        assert f'id="{anchor}"' in html and f'href="#{anchor}"' in html, anchor
    classic = MODES["classic"]
    assert f"first to {classic.target} points" in text
    assert f"deadwood is {classic.knock_limit} or less" in text
    # worked examples with the mode's bonuses: gin 25 + 31, undercut 25 + 8 - 5, big gin 31 + 31
    assert f"{classic.gin_bonus} + 31 = {classic.gin_bonus + 31}" in text
    assert f"{classic.undercut_bonus} + 8 − 5 = {classic.undercut_bonus + 3}" in text
    assert f"{classic.big_gin_bonus} + 31 = {classic.big_gin_bonus + 31}" in text
    # a whole game: 102 + game bonus + 3 line bonuses
    assert f"102 + {classic.game_bonus} game bonus + {3 * classic.line_bonus} line bonus" in text
    assert f"The game is to {MODES['oklahoma'].target}" in text
    assert "a 7 allows knocking with up to 7 deadwood" in text
    assert "Gin scores 25 plus the defender's deadwood (deadwood 31: 56 )" in text
    for players, target in MODES["rummy"].targets:
        assert re.search(rf"<td>{players}</td><td>\d+</td><td>{target}</td>", html)
    assert f"After {games_conf.get('MAX_TIMEOUTS')} timeouts in a row" in text
    assert f"more than {games_conf.get('DISCONNECT_GRACE')} seconds" in text
    # a connection lost at a timed table: the turns run out before the claim
    assert (f"away for {games_conf.get('MAX_TIMEOUTS')} of your turns in a row, you lose on "
            "time") in text
    assert (f"at least {games_conf.get('OUTAGE_RESUME')} seconds from when it is back, time "
            "for your page to reconnect") in text
    assert "15, 30 or 60 seconds" in text
    assert "ended before both players moved" in text
    assert "2 strikes, 15 minutes; 3 strikes, 1 hour; 4 strikes, 3 hours; 5 or more strikes, " \
           "24 hours" in text
    assert "Buchholz" in text and "Sonneborn-Berger" in text
    # a player who leaves a game of three or four: out, and the game goes on (it read "ends
    # the game for everybody")
    assert "Resigning ends a two-player game at once" in text
    assert "the Medium computer plays their seat so that the game goes on" in text
    assert "for everybody" not in text


@pytest.mark.django_db
def test_rules_follow_the_settings(client, settings):
    settings.GAMES_MAX_TIMEOUTS = 5
    settings.TOURNAMENTS_MIN_RATED_GAMES = 7
    text = _text(client.get("/rules/").content.decode())
    assert "After 5 timeouts in a row" in text and "Anyone with 7 rated games" in text


@pytest.mark.django_db
def test_help_leads_to_the_rules_and_every_page_links_them(client, make_user):
    response = client.get("/help/")
    assert response.status_code == 301 and response["Location"] == "/rules/"
    assert 'href="/rules/"' in client.get("/").content.decode()  # the footer
    lobby = client.get("/play/").content.decode()
    assert lobby.count('href="/rules/') >= 2  # the lobby's own line and the footer


@pytest.mark.django_db
def test_the_rules_say_how_to_play_with_the_keyboard(client):
    """The keys the table answers (tests/ui/test_table_fit.py checks them), where a player
    looks for how to play."""
    page = client.get("/rules/").content.decode()
    assert 'href="#keyboard"' in page and 'id="keyboard"' in page
    for key in ("<kbd>A</kbd>", "<kbd>H</kbd>", "<kbd>Shift</kbd>", "<kbd>Space</kbd>",
                "<kbd>Enter</kbd>"):
        assert key in page, key


@pytest.mark.django_db
def test_the_table_links_the_rules_of_its_mode(client, make_user):
    from games import services
    from games.models import Room
    from games.rooms import ensure_default_rooms

    ensure_default_rooms(Room)
    ann = make_user("ann")
    table = services.table_create(user=ann, room=Room.objects.get(slug="oklahoma"))
    client.force_login(ann)
    html = client.get(f"/tables/{table.pk}/").content.decode()
    assert 'href="/rules/#oklahoma"' in html
    # during play on a phone the header is hidden: the score sheet links the rules
    assert '"rules_url": "/rules/#oklahoma"' in html


@pytest.mark.django_db
def test_rules_page_says_how_to_play_friends(client, settings):
    settings.SOCIAL_INVITE_TTL = 45 * 60
    html = client.get("/rules/").content.decode()
    text = _text(html)
    assert 'id="friends"' in html and 'href="#friends"' in html
    assert "waits for them on their home page for 45 minutes" in text
    assert 'href="/contacts/"' in html


def test_the_no_show_time_the_rules_give_is_the_one_a_fast_table_has(client):
    """The page said 120 seconds for every match; a table of 30 s a turn decides after 60 s
    (two turns: leaderboards.tournaments.conf.no_show_seconds), 15 s a turn after 30 s."""
    from leaderboards.tournaments.conf import no_show_seconds

    page = " ".join(client.get("/rules/").content.decode().split())
    assert no_show_seconds() == 120 and no_show_seconds(30) == 60
    assert ("moves within 120 seconds of it opening loses the match; at a faster clock the "
            "time is two turns: 30 seconds at 15 seconds a turn, 60 seconds at 30 seconds a "
            "turn.") in page
