from django.apps import AppConfig


class SocialConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "social"
    verbose_name = "Contacts and messages"

    def ready(self):
        from games import hooks

        from . import policy, receivers

        receivers.connect()
        # Blocks reach the tables: no seat at a private table with someone blocked either way,
        # and no table chat from them (games asks through its hooks; it never imports social).
        hooks.register_seat_check(
            lambda table, user, others: "blocked" if policy.block_related_ids(user.pk) & others
            else None
        )
        hooks.register_hidden_senders(policy.block_related_ids)
