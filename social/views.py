"""Pages and endpoints of the social app: parse, check, call a service, translate errors.

Every endpoint works as a plain form POST (redirect with a flash message) and, when the
client asks for JSON (``Accept: application/json``), answers JSON for the page scripts.
"""
from __future__ import annotations

from django.contrib import messages as flash
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponseRedirect, JsonResponse
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from . import frames, policy, selectors, services, tables
from .models import MESSAGE_MAX_LENGTH, ConversationMember, MessagePolicy
from .presence import presence_of

STATUS = {
    "not_found": 404,
    "rate_limited": 429,
    "not_allowed": 403,
    "not_contacts": 403,
    "self": 400,
}


def _wants_json(request) -> bool:
    return "application/json" in request.headers.get("Accept", "")


def _active_user(username: str):
    return get_object_or_404(get_user_model(), username=username, is_active=True)


def _back(request, default: str):
    target = request.POST.get("next") or request.GET.get("next")
    if target and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return HttpResponseRedirect(target)
    return HttpResponseRedirect(default)


def _answer(request, default_url: str, *, ok_text: str = "", error=None, data=None):
    """The common answer of a POST endpoint: JSON for scripts, redirect + flash for forms."""
    if error is not None:
        status = STATUS.get(error.code, 400)
        if _wants_json(request):
            return JsonResponse(
                {"ok": False, "error": {"code": error.code, "message": str(error)}}, status=status
            )
        if status == 404:
            raise Http404(str(error))
        flash.error(request, str(error))
        return _back(request, default_url)
    if _wants_json(request):
        return JsonResponse({"ok": True, **(data or {})})
    if ok_text:
        flash.success(request, ok_text)
    return _back(request, default_url)


# --- Contacts ----------------------------------------------------------------------------------

@login_required
@require_GET
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
    from games import hooks
    from games.models import Mode

    labels = hooks.rating_labels([row.user.pk for row in rows], Mode.CLASSIC)
    for row in rows:
        row.user.rating_label = labels.get(row.user.pk)
    return rows


@login_required
@require_POST
def request_send(request, username):
    other = _active_user(username)
    try:
        result = services.contact_request_send(sender=request.user, recipient=other)
    except services.SocialError as exc:
        return _answer(request, reverse("social:contacts"), error=exc)
    text = (
        f"You and {other.public_name} are now contacts."
        if result is None
        else f"Contact request sent to {other.public_name}."
    )
    return _answer(request, reverse("social:contacts"), ok_text=text,
                   data={"contact": result is None})


def _request_action(service, ok_text):
    @login_required
    @require_POST
    def view(request, request_id):
        try:
            service(user=request.user, request_id=request_id)
        except services.SocialError as exc:
            return _answer(request, reverse("social:contacts"), error=exc)
        return _answer(request, reverse("social:contacts"), ok_text=ok_text)

    return view


request_accept = _request_action(services.contact_request_accept, "Contact request accepted.")
request_decline = _request_action(services.contact_request_decline, "Contact request declined.")
request_cancel = _request_action(services.contact_request_cancel, "Contact request cancelled.")


@login_required
@require_POST
def contact_remove(request, username):
    other = _active_user(username)
    try:
        services.contact_remove(user=request.user, other=other)
    except services.SocialError as exc:
        return _answer(request, reverse("social:contacts"), error=exc)
    return _answer(request, reverse("social:contacts"),
                   ok_text=f"{other.public_name} is no longer a contact.")


@login_required
@require_POST
def block(request, username):
    other = _active_user(username)
    try:
        services.block_add(user=request.user, target=other)
    except services.SocialError as exc:
        return _answer(request, reverse("social:privacy"), error=exc)
    return _answer(request, reverse("social:privacy"),
                   ok_text=f"You blocked {other.public_name}. They are not told.")


@login_required
@require_POST
def block_by_name(request):
    username = request.POST.get("username", "").strip().lstrip("@")
    if not username or not get_user_model().objects.filter(
        username=username, is_active=True
    ).exists():
        return _answer(
            request,
            reverse("social:privacy"),
            error=services.SocialError("There is no user with that username.", "no_user"),
        )
    return block(request, username)


@login_required
@require_POST
def unblock(request, username):
    other = _active_user(username)
    try:
        services.block_remove(user=request.user, target=other)
    except services.SocialError as exc:
        return _answer(request, reverse("social:privacy"), error=exc)
    return _answer(request, reverse("social:privacy"),
                   ok_text=f"You unblocked {other.public_name}.")


@login_required
@require_http_methods(["GET", "POST"])
def privacy(request):
    if request.method == "POST":
        try:
            services.message_policy_set(
                user=request.user, policy=request.POST.get("message_policy", "")
            )
        except services.SocialError as exc:
            return _answer(request, reverse("social:privacy"), error=exc)
        return _answer(request, reverse("social:privacy"), ok_text="Preference saved.")
    return render(
        request,
        "social/privacy.html",
        {
            "blocked": selectors.blocked_list(request.user),
            "policy": selectors.message_policy_get(request.user),
            "policies": MessagePolicy.choices,
        },
    )


