"""Ratings, playbans and leaderboards: the ``leaderboards`` app's first part (its models
stay in ``leaderboards.models``; the other parts are ``leaderboards.stats`` and
``leaderboards.tournaments``). Shaped like the games app:

* ``skill`` the rating maths (pure), ``rules`` which games count (the one rule), ``conf``
  the tunable numbers;
* ``services`` the writes, a package by concern (rating games, playbans, leaderboard
  snapshots, the rebuild); ``selectors`` the reads;
* ``frames`` the ratings part of the games app's table frames, handed to ``games`` through
  ``games.hooks`` (``answers`` gives the other hook answers);
* ``receivers`` and ``tasks``: ``game_finished`` queues ``leaderboards.game_rated`` after the
  commit, keyed by the game (``core.aftercommit``); once it has rated a game it asks games
  to publish a new version of the finished table.
"""
