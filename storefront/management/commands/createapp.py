import json

from django.core.management.base import BaseCommand, CommandError

from storefront.errors import Invalid
from storefront.services import apps


class Command(BaseCommand):
    help = 'Register a partner app; prints {"app_id": ..., "client_secret": ...}.'

    def add_arguments(self, parser):
        parser.add_argument("--name", required=True)
        parser.add_argument("--redirect-uri", required=True)
        parser.add_argument("--scopes", default="", help="comma list, e.g. read_products")
        parser.add_argument("--recurring-price", default=None, help="monthly charge, e.g. 9.90")

    def handle(self, *args, name, redirect_uri, scopes, recurring_price, **options):
        try:
            app = apps.create_app(
                name=name,
                redirect_uri=redirect_uri,
                scopes=[scope.strip() for scope in scopes.split(",") if scope.strip()],
                recurring_price=recurring_price,
            )
        except Invalid as error:
            raise CommandError(str(error)) from error
        self.stdout.write(json.dumps({"app_id": app.pk, "client_secret": app.client_secret}))
