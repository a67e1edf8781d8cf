import secrets

import factory
from django.contrib.auth import get_user_model

from config.auth import hash_token
from storefront import models


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"owner{n}")
    email = factory.LazyAttribute(lambda user: f"{user.username}@example.com")
    password = factory.django.Password("password")


class StoreFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = models.Store

    owner = factory.SubFactory(UserFactory)
    languages = ["es", "pt"]
    main_language = "es"
    name = factory.LazyAttribute(lambda store: {code: "Mi Tienda" for code in store.languages})
    description = factory.LazyAttribute(lambda store: {code: "" for code in store.languages})


class AppFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = models.App

    name = factory.Sequence(lambda n: f"App {n}")
    client_secret = factory.LazyFunction(lambda: secrets.token_hex(24))
    redirect_uri = "https://app.example.com/callback"
    scopes = "read_products,write_products,write_scripts"


class InstallationFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = models.Installation

    store = factory.SubFactory(StoreFactory)
    app = factory.SubFactory(AppFactory)
    scopes = factory.LazyAttribute(lambda installation: installation.app.scopes)


def issue_token(installation) -> str:
    """A working access token for `installation` (replacing any previous one)."""
    token = secrets.token_hex(20)
    models.AccessToken.objects.update_or_create(
        installation=installation, defaults={"token_hash": hash_token(token)}
    )
    return token


class CategoryFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = models.Category

    store = factory.SubFactory(StoreFactory)
    name = factory.Sequence(lambda n: {"es": f"Categoría {n}", "pt": f"Categoria {n}"})
    description = {"es": "", "pt": ""}
    handle = factory.Sequence(lambda n: {"es": f"categoria-{n}", "pt": f"categoria-{n}"})


class ProductFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = models.Product

    store = factory.SubFactory(StoreFactory)
    name = factory.Sequence(lambda n: {"es": f"Producto {n}", "pt": f"Produto {n}"})
    description = {"es": "", "pt": ""}
    handle = factory.Sequence(lambda n: {"es": f"producto-{n}", "pt": f"produto-{n}"})


class ProductImageFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = models.ProductImage

    product = factory.SubFactory(ProductFactory)
    src = factory.Sequence(lambda n: f"https://cdn.example.com/image-{n}.jpg")
    position = factory.Sequence(lambda n: n + 1)


class VariantFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = models.Variant

    product = factory.SubFactory(ProductFactory)
    price = "100.00"
    stock = 10
    sku = factory.Sequence(lambda n: f"SKU-{n}")
    position = factory.Sequence(lambda n: n + 1)


class ScriptFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = models.Script

    store = factory.SubFactory(StoreFactory)
    app = factory.SubFactory(AppFactory)
    src = factory.Sequence(lambda n: f"https://app.example.com/widget-{n}.js")
