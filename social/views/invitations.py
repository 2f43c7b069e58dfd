"""Invitations to a table: the page, send, accept (to the table), decline, cancel."""
from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpResponseRedirect, JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from .. import selectors, services, tables
from .answers import action_view, active_user, answer, int_param, wants_json


@login_required
@require_GET
def invitations(request):
    return render(
        request,
        "social/invitations.html",
        {
            "received": selectors.invitation_rows(selectors.invitations_received(request.user)),
            "sent": selectors.invitation_rows(selectors.invitations_sent(request.user)),
            "tables": tables.tables_for_inviter(request.user),
            "contacts": selectors.contact_list(request.user),
            "preselect": request.GET.get("to", ""),
        },
    )


@login_required
@require_POST
def invitation_send(request):
    username = request.POST.get("to", "")
    other = active_user(username) if username else None
    table_id = int_param(request.POST.get("table"))
    try:
        if other is None or table_id is None:
            raise services.SocialError("Choose a contact and a table.")
        services.invitation_send(sender=request.user, recipient=other,
                                 table_id=table_id)
    except services.SocialError as exc:
        return answer(request, reverse("social:invitations"), error=exc)
    return answer(request, reverse("social:invitations"),
                  ok_text=f"Invitation sent to {other.public_name}.")


@login_required
@require_POST
def invitation_accept(request, invitation_id):
    try:
        url = services.invitation_accept(user=request.user,
                                         invitation_id=invitation_id)
    except services.SocialError as exc:
        return answer(request, reverse("social:invitations"), error=exc)
    if wants_json(request):
        return JsonResponse({"ok": True, "url": url})
    return HttpResponseRedirect(url)


invitation_decline = action_view(services.invitation_decline, "social:invitations",
                                 "Invitation declined.")
invitation_cancel = action_view(services.invitation_cancel, "social:invitations",
                                "Invitation cancelled.")
