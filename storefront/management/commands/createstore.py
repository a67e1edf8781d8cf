import json

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from storefront.errors import Invalid
from storefront.services import stores


class Command(BaseCommand):
    help = 'Create a store owned by an existing account; prints {"id": ...}.'

    def add_arguments(self, parser):
        parser.add_argument("--owner", required=True, help="username of the store owner")
        parser.add_argument("--name", required=True)
        parser.add_argument("--languages", default="es", help="comma list, e.g. es,pt")
        parser.add_argument("--main-language", help="one of --languages (default: the first)")
        parser.add_argument("--currency", default="ARS")
        parser.add_argument("--country", default="AR")

    def handle(self, *args, owner, name, languages, main_language, currency, country, **options):
        user = get_user_model().objects.filter(username=owner).first()
        if user is None:
            raise CommandError(f"no account named {owner!r}")
        codes = [code.strip() for code in languages.split(",") if code.strip()]
        try:
            store = stores.create_store(
                owner=user,
                name=name,
                languages=codes,
                main_language=main_language or (codes[0] if codes else ""),
                currency=currency,
                country=country,
            )
        except Invalid as error:
            raise CommandError(str(error)) from error
        self.stdout.write(json.dumps({"id": store.pk}))
