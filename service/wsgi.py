"""The WSGI entry point for gunicorn: `gunicorn service.wsgi:app`."""

import os

from events import logs
from service import create_app

# Each gunicorn worker imports this: its logs, and gunicorn's own, become ours (events.logs).
logs.configure(os.environ.get("MEEPLE_LOG_LEVEL", "info"))
app = create_app()
