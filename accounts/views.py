from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from . import selectors, services
from .forms import AlertPreferencesForm, ProfileForm
from .models import User
from .profile_actions import profile_actions_for
from .profile_sections import profile_sections_for


def profile(request, username):
    try:
        profile_user = selectors.user_get_by_username(username=username)
    except User.DoesNotExist:
        raise Http404("No such player.") from None
    if profile_user.username != username:
        # One address per player: /u/Alice/ → /u/alice/ when that is the real spelling.
        return redirect(profile_user, permanent=True)
    return render(
        request,
        "accounts/profile.html",
        {
            "profile_user": profile_user,
            "profile": selectors.profile_get_public(user=profile_user),
            "is_own_profile": request.user.is_authenticated and request.user.pk == profile_user.pk,
            "profile_sections": profile_sections_for(
                profile_user=profile_user, viewer=request.user
            ),
            "profile_actions": profile_actions_for(
                profile_user=profile_user, viewer=request.user
            ),
        },
    )


@login_required
@require_http_methods(["GET", "POST"])
def profile_edit(request):
    user = request.user
    status = 200
    if request.method == "POST":
        form = ProfileForm(request.POST, request.FILES)
        if form.is_valid():
            data = form.cleaned_data
            try:
                services.profile_update(
                    user=user,
                    display_name=data["display_name"],
                    country=data["country"],
                    bio=data["bio"],
                    time_zone=data["time_zone"],
                    avatar=data["avatar"],
                    remove_avatar=data["remove_avatar"],
                )
            except ValidationError as exc:
                form.add_error(None, exc)
            else:
                messages.success(request, "Your profile has been saved.")
                return redirect(user)
        status = 400
    else:
        form = ProfileForm(
            initial={
                "display_name": user.display_name,
                "country": user.country,
                "time_zone": user.time_zone,
                "bio": user.bio,
            }
        )
    return render(request, "accounts/profile_edit.html", {"form": form}, status=status)


@login_required
@require_http_methods(["GET", "POST"])
def alerts_edit(request):
    """Which alerts say that the site needs you: your turn, a match ready, a new message."""
    user = request.user
    if request.method == "POST":
        form = AlertPreferencesForm(request.POST)
        if form.is_valid():
            services.alert_preferences_update(user=user, **form.cleaned_data)
            messages.success(request, "Your alert settings have been saved.")
            return redirect("accounts:alerts")
        return render(request, "accounts/alerts_edit.html", {"form": form}, status=400)
    form = AlertPreferencesForm(initial={
        name: getattr(user, name) for name in services.ALERT_FIELDS
    })
    return render(request, "accounts/alerts_edit.html", {"form": form})
