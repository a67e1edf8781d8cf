"""Webhooks an app registers in a store, and the record of every delivery and attempt."""

from django.db import models

__all__ = ["EVENTS", "SUSPENSION_EVENTS", "Delivery", "DeliveryAttempt", "Webhook"]

EVENTS = (
    "app/uninstalled",
    "app/suspended",
    "app/resumed",
    "category/created",
    "category/updated",
    "category/deleted",
    "order/created",
    "order/updated",
    "order/paid",
    "order/packed",
    "order/fulfilled",
    "order/cancelled",
    "product/created",
    "product/updated",
    "product/deleted",
    "domain/updated",
    "theme/updated",
)
# Sent to the suspended app too: they are how it learns about its own suspension.
SUSPENSION_EVENTS = ("app/suspended", "app/resumed")


class Webhook(models.Model):
    """An app's subscription to one event of the store it is installed in."""

    installation = models.ForeignKey(
        "storefront.Installation", on_delete=models.CASCADE, related_name="webhooks"
    )
    url = models.URLField(max_length=1000)
    event = models.CharField(max_length=50)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["installation", "event", "url"], name="storefront_webhook_unique"
            )
        ]
        indexes = [
            models.Index(fields=["installation", "id"]),
            models.Index(fields=["event", "installation"]),
        ]

    def __str__(self):
        return f"{self.event} -> {self.url}"


class Delivery(models.Model):
    """One event notification for one webhook, tried until a 2xx or the schedule runs out.

    The url, event and exact body are copied here, so the record stays meaningful after the
    webhook is changed or deleted.
    """

    PENDING = "pending"
    DELIVERED = "delivered"
    FAILED = "failed"
    DROPPED = "dropped"
    STATUSES = [
        (PENDING, "pending"),
        (DELIVERED, "delivered"),
        (FAILED, "failed (schedule exhausted)"),
        (DROPPED, "dropped (suspended or uninstalled)"),
    ]

    webhook = models.ForeignKey(
        Webhook, on_delete=models.SET_NULL, null=True, blank=True, related_name="deliveries"
    )
    # Null once the store is deleted: its apps' app/uninstalled deliveries still go out
    # (the body names the store).
    store = models.ForeignKey(
        "storefront.Store",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="webhook_deliveries",
    )
    app = models.ForeignKey(
        "storefront.App", on_delete=models.CASCADE, related_name="webhook_deliveries"
    )
    event = models.CharField(max_length=50)
    object_id = models.BigIntegerField()
    url = models.URLField(max_length=1000)
    # The exact bytes that are signed and sent, as text.
    body = models.TextField()
    status = models.CharField(max_length=10, choices=STATUSES, default=PENDING)
    attempts = models.PositiveIntegerField(default=0)
    next_attempt_at = models.DateTimeField()
    # While an attempt runs, no other worker may start one for this delivery before this time.
    lease_until = models.DateTimeField(null=True, blank=True)
    # When the last task queued for this delivery is due to run (the sweeper's yardstick).
    queued_for = models.DateTimeField(null=True, blank=True)
    outcome = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name_plural = "deliveries"
        indexes = [
            models.Index(fields=["status", "next_attempt_at"]),
            models.Index(fields=["store", "app", "event"]),
        ]

    def __str__(self):
        return f"{self.event} #{self.object_id} -> {self.url} ({self.status})"


class DeliveryAttempt(models.Model):
    """One POST of a delivery: written when it starts, completed when it ends.

    An attempt left without `finished_at` is one whose worker died mid-request.
    """

    delivery = models.ForeignKey(Delivery, on_delete=models.CASCADE, related_name="attempt_log")
    number = models.PositiveIntegerField()
    started_at = models.DateTimeField()
    finished_at = models.DateTimeField(null=True, blank=True)
    duration_ms = models.PositiveIntegerField(null=True, blank=True)
    status_code = models.PositiveIntegerField(null=True, blank=True)
    error = models.CharField(max_length=500, blank=True)
    worker = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["delivery", "number"]
        constraints = [
            models.UniqueConstraint(fields=["delivery", "number"], name="storefront_attempt_unique")
        ]

    def __str__(self):
        return f"attempt {self.number} of delivery {self.delivery_id}"

    @property
    def succeeded(self) -> bool:
        return self.status_code is not None and 200 <= self.status_code < 300
