import os
import secrets

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = (
        "Create or update the admin account from ADMIN_USERNAME and ADMIN_PASSWORD. Without a "
        "password one is generated once, printed, and kept in $DATA_DIR/admin_password."
    )

    def handle(self, *args, **options):
        username = settings.ADMIN_USERNAME
        password = os.environ.get("ADMIN_PASSWORD", "")
        password_file = settings.DATA_DIR / "admin_password"
        generated = False
        if not password:
            if password_file.exists():
                password = password_file.read_text().strip()
            else:
                password = secrets.token_urlsafe(18)
                fd = os.open(password_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                with os.fdopen(fd, "w") as handle:
                    handle.write(password)
                generated = True

        user, created = get_user_model().objects.get_or_create(
            username=username, defaults={"email": f"{username}@localhost"}
        )
        user.is_staff = user.is_superuser = user.is_active = True
        if created or not user.check_password(password):
            user.set_password(password)
        user.save()

        if generated:
            self.stdout.write(
                f"Admin account '{username}' created with the generated password: {password}\n"
                f"(kept in {password_file}; set ADMIN_PASSWORD to choose your own)"
            )
        else:
            self.stdout.write(f"Admin account '{username}' is ready.")
