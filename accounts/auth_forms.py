"""allauth's password forms with the site's labels: sentence case, as every other form of the
site ("Current Password" and "New Password (again)" stood out on the settings pages)."""
from __future__ import annotations

from allauth.account.forms import ChangePasswordForm, ResetPasswordKeyForm

LABELS = {
    "oldpassword": "Current password",
    "password1": "New password",
    "password2": "New password (again)",
}


class SiteLabels:
    """Relabel the fields named in ``LABELS`` that the form has."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for name, label in LABELS.items():
            if name in self.fields:  # type: ignore[attr-defined]
                self.fields[name].label = label  # type: ignore[attr-defined]


class SiteChangePasswordForm(SiteLabels, ChangePasswordForm):
    pass


class SiteResetPasswordKeyForm(SiteLabels, ResetPasswordKeyForm):
    pass
