"""Invitations to a table: the page, send, accept (to the table), decline, cancel."""
from __future__ import annotations

from django.contrib import messages as flash
from django.contrib.auth.decorators import login_required
from django.http import HttpResponseRedirect, JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_POST, require_safe

from core.formonce import SENT_TWICE, Once, StillMaking, fresh_page
from core.http import login_required_post, wants_json

from .. import selectors, services, tables
from ..forms import NewTableInvitationForm
from .answers import STATUS, action_view, active_user_or_none, answer, int_param


def _contact_choices(contacts) -> list[tuple[str, str]]:
    return [(row.user.username, f"{row.user.public_name} (@{row.user.username})"
             + (f" · {row.presence.state}" if row.presence.state != "offline" else ""))
            for row in contacts]


def _new_table_form(contacts, data=None, *, to: str = "") -> NewTableInvitationForm:
    return NewTableInvitationForm(data, initial={"to": to},
                                  contacts=_contact_choices(contacts),
                                  modes=tables.mode_choices(),
                                  seat_counts=tables.mode_seat_counts())


def _page(request, *, form: NewTableInvitationForm | None = None, contacts=None,
          status: int = 200):
    preselect = request.GET.get("to", "")
    if contacts is None:
        contacts = selectors.contact_list(request.user)
    if form is None:
        form = _new_table_form(contacts, to=preselect)
    else:
        preselect = form.data.get("to", "")
    return fresh_page(render(
        request,
        "social/invitations.html",
        {
            "received": selectors.invitation_rows(selectors.invitations_received(request.user)),
            "sent": selectors.invitation_rows(selectors.invitations_sent(request.user)),
            "tables": tables.tables_for_inviter(request.user),
            "contacts": contacts,
            "preselect": preselect,
            # ?to= someone who is not a contact: said, not another contact silently chosen
            "preselect_missing": preselect if preselect and preselect not in {
                row.user.username for row in contacts} else "",
            "preselect_table": int_param(request.GET.get("table")),
            "new_table_form": form,
        },
        status=status,
    ))


@login_required
@require_safe
def invitations(request):
    return _page(request)


@login_required_post
@require_POST
def invitation_send(request):
    # (a name nobody has is answered as a missing choice, as a bad table is: it was a page
    # "Page not found" for the form, and the form's own list cannot send one)
    other = active_user_or_none(request.POST.get("to", ""))
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


@login_required_post
@require_POST
def invitation_new_table(request):
    """Open a table and invite a contact to it, then go to the table to wait for them."""
    contacts = selectors.contact_list(request.user)
    form = _new_table_form(contacts, request.POST)
    if not form.is_valid():
        if wants_json(request):
            return JsonResponse({"ok": False, "error": {
                "code": "invalid", "message": "Check the form.",
                "fields": {k: [str(e) for e in v] for k, v in form.errors.items()}}},
                status=400)
        return _page(request, form=form, contacts=contacts, status=400)
    data = form.cleaned_data
    # the form took only a contact's name: the user is one of the rows it was offered
    other = next(row.user for row in contacts if row.user.username == data["to"])
    try:
        made = Once(request.user, form).make(lambda: services.invitation_send_new_table(
            sender=request.user, recipient=other, mode=data["mode"], seat_count=data["seats"],
            target=data["target"], rated=data["rated"],
            seconds_per_turn=data["seconds_per_turn"], private=data["private"]),
            lambda invitation: tables.table_url(invitation.table_id))
    except StillMaking as exc:
        if wants_json(request):
            return JsonResponse({"ok": False, "error": {
                "code": "still_making", "message": exc.message}}, status=409)
        form.add_error(None, exc.message)
        return _page(request, form=form, contacts=contacts, status=409)
    except services.SocialError as exc:
        if wants_json(request):
            return answer(request, reverse("social:invitations"), error=exc)
        form.add_error(None, str(exc))
        return _page(request, form=form, contacts=contacts,
                     status=STATUS.get(exc.code, 400))
    url, invitation = made.url, made.thing
    if invitation is None:
        if wants_json(request):
            return JsonResponse({"ok": True, "url": url, "repeated": True})
        flash.info(request, SENT_TWICE.format(what="table"))
        return HttpResponseRedirect(url)
    text = (f"Invitation sent to {other.public_name}: "
            "the game starts as soon as every seat is taken.")
    if wants_json(request):
        return JsonResponse({"ok": True, "url": url, "invitation": invitation.pk})
    flash.success(request, text)
    return HttpResponseRedirect(url)


@login_required_post
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
