"""Code hosting records: owners (users and organizations), teams, repositories and what hangs
off them, one module per aggregate. Numbering follows Gitea where it shows on the wire
(access modes, unit types, activity op types, migration service types).

Django finds the models through this package, and callers keep `from codehost.models
import X` (migrations too): each module's `__all__` is listed here.
"""

from codehost.models.accounts import AccessToken, Owner, UserBlock, Visibility
from codehost.models.activity import Activity, OpType
from codehost.models.migration_tasks import MigrationTask, Mirror
from codehost.models.modes import AccessMode, UnitType
from codehost.models.orgs import OrgMembership, Team, TeamMember, TeamRepo
from codehost.models.repositories import (
    PULL_DEFAULTS,
    TRACKER_DEFAULTS,
    Collaboration,
    OwnerRepositoryCount,
    RepoRedirect,
    Repository,
    ServiceType,
    Star,
    default_repo_units,
)

__all__ = [
    "PULL_DEFAULTS",
    "TRACKER_DEFAULTS",
    "AccessMode",
    "AccessToken",
    "Activity",
    "Collaboration",
    "MigrationTask",
    "Mirror",
    "OpType",
    "OrgMembership",
    "Owner",
    "OwnerRepositoryCount",
    "RepoRedirect",
    "Repository",
    "ServiceType",
    "Star",
    "Team",
    "TeamMember",
    "TeamRepo",
    "UnitType",
    "UserBlock",
    "Visibility",
    "default_repo_units",
]
