from storefront.management.suspension_command import SuspensionCommand


class Command(SuspensionCommand):
    help = "Suspend a store (every app answers 402) or, with --app, one app's access to it."
    suspend = True
