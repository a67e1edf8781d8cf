"""The activity feed: entries recorded per receiver, and what a team sees of it."""

from codehost.models import Activity, Owner, Repository, Team


def record_activity(
    actor: Owner, op_type: int, repo: Repository, *, ref_name: str = "", content: str = ""
) -> None:
    """One entry per receiver: the actor, and the owning organization (or owning user)."""
    receivers = {actor.pk, repo.owner_id}
    Activity.objects.bulk_create(
        [
            Activity(
                user_id=receiver,
                op_type=op_type,
                act_user=actor,
                repo=repo,
                ref_name=ref_name,
                is_private=repo.private,
                content=content,
            )
            for receiver in receivers
        ]
    )


def team_feed(team: Team, date=None):
    """Entries received by the team's org about repositories the team can access."""
    feed = Activity.objects.filter(user=team.org, repo__team_links__team=team)
    if date is not None:
        feed = feed.filter(created__date=date)
    return feed.order_by("-created", "-pk")
