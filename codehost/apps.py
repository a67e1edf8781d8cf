from django.apps import AppConfig


class CodehostConfig(AppConfig):
    name = "codehost"
    verbose_name = "Code hosting (Gitea v1)"
    # This app's section of the admin dashboard (config/dashboard.py).
    dashboard = "codehost.dashboard.section"
    # Django's own 400 and 500 answers under this path (config/error_pages.py).
    error_pages = {"/api/v1/": "codehost.api.exceptions.error_page"}

    def ready(self):
        from django.contrib.auth import get_user_model
        from django.db.models.signals import post_save

        from codehost.signals import (
            account_holdings,
            account_leftovers,
            create_user_namespace,
            name_held,
            require_password_change,
            revoke_tokens,
        )
        from config import account_deletion, account_names
        from config.accounts import account_disabled, password_reset

        post_save.connect(
            create_user_namespace, sender=get_user_model(), dispatch_uid="codehost-user-owner"
        )
        account_disabled.connect(revoke_tokens, dispatch_uid="codehost-revoke-tokens")
        password_reset.connect(require_password_change, dispatch_uid="codehost-password-reset")
        account_deletion.register(
            "codehost", holdings=account_holdings, leftovers=account_leftovers
        )
        account_names.register("codehost", name_held)
