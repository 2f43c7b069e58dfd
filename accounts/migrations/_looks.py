"""Writing every account's looks (``core.text.skeleton`` of its username and display name):
the migrations that store them, or that change how they are read, call this."""


def fill(apps, schema_editor):
    from core.text import skeleton

    User = apps.get_model("accounts", "User")
    batch = []
    for user in User.objects.only("pk", "username", "display_name").iterator(chunk_size=1000):
        user.username_look = skeleton(user.username)[:200]
        user.display_look = skeleton(user.display_name)[:200] if user.display_name else ""
        batch.append(user)
        if len(batch) == 1000:
            User.objects.bulk_update(batch, ["username_look", "display_look"])
            batch = []
    User.objects.bulk_update(batch, ["username_look", "display_look"])
