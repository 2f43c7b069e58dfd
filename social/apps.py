from django.apps import AppConfig


class SocialConfig(AppConfig):
    name = "social"
    verbose_name = "Contacts and messages"

    def ready(self):
        from accounts.closing import closing_step_register
        from accounts.profile_actions import ProfileActions, profile_actions_register
        from games import hooks

        from . import policy, presence, profile, receivers, services

        receivers.connect()
        # Message, Add contact, Invite to a table on other players' profiles
        profile_actions_register(ProfileActions(
            key="social", template_name="social/_profile_actions.html",
            get_context=profile.profile_actions_section, order=10,
        ))
        # Blocks reach the tables: no seat at a private table with someone blocked either way,
        # and no table chat from them (games asks through its hooks; it never imports social).
        hooks.register_seat_check(
            lambda table, user, others: "blocked" if policy.block_related_ids(user.pk) & others
            else None
        )
        hooks.register_hidden_senders(policy.block_related_ids)
        # Who has a page of the site open: a waiting table whose people all left is closed.
        hooks.register_reachable(presence.presence_reachable)
        # A closing account leaves its contacts, blocks, invitations and conversations.
        closing_step_register("social", services.social_leave)
        from django.db.models.signals import post_delete, post_save

        def block_changed(sender, instance, **kwargs):
            hooks.hidden_senders_changed([instance.blocker_id, instance.blocked_id])

        for signal in (post_save, post_delete):
            signal.connect(block_changed, sender="social.Block", weak=False,
                           dispatch_uid=f"social.block.tables.{signal is post_save}")
