"""What `suspendstore` and `resumestore` share."""

import json

from django.core.management.base import BaseCommand, CommandError

from storefront.errors import NotInstalled
from storefront.models import Store
from storefront.services import suspension


class SuspensionCommand(BaseCommand):
    suspend: bool

    def add_arguments(self, parser):
        parser.add_argument("store_id", type=int)
        parser.add_argument("--app", type=int, dest="app_id", help="only this app's access")
        if self.suspend:
            parser.add_argument("--reason", default="", help="kept for the admins")

    def handle(self, *args, store_id, app_id, **options):
        if not Store.objects.filter(pk=store_id).exists():
            raise CommandError(f"no store {store_id}")
        try:
            if self.suspend:
                changed = suspension.suspend(store_id, app_id, options.get("reason", ""))
            else:
                changed = suspension.resume(store_id, app_id)
        except NotInstalled as error:
            raise CommandError(str(error)) from error
        # The apps whose access changed, each sent app/suspended or app/resumed.
        self.stdout.write(json.dumps({"store_id": store_id, "apps_notified": changed}))
