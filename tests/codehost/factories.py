"""Rows for code hosting tests. Repositories made here have no git directory; tests that
need one create repositories through the API."""

import factory
from django.contrib.auth import get_user_model

from codehost import models

PASSWORD = "password"


class UserFactory(factory.django.DjangoModelFactory):
    """A Django account; its code hosting namespace (Owner) is created by the signal."""

    class Meta:
        model = get_user_model()
        django_get_or_create = ["username"]
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"user{n}")
    email = factory.LazyAttribute(lambda o: f"{o.username}@example.com")
    password = factory.PostGenerationMethodCall("set_password", PASSWORD)

    @factory.post_generation
    def owner_saved(obj, create, extracted, **kwargs):
        # set_password ran after the first save; keep the row consistent.
        if create:
            obj.save()


def owner_of(user) -> models.Owner:
    return models.Owner.objects.get(user=user)


class OrgFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = models.Owner

    kind = models.Owner.Kind.ORGANIZATION
    name = factory.Sequence(lambda n: f"org{n}")


class TeamFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = models.Team

    org = factory.SubFactory(OrgFactory)
    name = factory.Sequence(lambda n: f"team{n}")
    units = factory.LazyFunction(lambda: {"repo.code": models.AccessMode.READ})


class RepositoryFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = models.Repository

    owner = factory.SubFactory(OrgFactory)
    name = factory.Sequence(lambda n: f"repo{n}")
