"""Reading a Flask test client's responses."""

from typing import Any

from werkzeug.test import TestResponse


def body_of(response: TestResponse) -> Any:
    """The response's JSON body; the test fails if it has none (Flask's `response.json` is
    None then, which would fail later and less clearly)."""
    body = response.get_json(silent=True)
    assert body is not None, (response.status_code, response.get_data(as_text=True)[:500])
    return body
