"""The reliability suite (issue 11, point 11) shares the service tests' app and callers and
the end-to-end tests' live gunicorn."""

from tests.e2e.conftest import live_server  # noqa: F401 - pytest fixtures
from tests.service.conftest import alice, app, bob, client  # noqa: F401 - pytest fixtures
