from urllib.parse import quote, urlencode

from django.core.cache import cache
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.safestring import mark_safe

from accounts import countries
from core.paging import page_asked, pages_text
from games.models import Mode

from ..models import Period, Pool
from . import selectors

ROWS_CACHE_SECONDS = 15 * 60  # longer than the beat job's period; a new snapshot is a new key


class BadQuery(Exception):
    """A leaderboard link with a value the boards do not have: answered 400 with the reason
    (``index``), and nothing changes."""


def _choice(value: str | None, allowed, default: str, what: str, names: str) -> str:
    """A query value from ``allowed``; anything else is a ``BadQuery`` naming ``what`` was
    asked and the ``names`` there are."""
    if value in (None, ""):
        return default
    if value not in allowed:
        raise BadQuery(f"There is no {what} “{_quoted(value)}” on the leaderboards: {names}.")
    return value


def _quoted(value: str) -> str:
    value = "".join(c for c in value if c.isprintable())
    return value if len(value) <= 40 else value[:39] + "…"


def _rows_html(run, *, mode: str, period: str, country: str, page: int, pool: str) -> str:
    """The table rows of one page, rendered once per snapshot (the cache key holds the
    snapshot's time, so a new computation is a new key) and shared by every viewer."""
    if run is None:
        return ""
    key = (f"leaderboards:rows:{pool}:{mode}:{period}:{country}:{page}:"
           f"{run.computed_at.timestamp():.6f}")
    html = cache.get(key)
    if html is None:
        rows = selectors.leaderboard_page(mode=mode, period=period, country=country, page=page,
                                          run=run, pool=pool)["rows"]
        marker = "__name__"
        profile_url = reverse("accounts:profile", args=[marker])
        for row in rows:
            row.url = profile_url.replace(marker, quote(row.username))
            row.flag = countries.flag(row.country) if row.country else ""
            row.country_name = countries.COUNTRIES.get(row.country, "")
        html = render_to_string("leaderboards/_board_rows.html",
                                {"rows": rows, "period": period,
                                 "bots": pool == Pool.BOTS}) if rows else ""
        cache.set(key, html, ROWS_CACHE_SECONDS)
    return html


def index(request):
    """One mode's board (top rated, or best gains of the week or month) of people or of
    bots (``kind``), one page of it, optionally one country's players; the viewer's row
    highlighted. A value the boards do not have is answered 400 with the reason."""
    try:
        return _index(request)
    except BadQuery as bad:
        return render(request, "leaderboards/bad_query.html", {"reason": str(bad)}, status=400)


def _index(request):
    mode = _choice(request.GET.get("mode"), Mode.values, Mode.CLASSIC, "game",
                   "the games are " + ", ".join(Mode.values))
    pool = _choice(request.GET.get("kind"), Pool.values, Pool.PEOPLE, "kind of board",
                   "boards are of " + " or ".join(Pool.values))
    period = _choice(request.GET.get("period"), Period.values, Period.ALL, "period",
                     "the periods are " + ", ".join(Period.values))
    country = (request.GET.get("country") or "").upper()
    if country and country not in countries.COUNTRIES:
        raise BadQuery(f"There is no country “{_quoted(country)}”: countries go by their "
                       "two-letter code, as FR or BR.")
    try:
        page = page_asked(request.GET.get("page"))
    except ValueError as exc:
        raise BadQuery(str(exc)) from None
    me = selectors.my_position(user=request.user, mode=mode, period=period, country=country,
                               pool=pool)
    if request.GET.get("me") and me is not None:
        my_page = (me["position"] - 1) // selectors.PAGE_SIZE + 1
        query = request.GET.copy()
        query.pop("me")
        query["page"] = str(my_page)
        return redirect(f"{reverse('leaderboards:index')}?{query.urlencode()}#me")
    run = selectors.leaderboard_run(mode)
    total = run.count(period, country, pool) if run else 0
    pages = max(1, -(-total // selectors.PAGE_SIZE))
    if page > pages:
        raise BadQuery(f"This board has {pages_text(pages)} for now.")
    rows_html = _rows_html(run, mode=mode, period=period, country=country, page=page,
                           pool=pool)
    if me is not None and rows_html:
        # the cached rows are everybody's: mark the viewer's own row
        marker = f'<tr data-user="{request.user.pk}">'
        rows_html = rows_html.replace(marker, marker[:-1] + ' class="board-me" id="me">', 1)
    board = {"rows_html": mark_safe(rows_html), "page": page, "pages": pages, "total": total}
    query = {"mode": mode, "period": period, **({"kind": pool} if pool != Pool.PEOPLE else {}),
             **({"country": country} if country else {})}
    query_string = urlencode(query)
    return render(request, "leaderboards/index.html", {
        "modes": Mode.choices, "mode": mode, "mode_name": Mode(mode).label,
        "periods": Period.choices, "period": period, "period_name": Period(period).label,
        "country": country, "country_choices": _country_choices(mode, period, run, pool, country),
        "board": board, "run": run, "me": me, "query": query, "query_string": query_string,
        # why the viewer is missing from the main board, and what brings them onto it
        "absence": (_absence(request.user, mode, period, pool, country)
                    if request.user.is_authenticated and me is None else ""),
        "rank_label": "Gain" if period != Period.ALL else "Rating",
        "pools": Pool.choices, "pool": pool, "bots": pool == Pool.BOTS,
    })


def _country_choices(mode: str, period: str, run, pool: str, country: str):
    """The countries of the board's players, and the one asked for even when nobody from
    there is on it: its heading named France while the list offered only "Everywhere", and
    "Show" dropped it."""
    codes = list(selectors.countries_on_board(mode, period, run=run, pool=pool))
    if country and country not in codes:
        codes.append(country)
    return [(c, countries.COUNTRIES.get(c, c)) for c in sorted(codes)]


def _absence(user, mode: str, period: str, pool: str, country: str) -> str:
    """Why the viewer is not on the board they look at."""
    if (pool == Pool.BOTS) != bool(user.is_bot):
        return ("Only bot accounts are on this board." if pool == Pool.BOTS
                else "A bot account is on the bots' board, not on the people's.")
    if country and getattr(user, "country", "") != country:
        return ("This board lists the players of one country, and your profile gives "
                "another (or none).")
    return selectors.board_absence(user, mode, period)
