"""Writing every account's looks (``core.text.skeleton`` of its username and display name,
and, where the model has them, their shapes: ``capital_i=True``): the migrations that store
them, or that change how they are read, call this."""


def fill(apps, schema_editor):
    from core.text import skeleton

    User = apps.get_model("accounts", "User")
    names = {f.name for f in User._meta.get_fields()}
    fields = ["username_look", "display_look"]
    if "username_shape" in names:
        fields += ["username_shape", "display_shape"]
    batch = []
    # (only the rows whose looks change are written: a rule made stricter changes few)
    for user in User.objects.only("pk", "username", "display_name", *fields).iterator(
            chunk_size=1000):
        shown = user.display_name
        before = [getattr(user, f) for f in fields]
        user.username_look = skeleton(user.username)[:200]
        user.display_look = skeleton(shown)[:200] if shown else ""
        if "username_shape" in fields:
            user.username_shape = skeleton(user.username, capital_i=True)[:200]
            user.display_shape = skeleton(shown, capital_i=True)[:200] if shown else ""
        if [getattr(user, f) for f in fields] == before:
            continue
        batch.append(user)
        if len(batch) == 1000:
            User.objects.bulk_update(batch, fields)
            batch = []
    User.objects.bulk_update(batch, fields)
