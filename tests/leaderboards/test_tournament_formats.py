"""Tournament services, each format played through: start (seeding, byes, tables), results
through the games' finish signal, next rounds, no-shows (single and double elimination,
Swiss, arena, round robin)."""
from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from games.frames import table_meta
from games.models import Ending, Game, Seat, Table, TableStatus
from games.selectors.archive import game_summary
from leaderboards.models import PlaybanStrike
from leaderboards.ratings import rules as rating_rules
from leaderboards.ratings import services as ratings_services
from leaderboards.stats import facts as stats_facts
from leaderboards.stats.models import PlayerStats
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
)
from leaderboards.tournaments.services import finals
from tests.support.tournaments import away as _away
from tests.support.tournaments import create_tournament as _create
from tests.support.tournaments import enter_and_start
from tests.support.tournaments import here as _here
from tests.support.tournaments import make_due as _due
from tests.support.tournaments import rated_players as _players
from tests.support.tournaments import resign_match as _resign
from tests.support.tournaments import started_arena as _started_arena

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("rooms")]


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
    enter_and_start(t, users)
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


def test_a_swiss_never_promises_more_rounds_than_it_can_play(make_user, staff):
    """3 players and 8 rounds was accepted, shown as "Swiss (8 rounds)" and played 2: more
    rounds than the capacity allows are refused, the default fits the capacity, and rounds
    cut at the start (fewer came) are what the tournament says."""
    with pytest.raises(S.TournamentError, match="at most 2 rounds"):
        _create(staff, format=Format.SWISS, rounds=8, capacity=3)
    assert _create(staff, format=Format.SWISS, capacity=3).rounds == 2
    assert _create(staff, format=Format.SWISS, capacity=64).rounds == 7
    t = _create(staff, format=Format.SWISS, rounds=5, capacity=8, target=50)
    enter_and_start(t, _players(make_user, 3))
    t.refresh_from_db()
    assert t.rounds == 2 and t.rounds_set == 5


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


def test_a_two_player_arena_keeps_pairing_its_two_players(make_user, staff):
    a, b = _players(make_user, 2)
    t = _create(staff, format=Format.ARENA, duration_minutes=30, capacity=2, target=50)
    enter_and_start(t, (a, b))
    for _ in range(3):
        m = Match.objects.get(tournament=t, status=MatchStatus.PLAYING)
        assert {m.player_a_id, m.player_b_id} == {a.pk, b.pk}
        _resign(m, m.player_b_id)  # nobody else can come free: they meet again at once
    assert Match.objects.filter(tournament=t).count() == 4


def test_an_arena_pairs_only_players_on_the_site(make_user, staff):
    a, b, c, d = _players(make_user, 4)
    _away(c)
    t = _create(staff, format=Format.ARENA, duration_minutes=30, capacity=10, target=50)
    enter_and_start(t, (a, b, c, d))
    # c entered and left the site: two of the three others play, c is not paired
    playing = list(Match.objects.filter(tournament=t, status=MatchStatus.PLAYING))
    assert len(playing) == 1 and c.pk not in (playing[0].player_a_id, playing[0].player_b_id)
    idle = ({a.pk, b.pk, d.pk} - {playing[0].player_a_id, playing[0].player_b_id}).pop()
    S.tournament_tick(tournament_id=t.pk)  # the sweep's pass: still nobody for the idle one
    assert Match.objects.filter(tournament=t).count() == 1
    # c comes back: the sweep's next pass pairs c with the one left waiting
    _here(c)
    S.tournament_tick(tournament_id=t.pk)
    second = Match.objects.filter(tournament=t).exclude(pk=playing[0].pk).get()
    assert {second.player_a_id, second.player_b_id} == {c.pk, idle}
    assert not Entry.objects.get(tournament=t, user=c).withdrawn


def test_the_no_show_grace_ends_before_the_clock_could_forfeit_anyone(settings):
    """Three timed-out turns forfeit a game: the no-show rule must decide first (it never
    did at 15 s a turn, where the clock forfeited the absent at 45 to 98 s)."""
    settings.TOURNAMENTS_NO_SHOW_SECONDS = 120
    assert S.no_show_seconds(15) == 30 and S.no_show_seconds(30) == 60
    assert S.no_show_seconds(60) == 120 and S.no_show_seconds(0) == 120
    for turn in (15, 30, 60):
        assert S.no_show_seconds(turn) < 3 * turn


