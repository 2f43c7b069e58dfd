"""The learned model of how likely a sampled opponent hand is (games/bots/holding.py) and the
tilted sampler that uses it (gin_sampler.sample_tilted)."""

from __future__ import annotations

import random

from games.bots import get_bot, holding
from games.bots.cardmath import card_bit, dw, mask_from
from games.bots.gin_sampler import sample_consistent, sample_tilted
from games.bots.knowledge import Knowledge, Opponent, from_view
from games.engine import legal_actions, view_for
from tests.support.bots import decision_points


def _know() -> Knowledge:
    """Seat 0 holds ten cards; the opponent threw 7H and 8C, declined KD and took 5S."""
    hand = mask_from("AC 2C 3C 4D 5D 6D 9H 9S 9D JC".split())
    opp = Opponent(
        seat=1,
        size=10,
        known=card_bit("5S"),
        discarded=mask_from(["7H", "8C"]),
        declined=card_bit("KD"),
        took=card_bit("5S"),
        stock_draws=3,
    )
    return Knowledge(
        seat=0, num_players=2, family="gin", mode="classic", hand=hand,
        pile=[card_bit("KD"), card_bit("7H"), card_bit("8C")], stock=27,
        opponents={1: opp},
    )


def test_card_features_count_each_cards_relations_to_the_opponents_moves():
    feats = holding.card_features(_know())
    assert len(feats) == 52 - 14  # mine, the pile and the card they hold are placed
    col = {name: i for i, name in enumerate(holding.CARD_FEATURES)}

    def f(card: str, name: str) -> float:
        return feats[card_bit(card)][col[name]]

    assert f("7S", "rank_disc") == 1 and f("8S", "rank_disc") == 1 and f("8H", "adj_disc") == 1
    assert f("9C", "adj_disc") == 1 and f("6H", "adj_disc") == 1 and f("TC", "gap_disc") == 1
    assert f("KS", "rank_decl") == 1 and f("QD", "adj_decl") == 1
    assert f("5H", "rank_took") == 1 and f("4S", "adj_took") == 1 and f("3S", "gap_took") == 1
    # 9C: three nines are out of the opponent's reach (my hand); 8C was thrown last.
    assert f("9C", "rank_dead") == 3 and f("9C", "last_adj") == 1 and f("8H", "last_rank") == 1
    assert f("QS", "value") == 1.0 and f("AH", "value") == 0.1
    assert f("QS", "value_draws") == 0.4  # three stock draws and one take
    assert card_bit("5S") not in feats and card_bit("AC") not in feats


def test_hand_features_sum_the_unknown_cards_and_read_the_deadwood():
    know = _know()
    model = holding.HandModel(know, holding.load_weights())
    cards = holding.card_features(know)
    gin = mask_from("5S 5H 5C 6S 7S 8S TH TS TD TC".split())
    loose = mask_from("5S KS QC JH 2H 3D 4H 6C 7C 8D".split())
    f_gin, f_loose = model.features(gin), model.features(loose)
    assert len(f_gin) == len(holding.FEATURES)
    n = len(holding.CARD_FEATURES)
    unknown = gin & ~card_bit("5S")
    expected = [sum(cards[b][i] for b in cards if b & unknown) for i in range(n)]
    assert f_gin[:n] == expected
    hand = dict(zip(holding.HAND_FEATURES, f_gin[n:], strict=True))
    assert hand["gin"] == 1 and hand["knock"] == 1 and hand["dw"] == 0
    hand = dict(zip(holding.HAND_FEATURES, f_loose[n:], strict=True))
    assert hand["gin"] == 0 and hand["knock"] == 0 and hand["dw"] == dw(loose) / 10
    # The opponent would have gone gin rather than throw 8C: the model finds that hand far
    # less likely than the sampler would deal it.
    assert model.score(gin) < model.score(loose)
    w = holding.load_weights()
    assert abs(model.score(loose) - sum(a * b for a, b in zip(w, f_loose, strict=True))) < 1e-9


def test_tilted_samples_fit_everything_the_seat_knows_and_lose_the_impossible_gins():
    rng = random.Random(2)
    gins = {"plain": 0, "tilted": 0}
    for state in decision_points("classic", 2, seed=6, limit=60)[10:]:
        know = from_view(view_for(state, state.to_act))
        model = holding.HandModel(know, holding.load_weights())
        opp = know.opponent()
        for _ in range(20):
            hand, stock = sample_tilted(know, rng, model, 4)
            assert hand.bit_count() == opp.size and hand & opp.known == opp.known
            assert not hand & stock and (hand & ~opp.known) | stock == know.unseen()
            gins["tilted"] += dw(hand) == 0
            gins["plain"] += dw(sample_consistent(know, rng)[0]) == 0
    assert gins["tilted"] < gins["plain"] or gins["plain"] == 0


def test_the_expert_tilting_its_samples_decides_legally_and_reproducibly():
    for i, state in enumerate(decision_points("classic", 2, seed=7, limit=40)):
        view = view_for(state, state.to_act)
        legal = legal_actions(state)
        a = get_bot("expert", seed=i, tilt=4).choose(view, legal)
        b = get_bot("expert", seed=i, tilt=4).choose(view, legal)
        assert a == b and a in legal


def test_every_gin_mode_has_weights_of_its_own_and_another_mode_takes_classics():
    from games.bots import holding_weights

    assert set(holding_weights.WEIGHTS) == set(holding.MODES)
    assert set(holding_weights.TRAINED_BY) == set(holding.MODES)
    for mode in holding.MODES:
        w = holding.load_weights(mode)
        assert len(w) == len(holding.FEATURES)
        assert mode == "classic" or w != holding.load_weights("classic")
    assert holding.load_weights("rummy") == holding.load_weights("classic")


def test_the_expert_tilts_by_its_games_mode_unless_told_whose_weights_to_take():
    n = len(holding.CARD_FEATURES)
    state = decision_points("straight", 2, seed=8, limit=30)[-1]
    know = from_view(view_for(state, state.to_act))
    assert know.opponent().discarded
    own = get_bot("expert", seed=1).hand_model(know)
    classic = get_bot("expert", seed=1, model_mode="classic").hand_model(know)
    assert own is not None and classic is not None
    assert own.card_w == holding.load_weights("straight")[:n]
    assert classic.card_w == holding.load_weights("classic")[:n]
