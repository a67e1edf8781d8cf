"""A sent API page is freed when the response is, not at the garbage collector's next full
collection (config.cycles.ReleaseRenderedMiddleware)."""

import gc
import weakref

from django.conf import settings
from django.test import RequestFactory
from rest_framework.response import Response
from rest_framework.views import APIView

from config.cycles import ReleaseRenderedMiddleware


class Rows(list):
    """A page's rows, which a weak reference can watch."""


class PageView(APIView):
    authentication_classes = ()
    permission_classes = ()

    def get(self, request):
        self.page = Rows([{"n": n} for n in range(3)])
        return Response(self.page)


def rendered(request):
    return PageView.as_view()(request).render()


def page_left_behind(get_response) -> bool:
    gc.collect()
    gc.disable()  # only reference counting may free the page
    try:
        response = get_response(RequestFactory().get("/page"))
        assert response.content == b'[{"n":0},{"n":1},{"n":2}]'
        rows = weakref.ref(response.data)
        del response
        return rows() is not None
    finally:
        gc.enable()


def test_a_rendered_page_is_freed_with_its_response():
    assert page_left_behind(rendered)  # DRF's own cycles keep it
    assert not page_left_behind(ReleaseRenderedMiddleware(rendered))


def test_every_route_goes_through_it():
    assert settings.MIDDLEWARE[0] == "config.cycles.ReleaseRenderedMiddleware"
