from django.apps import AppConfig


class CodehostConfig(AppConfig):
    name = "codehost"
    verbose_name = "Code hosting (Gitea v1)"

    def ready(self):
        from django.contrib.auth import get_user_model
        from django.db.models.signals import post_save

        from codehost.signals import create_user_namespace

        post_save.connect(
            create_user_namespace, sender=get_user_model(), dispatch_uid="codehost-user-owner"
        )