def test_no_shows_forfeit_after_the_grace(make_user, staff, client):
    a, b, c, d = _players(make_user, 4)
    t = _create(staff, capacity=4)
    enter_and_start(t, (a, b, c, d))
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
    # An absence loses the match, and is no fair-play strike: the strike is for leaving a
    # game (in a bracket one absence became two strikes and a bar). Someone who came to the
    # table and then left still gets one.
    assert t.rated
    for m in (m1, m2):
        game = Game.objects.get(table_id=m.table_id)
        assert game.ending == Ending.NO_SHOW  # not "abandonment": they never came
        assert ratings_services.playban_record(game_id=game.pk) is None
    assert not PlaybanStrike.objects.exists()
    # A game nobody played counts in nobody's statistics (it had read "p9 left before anyone
    # scored", with an abandoned game and a minute played in the absent player's figures),
    # and the games list says what happened.
    game = Game.objects.get(table_id=m1.table_id)
    assert stats_facts.game_facts(game, list(game.players.all())) == []
    assert not PlayerStats.objects.filter(user_id__in=(a.pk, b.pk, c.pk, d.pk)).exists()
    absent = game.players.get(user_id=m1.player_b_id)
    summary = game_summary(game.players.get(user_id=m1.player_a_id))
    assert summary["result"] == "won" and summary["ending"] == f"{absent.name} did not come"
    assert game_summary(absent)["result"] == "lost"
    # nothing to analyse: the site does not ask the Expert to judge a game nobody played
    assert finals.final_game_ids(t) == []
    # their statistics page does not say they have never finished a game
    client.force_login(absent.user)
    mine = " ".join(client.get("/stats/").content.decode().split())
    assert "None of your games counts in your statistics yet" in mine
    assert "You have not finished a game yet" not in mine
    assert rating_rules.unrated_reason(game, list(game.players.all())) \
        == "a player never came to the table"
    # Neither came to m2's table: both are named (it read as if the winner had come), though
    # one of them lost the match for it
    both = Game.objects.get(table_id=m2.table_id)
    names = [p.name for p in both.players.order_by("seat")]
    assert set(both.players.values_list("left", flat=True)) == {Ending.NO_SHOW}
    assert game_summary(both.players.get(won=True))["ending"] \
        == f"{names[0]} and {names[1]} did not come"
    assert table_meta(Table.objects.get(pk=m2.table_id))["finish"]["absent_seats"] == [0, 1]
    assert f"No-show ({names[0]} and {names[1]})" in client.get(
        both.get_absolute_url()).content.decode()
    assert table_meta(Table.objects.get(pk=m1.table_id))["finish"]["absent_seats"] == [
        absent.seat]
    # Someone who came to the table and left a rated game still gets a strike (a withdrawal
    # mid-game ends it as abandoned).
    Seat.objects.filter(table=m2.table, user_id=m2.player_b_id).update(last_seen=timezone.now())
    left = Game.objects.get(table_id=m2.table_id)
    left.ending = Ending.ABANDONMENT
    left.save(update_fields=["ending"])
    left.players.filter(user_id=m2.player_b_id).update(left=Ending.ABANDONMENT)
    ratings_services.playban_record(game_id=left.pk)
    assert list(PlaybanStrike.objects.values_list("user_id", flat=True)) == [m2.player_b_id]


def test_the_no_show_check_reads_a_match_in_two_queries(make_user, staff,
                                                         django_assert_num_queries):
    """Whether a match's players came is two queries (the seats, the moves), whatever the
    seats: the sweep asks it of every match past its grace at every tick."""
    from leaderboards.tournaments.services.periodic import absent_players

    t = _create(staff, capacity=4)
    enter_and_start(t, _players(make_user, 4))
    match = Match.objects.filter(tournament=t).first()
    with django_assert_num_queries(2):
        assert sorted(absent_players(match)) == sorted([match.player_a_id, match.player_b_id])


def test_round_robin_plays_everyone_once(make_user, staff):
    users = _players(make_user, 3)
    t = _create(staff, format=Format.ROBIN, capacity=4, target=50)
    enter_and_start(t, users)
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


def test_a_round_robin_player_who_withdrew_scores_no_later_bye(make_user, staff):
    """Three players: one bye a round, fixed by the schedule. A player who withdraws in round 1
    loses their matches by forfeit and their later bye scores no point (it had given them one,
    and lifted their opponents' Buchholz: an outside audit)."""
    users = _players(make_user, 3)
    t = _create(staff, format=Format.ROBIN, capacity=4, target=50)
    enter_and_start(t, users)
    (first,) = Match.objects.filter(tournament=t, status=MatchStatus.PLAYING)
    quitter = first.player_a_id  # in a match now: their bye is in a later round
    S.tournament_withdraw(tournament_id=t.pk, user=first.player_a)
    while playing := list(Match.objects.filter(tournament=t, status=MatchStatus.PLAYING)):
        for m in playing:
            _resign(m, m.player_a_id)
    t.refresh_from_db()
    assert t.status == Status.FINISHED and t.round == 3
    theirs = Match.objects.filter(tournament=t, player_a_id=quitter) | Match.objects.filter(
        tournament=t, player_b_id=quitter)
    assert theirs.count() == 2 and not theirs.filter(winner_id=quitter).exists()
    assert not theirs.filter(key__endswith="-bye").exists()
    entry = Entry.objects.get(tournament=t, user_id=quitter)
    assert entry.score == 0 and entry.place == 3
    others = Entry.objects.filter(tournament=t).exclude(user_id=quitter)
    # each other player: a bye and the quitter's forfeit, and one of them the match between them
    assert sorted(e.score for e in others) == [2, 3]


