from django.contrib import messages
from django.contrib.auth import logout
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from core.http import login_required_post

from . import selectors, services
from .activity import user_has_played
from .closing import closing_obstacles
from .conf import accounts_settings
from .forms import (
    AccountCloseForm,
    AlertPreferencesForm,
    ApiTokenForm,
    BotConversionForm,
    BotsMayChallengeForm,
    ProfileForm,
)
from .models import ApiToken, User
from .profile_actions import profile_actions_for
from .profile_sections import profile_sections_for


def profile(request, username):
    try:
        profile_user = selectors.user_get_by_username(username=username)
    except User.DoesNotExist:
        if selectors.user_closed_exists(username=username):
            # the games it played still name it: say what became of it
            return render(request, "accounts/profile_closed.html", {"username": username})
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
@require_http_methods(["GET", "HEAD", "POST"])
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
@require_http_methods(["GET", "HEAD", "POST"])
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


# The secret of a token just made waits here for the page after the redirect, which shows
# it once and forgets it.
NEW_TOKEN_SESSION_KEY = "api_new_token"


def _api_page(request, *, form=None, status=200):
    user = request.user
    return render(request, "accounts/api_settings.html", {
        "form": form or ApiTokenForm(user=user),
        "challenge_form": BotsMayChallengeForm(
            initial={"bots_may_challenge": user.bots_may_challenge}),
        "tokens": selectors.api_tokens_of(user=user),
        "new_token": request.session.pop(NEW_TOKEN_SESSION_KEY, None),
        "token_limit": accounts_settings.get("API_TOKENS_MAX"),
        "has_played": not user.is_bot and user_has_played(user),
    }, status=status)


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def api_settings(request):
    """Personal API tokens (made, listed, revoked), bot status, and whether bots may
    challenge this person (docs/bot-api.md)."""
    if request.method != "POST":  # (GET, or HEAD: answered as GET)
        return _api_page(request)
    form = ApiTokenForm(request.POST, user=request.user)
    if form.is_valid():
        try:
            token, raw = services.api_token_create(
                user=request.user, name=form.cleaned_data["name"],
                scopes=form.cleaned_data["scopes"])
        except services.TokenError as exc:
            form.add_error(None, str(exc))
        else:
            request.session[NEW_TOKEN_SESSION_KEY] = {"name": token.name, "secret": raw}
            return redirect("accounts:api")
    return _api_page(request, form=form, status=400)


@login_required_post
@require_POST
def api_token_revoke(request, token_id):
    try:
        token = services.api_token_revoke(user=request.user, token_id=token_id)
    except ApiToken.DoesNotExist:
        raise Http404("No such token.") from None
    messages.success(request, f"The token “{token.name}” has been revoked.")
    return redirect("accounts:api")


@login_required_post
@require_POST
def bots_may_challenge_edit(request):
    form = BotsMayChallengeForm(request.POST)
    form.is_valid()  # a checkbox: anything but "on" is off
    allowed = bool(form.cleaned_data.get("bots_may_challenge"))
    services.bots_may_challenge_update(user=request.user, allowed=allowed)
    messages.success(request, "Bots may challenge you." if allowed
                     else "Bots may no longer challenge you.")
    return redirect("accounts:api")


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def bot_convert(request):
    """The confirmation step of becoming a bot account (irreversible)."""
    user = request.user
    if user.is_bot:
        messages.info(request, "This account is a bot account already.")
        return redirect("accounts:api")
    form = BotConversionForm(request.POST or None, user=user)
    if _confirmed(request, form, lambda: services.bot_account_convert(user=user),
                  services.BotConversionError):
        messages.success(request, "This account is now a bot account. Make a token "
                                  "with the bot:play scope for your program.")
        return redirect("accounts:api")
    return render(request, "accounts/bot_convert.html", {
        "form": form, "has_played": user_has_played(user),
    }, status=400 if request.method == "POST" else 200)


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def account_close(request):
    """Closing the account, confirmed with its password (irreversible)."""
    user = request.user
    form = AccountCloseForm(request.POST or None, user=user)
    if _confirmed(request, form, lambda: services.account_close(user=user),
                  services.ClosingError):
        logout(request)
        messages.success(request, "Your account is closed. Thank you for playing.")
        return redirect("home")
    return render(request, "accounts/account_close.html", {
        "form": form, "obstacles": closing_obstacles(user),
    }, status=400 if request.method == "POST" else 200)


def _confirmed(request, form, act, refused: type[Exception]) -> bool:
    """An irreversible step confirmed by ``form``: True once ``act`` has run; False on a
    GET, an unconfirmed form, or a refusal (``refused``, put on the form for the page)."""
    if request.method != "POST" or not form.is_valid():
        return False
    try:
        act()
    except refused as exc:
        form.add_error(None, str(exc))
        return False
    return True
