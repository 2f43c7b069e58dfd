"""Issue 19, item 7: the profile's recent games read well for every ending (no ", , 0 to 0/"
when the player sat in the last seat or nobody scored)."""
from __future__ import annotations

import re
from types import SimpleNamespace as NS

import pytest

from games import selectors as games_selectors
from games.models import GamePlayer
from tests.support.records import make_game


def _profile_lines(client, user):
    html = client.get(user.get_absolute_url()).content.decode()
    items = re.findall(r'<ul class="recent-games">(.*?)</ul>', html, re.S)[0]
    return [re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", li)).strip()
            for li in re.findall(r"<li>(.*?)</li>", items, re.S)]


@pytest.mark.django_db
def test_profile_recent_games_read_well_for_every_ending(make_user, client):
    carol, dan = make_user("carol3"), make_user("dan")
    # carol3 is seat 1 (the last seat): the old template left ", , 0 to 0/" behind
    make_game([dan, carol], rated=False, ending="resignation", loser_seat=0, places=[2, 1])
    GamePlayer.objects.filter(user__in=[dan, carol]).update(score=0)
    g = make_game([carol, dan], places=[1, 2])
    GamePlayer.objects.filter(game=g, user=carol).update(score=112)
    GamePlayer.objects.filter(game=g, user=dan).update(score=35)
    lines = _profile_lines(client, dan)
    assert lines[0].startswith("Classic Gin: lost against carol3, 35 to 112 ·"), lines
    assert lines[1].startswith("Classic Gin: lost against carol3 · dan resigned before anyone"
                               " scored ·"), lines
    for line in lines:
        assert ", ," not in line and "/" not in line and " , " not in line
    carol_lines = _profile_lines(client, carol)
    assert carol_lines[1].startswith("Classic Gin: won against dan · dan resigned"), carol_lines


def test_summary_of_a_rummy_game_names_every_opponent():
    players = [NS(seat=0, name="ann", score=150), NS(seat=1, name="bob", score=40),
               NS(seat=2, name="Computer (Easy)", score=12)]
    game = NS(players=NS(all=lambda: players), winner_seat=0, ending="normal", loser_seat=None)
    line = games_selectors.game_summary(NS(game=game, seat=1, won=False, place=2, score=40))
    assert line == {"result": "lost", "opponents": "ann and Computer (Easy)",
                    "score": "40 to 150 and 12", "ending": ""}
