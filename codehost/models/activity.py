"""The activity feed (Gitea's actions)."""

from django.db import models

from codehost.models.accounts import Owner
from codehost.models.repositories import Repository


class OpType(models.IntegerChoices):
    """Gitea's activity op types; labels are their wire names."""

    CREATE_REPO = 1, "create_repo"
    RENAME_REPO = 2, "rename_repo"
    STAR_REPO = 3, "star_repo"
    WATCH_REPO = 4, "watch_repo"
    COMMIT_REPO = 5, "commit_repo"
    CREATE_ISSUE = 6, "create_issue"
    CREATE_PULL_REQUEST = 7, "create_pull_request"
    TRANSFER_REPO = 8, "transfer_repo"
    PUSH_TAG = 9, "push_tag"
    COMMENT_ISSUE = 10, "comment_issue"
    MERGE_PULL_REQUEST = 11, "merge_pull_request"
    CLOSE_ISSUE = 12, "close_issue"
    REOPEN_ISSUE = 13, "reopen_issue"
    CLOSE_PULL_REQUEST = 14, "close_pull_request"
    REOPEN_PULL_REQUEST = 15, "reopen_pull_request"
    DELETE_TAG = 16, "delete_tag"
    DELETE_BRANCH = 17, "delete_branch"
    MIRROR_SYNC_PUSH = 18, "mirror_sync_push"
    MIRROR_SYNC_CREATE = 19, "mirror_sync_create"
    MIRROR_SYNC_DELETE = 20, "mirror_sync_delete"
    APPROVE_PULL_REQUEST = 21, "approve_pull_request"
    REJECT_PULL_REQUEST = 22, "reject_pull_request"
    COMMENT_PULL = 23, "comment_pull"
    PUBLISH_RELEASE = 24, "publish_release"
    PULL_REVIEW_DISMISSED = 25, "pull_review_dismissed"
    PULL_REQUEST_READY_FOR_REVIEW = 26, "pull_request_ready_for_review"
    AUTO_MERGE_PULL_REQUEST = 27, "auto_merge_pull_request"


class Activity(models.Model):
    """One feed entry, stored once per receiver (`user`): the actor and the owning org."""

    user = models.ForeignKey(Owner, on_delete=models.CASCADE, related_name="feed")
    op_type = models.IntegerField(choices=OpType.choices)
    act_user = models.ForeignKey(Owner, on_delete=models.CASCADE, related_name="actions")
    # Deleting a repository deletes its entries, as Gitea does.
    repo = models.ForeignKey(
        Repository, null=True, blank=True, on_delete=models.CASCADE, related_name="activities"
    )
    ref_name = models.CharField(max_length=255, blank=True)
    is_private = models.BooleanField(default=False)
    content = models.TextField(blank=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name_plural = "activities"
        indexes = [models.Index(fields=["user", "-created"])]

    def __str__(self):
        return f"{self.get_op_type_display()} by {self.act_user_id}"


__all__ = ["Activity", "OpType"]
