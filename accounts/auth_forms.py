"""allauth's forms as the site has them: the password forms' labels in sentence case, as every
other form of the site ("Current Password" and "New Password (again)" stood out on the
settings pages), and a log-in name no longer than a username or an e-mail address may be."""
from __future__ import annotations

from allauth.account.forms import ChangePasswordForm, LoginForm, ResetPasswordKeyForm
from django.core.validators import MaxLengthValidator

# The longest log-in name worth looking up: an e-mail address (RFC 5321's 320 characters at
# most; usernames are shorter). A 50,000-character name was a 500 on SQLite (its LIKE pattern
# limit), found by an outside audit.
LOGIN_MAX = 320

LABELS = {
    "oldpassword": "Current password",
    "password1": "New password",
    "password2": "New password (again)",
}


class SiteLabels:
    """Relabel the fields named in ``LABELS`` that the form has, placeholders too (allauth's
    placeholders are its labels: "Current Password" stood in the sentence-case field)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for name, label in LABELS.items():
            if name in self.fields:  # type: ignore[attr-defined]
                field = self.fields[name]  # type: ignore[attr-defined]
                field.label = label
                if "placeholder" in field.widget.attrs:
                    field.widget.attrs["placeholder"] = label


class SiteChangePasswordForm(SiteLabels, ChangePasswordForm):
    pass


class SiteResetPasswordKeyForm(SiteLabels, ResetPasswordKeyForm):
    pass


class SiteLoginForm(LoginForm):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        field = self.fields["login"]
        field.max_length = LOGIN_MAX
        field.widget.attrs["maxlength"] = str(LOGIN_MAX)
        field.validators.append(MaxLengthValidator(
            LOGIN_MAX, "That is longer than any username or e-mail address on this site."))
