from django.urls import path

from registry.api import ldap_views

urlpatterns = [
    path("ldap/ping", ldap_views.LdapPingView.as_view()),
    path("ldap/users/search", ldap_views.LdapUserSearchView.as_view()),
    path("ldap/users/import", ldap_views.LdapUserImportView.as_view()),
    path("ldap/groups/search", ldap_views.LdapGroupSearchView.as_view()),
]
