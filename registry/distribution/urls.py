from django.urls import re_path

from registry.distribution import views

NAME = r"(?P<name>.+?)"

urlpatterns = [
    re_path(r"^$", views.BaseView.as_view()),
    re_path(r"^_catalog$", views.CatalogView.as_view()),
    re_path(rf"^{NAME}/tags/list$", views.TagsView.as_view()),
    re_path(rf"^{NAME}/manifests/(?P<reference>[^/]+)$", views.ManifestView.as_view()),
    re_path(rf"^{NAME}/blobs/uploads/?$", views.UploadStartView.as_view()),
    re_path(rf"^{NAME}/blobs/uploads/(?P<upload_id>[^/]+)$", views.UploadView.as_view()),
    re_path(rf"^{NAME}/blobs/(?P<digest>[^/]+)$", views.BlobView.as_view()),
    re_path(rf"^{NAME}/referrers/(?P<digest>[^/]+)$", views.ReferrersView.as_view()),
    # [\s\S]: a path holding a line break gets the OCI error body too, not Django's page.
    re_path(r"^[\s\S]*$", views.UnknownView.as_view()),
]
