"""Registry records, one module per aggregate; `from registry.models import X` names any.

The OCI distribution and garbage collection records live beside the code that owns them
(registry.distribution.models, registry.gc.models) and are registered from here.
"""

from registry.distribution.models import *  # noqa: F403
from registry.gc.models import *  # noqa: F403
from registry.models.artifacts import *  # noqa: F403
from registry.models.audit import *  # noqa: F403
from registry.models.configuration import *  # noqa: F403
from registry.models.labels import *  # noqa: F403
from registry.models.projects import *  # noqa: F403
from registry.models.robots import *  # noqa: F403
from registry.models.users import *  # noqa: F403
