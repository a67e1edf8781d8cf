from storefront.management.suspension_command import SuspensionCommand


class Command(SuspensionCommand):
    help = "Resume a suspended store or, with --app, one app's suspended access to it."
    suspend = False
