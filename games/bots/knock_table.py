"""How often Hard knocks when it may, by the other player's draws (rows, 0 to
``gin_search.MAX_DRAWS``) and its deadwood group (``gin_search.KNOCK_GROUPS``),
written by
``.venv/bin/python bench/knock_table.py --hands 3000 --seed 2690 --write``
(do not edit by hand)."""

KNOCK_TABLE = (
    (0.0, 0.0, 0.0),
    (0.0, 0.0, 0.0),
    (0.0, 0.0, 0.0),
    (0.0, 0.0, 0.0),
    (0.973, 0.996, 0.915),
    (0.972, 0.829, 0.689),
    (0.747, 0.552, 0.387),
    (0.526, 0.297, 0.163),
    (0.458, 0.169, 0.099),
    (0.38, 0.13, 0.063),
    (0.158, 0.076, 0.018),
    (0.113, 0.035, 0.024),
    (0.01, 0.02, 0.01),
    (0.026, 0.0, 0.001),
    (0.011, 0.0, 0.001),
    (0.0, 0.0, 0.0),
)