def test_double_elimination_needs_two_losses(make_user, staff):
    users = _players(make_user, 4)
    t = _create(staff, format=Format.DOUBLE, capacity=4, target=50)
    enter_and_start(t, users)
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


def test_an_absent_arena_player_is_not_paired_again(make_user, staff, client):
    users = _players(make_user, 4)
    t = _create(staff, format=Format.ARENA, duration_minutes=30, capacity=4)
    enter_and_start(t, users)
    m1, m2 = Match.objects.filter(tournament=t).order_by("id")
    for m in (m1, m2):  # everyone came except m1's player_b
        for u in (m.player_a_id, m.player_b_id):
            if u != m1.player_b_id:
                Seat.objects.filter(table=m.table, user_id=u).update(last_seen=timezone.now())
    Match.objects.filter(tournament=t).update(
        created_at=timezone.now() - timedelta(seconds=S.no_show_seconds() + 5))
    assert S.tournament_tick(tournament_id=t.pk)["no_shows"] == 1
    assert Entry.objects.get(tournament=t, user_id=m1.player_b_id).withdrawn
    # they did not withdraw: the page says they are out, without claiming why
    client.force_login(m1.player_b)
    page = client.get(t.get_absolute_url()).content.decode()
    assert "You are out of this tournament" in page and "(withdrawn)" in page
    assert "withdrew" not in page
    # the page says why, and what it means in an arena: nothing is forfeited
    assert "(you did not come to a match): you are no longer paired" in page
    assert "forfeited" not in page
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


def test_a_running_brackets_standings_list_the_players_still_in_first(make_user, staff):
    """While a bracket runs only the players knocked out have a place: they stood at the top
    of the standings, above the players still in. At the end, places in order."""
    from leaderboards.tournaments import selectors

    users = _players(make_user, 4)
    t = _create(staff, capacity=4, format=Format.DOUBLE)
    enter_and_start(t, users)
    while not Entry.objects.filter(tournament=t, place__isnull=False).exists():
        for m in Match.objects.filter(tournament=t, status=MatchStatus.PLAYING):
            _resign(m, m.player_b_id)
    t.refresh_from_db()
    assert t.status == Status.RUNNING
    entries = selectors.page_data(t)["entries"]
    out = [e.place is None for e in entries]
    assert out == sorted(out, reverse=True) and out[0] and not out[-1], [
        (e.user.username, e.place) for e in entries]
    while playing := list(Match.objects.filter(tournament=t, status=MatchStatus.PLAYING)):
        for m in playing:
            _resign(m, m.player_b_id)
    t.refresh_from_db()
    assert t.status == Status.FINISHED
    places = [e.place for e in selectors.page_data(t)["entries"]]
    assert places == sorted(places) and places[0] == 1


def test_a_swiss_ends_when_its_next_round_could_only_be_a_rematch(make_user, staff, client,
                                                                  monkeypatch):
    """4 players, 3 rounds; in round 2 the two who did not meet in round 1's first match
    withdraw. Round 3 paired the two left again, a rematch the rules say never happens: the
    event now ends after round 2, and its page says why. Three withdrawals: one player left."""
    import social.notify

    sent = []
    monkeypatch.setattr(social.notify, "notify_users",
                        lambda ids, frame: sent.append((set(ids), frame)))
    users = _players(make_user, 8)
    for players, leaving, why in ((users[:4], 2, "every pairing left was a rematch"),
                                  (users[4:], 3, "fewer than two players were left")):
        t = _create(staff, name=f"Swiss {leaving}", format=Format.SWISS, rounds=3,
                    capacity=4, target=50)
        enter_and_start(t, players)
        first = list(Match.objects.filter(tournament=t, round=1).order_by("key"))
        for m in first:
            _resign(m, m.player_b_id)
        t.refresh_from_db()
        assert t.round == 2
        stay = [first[0].player_a_id, first[0].player_b_id][: 4 - leaving]
        # (the last to go is the opponent of a player who stays: round 2 ends with them)
        opponents = {m.player_a_id if m.player_b_id in stay else m.player_b_id
                     for m in Match.objects.filter(tournament=t, round=2)
                     if {m.player_a_id, m.player_b_id} & set(stay)}
        for u in sorted(players, key=lambda u: u.pk in opponents):
            if u.pk not in stay:
                S.tournament_withdraw(tournament_id=t.pk, user=u)
        t.refresh_from_db()
        assert t.status == Status.FINISHED, t.status
        assert (t.rounds, t.rounds_set, t.round) == (2, 3, 2)
        assert t.get_ended_early_display() == why
        assert not Match.objects.filter(tournament=t, round=3).exists()
        assert Entry.objects.filter(tournament=t, place=1).exists()
        page = client.get(t.get_absolute_url()).content.decode()
        assert f"Swiss (2 rounds played: 3 were set; {why})" in page
        # its players, waiting for round 3, are told why it ended
        finished = [(ids, f) for ids, f in sent
                    if f["event"] == "finished" and f["tournament"]["id"] == t.pk]
        assert finished == [({u.pk for u in players}, {
            **finished[0][1], "reason": f"It ended after round 2 of 3: {why}."})]
