"""Private messages: the inbox, a conversation (its page, older messages, read, delete) and
the unread count."""
from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse, HttpResponseRedirect, JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from core.http import login_required_post, wants_json

from .. import frames, policy, selectors, services
from ..models import MESSAGE_MAX_LENGTH, ConversationMember
from ..presence import presence_of
from .answers import STATUS, active_user, answer, id_param


@login_required
@require_safe
def inbox(request):
    conversations = list(selectors.conversation_list(request.user))
    return render(request, "social/inbox.html", {"conversations": conversations})


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def conversation(request, username):
    other = _partner(request.user, username)
    if other.pk == request.user.pk:
        if request.method == "POST" and wants_json(request):  # as the socket's ``send`` says
            return answer(request, "", error=services.PolicyDenied(
                policy.can_message(request.user, other)))
        raise Http404("You cannot message yourself.")
    error = None
    draft = ""
    if request.method == "POST":
        draft = request.POST.get("body", "")
        try:
            message = services.message_send(sender=request.user, recipient=other, body=draft)
        except services.SocialError as exc:
            if wants_json(request):
                return answer(request, "", error=exc)
            error = exc
        else:
            if wants_json(request):
                return JsonResponse(
                    {"ok": True, "message": frames.message_frame(message, request.user)}
                )
            return HttpResponseRedirect(
                reverse("social:conversation", kwargs={"username": other.username}) + "#composer"
            )
    member = selectors.conversation_member_with(request.user, other)
    try:
        before = id_param(request.GET.get("before"), "before")
    except services.SocialError as exc:
        return _bad_query(request, exc)
    history, has_more = ([], False)
    if member is not None:
        history, has_more = selectors.conversation_history(member, before=before)
        if before is None and history:
            services.conversation_mark_read(
                user=request.user, conversation_id=member.conversation_id
            )
    verdict = policy.can_message(request.user, other) if other.is_active else CLOSED
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


# what a conversation with a closed account says where the box to write in would be
CLOSED = policy.Verdict(policy.Reason.UNAVAILABLE, "This account is closed: the conversation "
                                                   "stays here, but nothing can be sent to it.")


def _partner(user, username: str):
    """The other person of a conversation page: an active account, or a closed one that
    ``user`` has a conversation with (to read it); else 404."""
    try:
        return active_user(username)
    except Http404:
        closed = get_user_model().objects.filter(username=username, is_active=False).first()
        if closed is None or selectors.conversation_member_with(user, closed) is None:
            raise
        return closed


def _bad_query(request, error: services.SocialError) -> HttpResponse:
    """A page's or a script's query it cannot read: 400 with the reason, nothing done."""
    if wants_json(request):
        return answer(request, "", error=error)
    return HttpResponse(str(error), status=400, content_type="text/plain; charset=utf-8")


def _member_or_404(user, conversation_id) -> ConversationMember:
    try:
        return selectors.conversation_member(user, conversation_id)
    except ConversationMember.DoesNotExist:
        raise Http404("No such conversation.") from None


@login_required
@require_safe
def history(request, conversation_id):
    """Older messages as JSON, for the "load older" button."""
    member = _member_or_404(request.user, conversation_id)
    try:
        before = id_param(request.GET.get("before"), "before")
    except services.SocialError as exc:
        return _bad_query(request, exc)
    page, has_more = selectors.conversation_history(member, before=before)
    return JsonResponse(
        {
            "messages": [frames.message_frame(m, m.sender) for m in page],
            "has_more": has_more,
        }
    )


@login_required_post
@require_POST
def conversation_read(request, conversation_id):
    try:
        up_to = id_param(request.POST.get("up_to"), "up_to")
        total = services.conversation_mark_read(
            user=request.user, conversation_id=conversation_id, up_to=up_to)
    except services.SocialError as exc:
        return answer(request, reverse("social:inbox"), error=exc)
    return answer(request, reverse("social:inbox"), data={"unread": total})


@login_required_post
@require_POST
def conversation_delete(request, conversation_id):
    try:
        services.conversation_delete(user=request.user, conversation_id=conversation_id)
    except services.SocialError as exc:
        return answer(request, reverse("social:inbox"), error=exc)
    return HttpResponseRedirect(reverse("social:inbox")) if not wants_json(request) else (
        JsonResponse({"ok": True})
    )


@login_required
@require_safe
def unread(request):
    return JsonResponse({"unread": selectors.unread_total(request.user.pk)})
