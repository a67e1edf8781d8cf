"""The audit log (Harbor's `audit_log` table)."""

from django.db import models

__all__ = ["AuditLog"]


class AuditLog(models.Model):
    """One operation on a project's resources. The project is kept as a plain id: the
    records outlive the project (its deletion is itself recorded)."""

    project_id = models.BigIntegerField(default=0)
    operation = models.CharField(max_length=32)
    resource_type = models.CharField(max_length=32)
    resource = models.CharField(max_length=512)
    username = models.CharField(max_length=255)
    op_time = models.DateTimeField()

    class Meta:
        ordering = ["-op_time", "-id"]
        indexes = [
            models.Index(fields=["-op_time", "-id"], name="registry_audit_time"),
            models.Index(fields=["project_id", "-op_time", "-id"], name="registry_audit_project"),
            models.Index(fields=["username"], name="registry_audit_username"),
        ]

    def __str__(self):
        return f"{self.username} {self.operation} {self.resource_type} {self.resource}"
