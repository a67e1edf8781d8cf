import json

from django.core.management.base import BaseCommand, CommandError

from storefront.errors import NotInstalled
from storefront.services import installations


class Command(BaseCommand):
    help = "Uninstall an app from a store, as the store's owner would (app/uninstalled is sent)."

    def add_arguments(self, parser):
        parser.add_argument("store_id", type=int)
        parser.add_argument("app_id", type=int)

    def handle(self, *args, store_id, app_id, **options):
        try:
            installations.uninstall(store_id, app_id)
        except NotInstalled as error:
            raise CommandError(str(error)) from error
        self.stdout.write(json.dumps({"store_id": store_id, "uninstalled_app": app_id}))
