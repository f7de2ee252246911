"""The reliability suite (issue 11, point 11) shares the service tests' app and callers."""

from tests.service.conftest import alice, app, bob, client  # noqa: F401 - pytest fixtures
