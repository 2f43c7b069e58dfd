"""The weights of ``holding.py`` (``holding.FEATURES`` order), written by
``.venv/bin/python bench/hand_model.py --hands 1500 --seed 2680 --samples 8 --l2 1.0 --write``
(do not edit by hand)."""

WEIGHTS = {
    "value": 0.2595,
    "rank_disc": -0.7530,
    "adj_disc": -0.6294,
    "gap_disc": -0.2763,
    "rank_decl": -0.1866,
    "adj_decl": -0.2012,
    "gap_decl": -0.0469,
    "rank_took": 1.4962,
    "adj_took": 0.8139,
    "gap_took": 0.5484,
    "rank_dead": 0.7675,
    "adj_dead": -0.1158,
    "rank_unseen": 0.8163,
    "adj_unseen": -0.0249,
    "value_draws": 1.5119,
    "last_rank": 0.1522,
    "last_adj": 0.2260,
    "gin": -6.6652,
    "knock": -0.4213,
    "dw": 0.1239,
    "dw_sq": -0.0303,
    "dw_draws": 1.1770,
    "dw_took": -0.5892,
    "knock_draws": 1.5973,
    "knock_took": -0.0620,
    "knock_last": -3.0543,
    "knock_early": -0.0504,
}
