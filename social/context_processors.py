"""Template context shared by every page: the unread count for the navigation badge."""
from .selectors import unread_total


def unread(request):
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    return {"unread_total": unread_total(user.pk)}
