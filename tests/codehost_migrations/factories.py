"""Rows for migration and mirror tests (no git directories; API tests make those)."""

import factory

from codehost import models
from tests.codehost.factories import RepositoryFactory


class MirrorFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = models.Mirror

    repo = factory.SubFactory(RepositoryFactory, is_mirror=True)
    interval_seconds = 8 * 3600