# --- Messages ------------------------------------------------------------------------------------

@login_required
@require_GET
def inbox(request):
    conversations = list(selectors.conversation_list(request.user))
    return render(request, "social/inbox.html", {"conversations": conversations})


def _int_param(value):
    try:
        number = int(value)
    except (TypeError, ValueError):
        return None
    return number if number > 0 else None


@login_required
@require_http_methods(["GET", "POST"])
def conversation(request, username):
    other = _active_user(username)
    if other.pk == request.user.pk:
        raise Http404("You cannot message yourself.")
    error = None
    draft = ""
    if request.method == "POST":
        draft = request.POST.get("body", "")
        try:
            message = services.message_send(sender=request.user, recipient=other, body=draft)
        except services.SocialError as exc:
            if _wants_json(request):
                return _answer(request, "", error=exc)
            error = exc
        else:
            if _wants_json(request):
                return JsonResponse(
                    {"ok": True, "message": frames.message_frame(message, request.user)}
                )
            return HttpResponseRedirect(
                reverse("social:conversation", kwargs={"username": other.username}) + "#composer"
            )
    member = selectors.conversation_member_with(request.user, other)
    before = _int_param(request.GET.get("before"))
    history, has_more = ([], False)
    if member is not None:
        history, has_more = selectors.conversation_history(member, before=before)
        if before is None and history:
            services.conversation_mark_read(
                user=request.user, conversation_id=member.conversation_id
            )
    verdict = policy.can_message(request.user, other)
    is_contact = policy.are_contacts(request.user.pk, other.pk)
    status = 200 if error is None else STATUS.get(error.code, 400)
    return render(
        request,
        "social/conversation.html",
        {
            "other": other,
            "member": member,
            "history": history,
            "has_more": has_more,
            "older_than": history[0].pk if history else None,
            "verdict": verdict,
            "error": error,
            "draft": draft if error else "",
            "max_length": MESSAGE_MAX_LENGTH,
            # Presence is for contacts only.
            "presence": presence_of([other.pk])[other.pk] if is_contact else None,
            "is_contact": is_contact,
        },
        status=status,
    )


def _member_or_404(user, conversation_id) -> ConversationMember:
    try:
        return selectors.conversation_member(user, conversation_id)
    except ConversationMember.DoesNotExist:
        raise Http404("No such conversation.") from None


@login_required
@require_GET
def history(request, conversation_id):
    """Older messages as JSON, for the "load older" button."""
    member = _member_or_404(request.user, conversation_id)
    before = _int_param(request.GET.get("before"))
    page, has_more = selectors.conversation_history(member, before=before)
    return JsonResponse(
        {
            "messages": [frames.message_frame(m, m.sender) for m in page],
            "has_more": has_more,
        }
    )


@login_required
@require_POST
def conversation_read(request, conversation_id):
    try:
        total = services.conversation_mark_read(
            user=request.user,
            conversation_id=conversation_id,
            up_to=_int_param(request.POST.get("up_to")),
        )
    except services.SocialError as exc:
        return _answer(request, reverse("social:inbox"), error=exc)
    return _answer(request, reverse("social:inbox"), data={"unread": total})


@login_required
@require_POST
def conversation_delete(request, conversation_id):
    try:
        services.conversation_delete(user=request.user, conversation_id=conversation_id)
    except services.SocialError as exc:
        return _answer(request, reverse("social:inbox"), error=exc)
    return HttpResponseRedirect(reverse("social:inbox")) if not _wants_json(request) else (
        JsonResponse({"ok": True})
    )


@login_required
@require_GET
def unread(request):
    return JsonResponse({"unread": selectors.unread_total(request.user.pk)})


@login_required
@require_GET
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


# --- Invitations -----------------------------------------------------------------------------

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
    other = _active_user(username) if username else None
    table_id = _int_param(request.POST.get("table"))
    try:
        if other is None or table_id is None:
            raise services.SocialError("Choose a contact and a table.")
        services.invitation_send(sender=request.user, recipient=other,
                                            table_id=table_id)
    except services.SocialError as exc:
        return _answer(request, reverse("social:invitations"), error=exc)
    return _answer(request, reverse("social:invitations"),
                   ok_text=f"Invitation sent to {other.public_name}.")


@login_required
@require_POST
def invitation_accept(request, invitation_id):
    try:
        url = services.invitation_accept(user=request.user,
                                                    invitation_id=invitation_id)
    except services.SocialError as exc:
        return _answer(request, reverse("social:invitations"), error=exc)
    if _wants_json(request):
        return JsonResponse({"ok": True, "url": url})
    return HttpResponseRedirect(url)


def _invitation_action(service, ok_text):
    @login_required
    @require_POST
    def view(request, invitation_id):
        try:
            service(user=request.user, invitation_id=invitation_id)
        except services.SocialError as exc:
            return _answer(request, reverse("social:invitations"), error=exc)
        return _answer(request, reverse("social:invitations"), ok_text=ok_text)

    return view


invitation_decline = _invitation_action(
    services.invitation_decline, "Invitation declined."
)
invitation_cancel = _invitation_action(
    services.invitation_cancel, "Invitation cancelled."
)
