"""Announcements of the games app. Other apps (social presence, statistics, ratings,
tournaments) subscribe; games never imports them.

All are sent after the transaction commits, with ``sender`` the model class:

- ``player_seated(sender=Table, table_id, user_id, url, private, waiting)``: a user took a
  seat (also for the players of a rematch and of "play the computer"); ``private`` for a
  private table, which nobody else may learn of (presence then says "playing" without the
  table); ``waiting`` while the table waits for players (its game not started).
- ``player_left(sender=Table, table_id, user_id)``: a user left a seat before the start.
- ``game_started(sender=Table, table_id, user_ids, url, mode, players)``: a waiting table
  filled up (the last seat taken by a person or given to the computer) and its game began;
  ``user_ids`` are its people other than the one whose move filled it, who may be elsewhere
  with their clock running; ``players`` all its people.
- ``game_finished(sender=Game, game_id, table_id)``: a game ended and its ``Game`` record is
  stored (every ending goes through ``games.services.endings._finish``).
"""
from django.dispatch import Signal

player_seated = Signal()
player_left = Signal()
game_started = Signal()
game_finished = Signal()
