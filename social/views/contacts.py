"""The contacts page, its JSON list for pickers, and contact requests."""
from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_POST, require_safe

from core.http import login_required_post

from .. import frames, selectors, services
from .answers import action_view, active_user, answer


@login_required
@require_safe
def contacts(request):
    query = request.GET.get("q", "").strip()[:40]
    results = selectors.people_search(request.user, query) if query else []
    return render(
        request,
        "social/contacts.html",
        {
            "contacts": _with_ratings(selectors.contact_list(request.user)),
            "incoming": selectors.requests_incoming(request.user),
            "outgoing": selectors.requests_outgoing(request.user),
            "query": query,
            "results": results,
            "searched": bool(query),
        },
    )


def _with_ratings(rows):
    """Each contact's Classic Gin rating label on ``row.user.rating_label`` (answered by the
    ratings app through ``games.hooks``; None when no ratings app is installed)."""
    labels = selectors.contact_ratings([row.user.pk for row in rows])
    for row in rows:
        row.user.rating_label = labels.get(row.user.pk)
    return rows


@login_required_post
@require_POST
def request_send(request, username):
    other = active_user(username)
    try:
        result = services.contact_request_send(sender=request.user, recipient=other)
    except services.SocialError as exc:
        return answer(request, reverse("social:contacts"), error=exc)
    text = (
        f"You and {other.public_name} are now contacts."
        if result is None
        else f"Contact request sent to {other.public_name}."
    )
    return answer(request, reverse("social:contacts"), ok_text=text,
                  data={"contact": result is None})


request_accept = action_view(services.contact_request_accept, "social:contacts",
                             "Contact request accepted.")
request_decline = action_view(services.contact_request_decline, "social:contacts",
                              "Contact request declined.")
request_cancel = action_view(services.contact_request_cancel, "social:contacts",
                             "Contact request cancelled.")


contact_remove = action_view(services.contact_remove, "social:contacts",
                             "{name} is no longer a contact.", person="other")


@login_required
@require_safe
def contacts_json(request):
    """The user's contacts with presence, for pickers (JSON)."""
    return JsonResponse(
        {
            "contacts": [
                frames.contact_entry(row.user, row.presence, row.user.rating_label)
                for row in _with_ratings(selectors.contact_list(request.user))
            ]
        }
    )
