"""The privacy page: blocking and unblocking people, and who may message you."""
from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from core.http import login_required_post

from .. import selectors, services
from ..models import MessagePolicy
from .answers import action_view, answer

block = action_view(services.block_add, "social:privacy",
                    "You blocked {name}. They are not told.", person="target")


@login_required_post
@require_POST
def block_by_name(request):
    username = request.POST.get("username", "").strip().lstrip("@")
    if not username or not get_user_model().objects.filter(
        username=username, is_active=True
    ).exists():
        return answer(
            request,
            reverse("social:privacy"),
            error=services.SocialError("There is no user with that username.", "no_user"),
        )
    return block(request, username=username)


unblock = action_view(services.block_remove, "social:privacy", "You unblocked {name}.",
                      person="target")


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def privacy(request):
    if request.method == "POST":
        try:
            services.message_policy_set(
                user=request.user, policy=request.POST.get("message_policy", "")
            )
        except services.SocialError as exc:
            return answer(request, reverse("social:privacy"), error=exc)
        return answer(request, reverse("social:privacy"), ok_text="Preference saved.")
    return render(
        request,
        "social/privacy.html",
        {
            "blocked": selectors.blocked_list(request.user),
            "policy": selectors.message_policy_get(request.user),
            "policies": MessagePolicy.choices,
        },
    )
