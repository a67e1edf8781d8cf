from django.apps import AppConfig


class CodehostConfig(AppConfig):
    name = "codehost"
    verbose_name = "Code hosting (Gitea v1)"
