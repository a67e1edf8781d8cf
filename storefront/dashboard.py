"""The storefront's section of the admin dashboard (config/dashboard.py): five queries."""

from datetime import timedelta

from django.db.models import Count, Max, Q
from django.urls import reverse
from django.utils import timezone
from django.utils.http import urlencode

from config.dashboard import Figure, Section, Table
from storefront.models import Delivery, Installation, Store

FAILING_RECEIVERS = 5


def section() -> Section:
    day_ago = timezone.now() - timedelta(days=1)
    stores = Store.objects.aggregate(
        total=Count("pk"), suspended=Count("pk", filter=Q(suspended_at__isnull=False))
    )
    installations = Installation.objects.aggregate(
        total=Count("pk"), suspended=Count("pk", filter=Q(suspended_at__isnull=False))
    )
    # Separate counts, each narrowed by the (status, next_attempt_at) index: the table
    # holds every delivery ever made.
    pending = Delivery.objects.filter(status=Delivery.PENDING).count()
    failed_today = Delivery.objects.filter(status=Delivery.FAILED, finished_at__gte=day_ago)
    failed = failed_today.count()
    failing = (
        failed_today.values("url")
        .annotate(failures=Count("pk"), last=Max("finished_at"))
        .order_by("-failures", "url")[:FAILING_RECEIVERS]
    )
    delivery_list = reverse("admin:storefront_delivery_changelist")
    return Section(
        "Storefront",
        figures=[
            Figure("Stores", stores["total"], reverse("admin:storefront_store_changelist")),
            Figure(
                "Stores suspended",
                stores["suspended"],
                reverse("admin:storefront_store_changelist") + "?suspended_at__isempty=0",
            ),
            Figure(
                "Installations",
                installations["total"],
                reverse("admin:storefront_installation_changelist"),
            ),
            Figure(
                "Installations suspended",
                installations["suspended"],
                reverse("admin:storefront_installation_changelist") + "?suspended_at__isempty=0",
            ),
            Figure(
                "Deliveries pending",
                pending,
                delivery_list + "?status__exact=pending",
            ),
            Figure(
                "Deliveries failed (24 h)",
                failed,
                delivery_list + "?status__exact=failed",
                alert=failed > 0,
            ),
        ],
        tables=[
            Table(
                "Failing receivers (24 h)",
                ["receiver", "failed deliveries", "last failure"],
                [
                    [
                        (
                            row["url"],
                            delivery_list
                            + "?"
                            + urlencode({"status__exact": "failed", "q": row["url"]}),
                        ),
                        row["failures"],
                        row["last"],
                    ]
                    for row in failing
                ],
                empty="no failed deliveries in the last 24 hours",
            )
        ],
    )
