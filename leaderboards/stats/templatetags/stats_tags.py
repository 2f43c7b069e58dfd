from django import template

register = template.Library()


@register.filter
def duration(seconds):
    """3725 -> '1 h 2 min'; under a minute -> '0 min'."""
    try:
        seconds = int(seconds)
    except (TypeError, ValueError):
        return ""
    hours, rest = divmod(seconds, 3600)
    minutes = rest // 60
    if hours:
        return f"{hours} h {minutes} min"
    return f"{minutes} min"
