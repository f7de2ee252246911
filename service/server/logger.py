"""gunicorn's logger, made to log like every Meeple process (events.logs): gunicorn's master
and workers write the same JSON lines as the app, and through the same masking.

Named in deploy/gunicorn.conf.py as `logger_class`.
"""

from __future__ import annotations

from typing import Any

from gunicorn.glogging import Logger

from events import logs


class GunicornLogger(Logger):  # type: ignore[misc]
    def setup(self, cfg: Any) -> None:
        super().setup(cfg)
        logs.configure(cfg.loglevel)
