"""How every process logs (API workers under gunicorn, RQ workers, smtpd, the CLI): structlog,
one JSON object a line when stderr is not a terminal, readable lines when it is.

Nothing secret may reach a log: not an API key, a game's seed, a webhook secret, a reply
token, nor hidden state (a hand, a deck). So tracebacks are plain Python ones (file, line,
code; never the values of local variables, which hold tables and keys), fields whose name
says they are secret are dropped, and text that looks like one of our secrets is masked
wherever it appears, exception messages included. Standard-library loggers (gunicorn, rq,
flask-limiter) go through the same chain.
"""

from __future__ import annotations

import logging
import re
import sys
from collections.abc import MutableMapping
from typing import Any, TextIO

import structlog

# Field names that never carry anything we may log.
SECRET_FIELDS = frozenset({
    "api_key", "authorization", "seed", "secret", "webhook_secret", "token", "reply_token",
    "password", "state", "hand", "hands", "view", "table",
})
# Our secrets by their form: API keys, webhook secrets, 32-byte seeds (64 hex digits; event
# hashes have the same form and are secret until the end too), reply tokens.
_SECRET_TEXT = (
    (re.compile(r"mk_[A-Za-z0-9_-]{16,}"), "mk_[redacted]"),
    (re.compile(r"whsec_[A-Za-z0-9_-]{16,}"), "whsec_[redacted]"),
    (re.compile(r"(?<![0-9a-fA-F])[0-9a-fA-F]{64}(?![0-9a-fA-F])"), "[hex redacted]"),
    (re.compile(r"[a-z0-9]+-\d{1,3}-\d{1,9}-[a-z2-7]{8}-[a-z2-7]{16}"), "[reply token redacted]"),
)
REDACTED = "[redacted]"


def mask(text: str) -> str:
    for pattern, replacement in _SECRET_TEXT:
        text = pattern.sub(replacement, text)
    return text


def _clean(value: Any, depth: int = 0) -> Any:
    if isinstance(value, str):
        return mask(value)
    if depth > 8:
        return "[too deep]"
    if isinstance(value, dict):
        return {key: REDACTED if str(key).lower() in SECRET_FIELDS else _clean(item, depth + 1)
                for key, item in value.items()}
    if isinstance(value, list | tuple | set):
        return [_clean(item, depth + 1) for item in value]
    if isinstance(value, int | float | bool) or value is None:
        return value
    return mask(repr(value))  # an object's repr may hold anything: masked like text


def redact_secrets(logger: Any, method: str, event: MutableMapping[str, Any]
                   ) -> MutableMapping[str, Any]:
    """structlog processor: secret fields dropped, secret-looking text masked."""
    for key in list(event):
        if key.lower() in SECRET_FIELDS:
            event[key] = REDACTED
        elif key != "_record" and key != "_from_structlog":
            event[key] = _clean(event[key])
    return event


def _shared_processors() -> list[structlog.typing.Processor]:
    return [
        structlog.contextvars.merge_contextvars,
        structlog.stdlib.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
        # Exception info becomes a plain traceback string here, before masking: no locals.
        structlog.processors.format_exc_info,
        redact_secrets,
    ]


def _renderer(stream: TextIO) -> structlog.typing.Processor:
    if stream.isatty():
        return structlog.dev.ConsoleRenderer(colors=False,
                                             exception_formatter=structlog.dev.plain_traceback)
    return structlog.processors.JSONRenderer()


def configure(level: str = "INFO", stream: TextIO | None = None) -> None:
    """Log at `level` and above to `stream` (stderr), for structlog and stdlib loggers.

    structlog hands its events to the standard library, so that one handler writes every
    line: each record one write under one lock (structlog's own print wrote a line and its
    newline apart, and a thread's record landed between them)."""
    out = stream or sys.stderr
    numeric = logging.getLevelName(level.upper())
    structlog.configure(
        processors=[*_shared_processors(), structlog.stdlib.ProcessorFormatter.wrap_for_formatter],
        wrapper_class=structlog.make_filtering_bound_logger(numeric),
        logger_factory=structlog.stdlib.LoggerFactory(),
        cache_logger_on_first_use=False,
    )
    handler = logging.StreamHandler(out)
    handler.setFormatter(structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=_shared_processors(),
        processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta,
                    _renderer(out)],
    ))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(numeric)
    # gunicorn's and rq's loggers keep handlers of their own: route them through ours.
    for name in ("gunicorn.error", "gunicorn.access", "rq.worker", "rq.scheduler", "rq"):
        logger = logging.getLogger(name)
        logger.handlers[:] = []
        logger.propagate = True
