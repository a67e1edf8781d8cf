"""Endpoints for load balancers and orchestrators, outside the three services' APIs.

`/livez`: the process answers (touches no database, cache, broker or storage), so a
restart is never triggered by a dependency's outage. `/readyz`: this process can serve
now (the components of `config.health.READINESS`), 200 or 503, so traffic goes elsewhere
while the database, the cache, the broker or the storage is unreachable from here.
"""

from django.http import HttpResponse, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

from config import health


@never_cache
@require_safe
def livez(request):
    return HttpResponse("ok\n", content_type="text/plain; charset=utf-8")


@never_cache
@require_safe
def readyz(request):
    components = []
    for name, check in health.READINESS.items():
        error = check()
        entry = {"name": name, "status": "healthy" if error is None else "unhealthy"}
        if error:
            entry["error"] = error
        components.append(entry)
    ready = all(entry["status"] == "healthy" for entry in components)
    body = {"status": "healthy" if ready else "unhealthy", "components": components}
    return JsonResponse(body, status=200 if ready else 503)
