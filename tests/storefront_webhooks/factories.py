import factory

from storefront import models
from tests.storefront.factories import InstallationFactory


class WebhookFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = models.Webhook

    installation = factory.SubFactory(InstallationFactory)
    event = "product/updated"
    url = factory.Sequence(lambda n: f"https://hooks.example.com/{n}")
