from django.urls import path, re_path

from codehost.api.base import GiteaUnknownPathView
from codehost.api.migration_views import MigrateRepositoryView, MirrorSyncView

urlpatterns = [
    path("repos/migrate", MigrateRepositoryView.as_view()),
    path("repos/<str:owner>/<str:repo>/mirror-sync", MirrorSyncView.as_view()),
    re_path(r"^.*$", GiteaUnknownPathView.as_view()),
]
