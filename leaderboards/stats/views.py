from django.contrib.auth.decorators import login_required
from django.shortcuts import render
from django.views.decorators.http import require_safe

from . import selectors
from .models import OPPONENT_KINDS


@require_safe
@login_required
def mine(request):
    """The player's own statistics: against people and against each computer level."""
    tables = selectors.stats_tables(user=request.user, opponents=OPPONENT_KINDS, own=True)
    return render(request, "stats/mine.html", {
        "tables": tables,
        # both charts over every game (the profile's are over games against people)
        "bars": selectors.results_by_mode(tables),
        "pph": selectors.points_per_hand_by_month(user=request.user, opponents=OPPONENT_KINDS),
        "accuracy": selectors.accuracy_summary(user=request.user, viewer=request.user),
        "has_games": not tables and selectors.has_finished_games(request.user),
    })
