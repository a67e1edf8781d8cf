"""The store owner's list of installed apps, where an app is uninstalled (Tiendanube's
admin has the same page)."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from storefront.errors import NotInstalled
from storefront.models import Installation
from storefront.services import installations


@login_required
@require_http_methods(["GET", "POST"])
def installed_apps(request):
    mine = Installation.objects.filter(store__owner=request.user)
    if request.method == "POST":
        chosen = request.POST.get("installation", "")
        # Ids are bigints: a longer number names nothing (and must not reach SQL).
        # ASCII digits only: "²" passes str.isdigit but int() refuses it.
        valid = chosen.isascii() and chosen.isdigit() and len(chosen) <= 18
        found = (
            mine.select_related("app", "store").filter(pk=int(chosen)).first() if valid else None
        )
        if found is None:
            raise Http404("No such app installed in your stores")
        try:
            installations.uninstall(found.store_id, found.app_id)
        except NotInstalled:
            # A second click on Uninstall, racing the first: what it asked for is done.
            messages.info(request, f"{found.app.name} was already uninstalled from {found.store}.")
        else:
            messages.success(request, f"{found.app.name} was uninstalled from {found.store}.")
        return redirect("storefront-installed-apps")
    rows = mine.select_related("app", "store").order_by("store_id", "app__name", "id")
    return render(request, "storefront/installed_apps.html", {"installations": rows})
