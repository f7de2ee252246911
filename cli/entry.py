"""The `meeple` console script. `meeple verify` runs before click is even imported: it runs
on every page view of a record (issue 12: under 0.3 s, start-up included), and click is some
50 ms of its start-up (cli/commands/verify.py). Every other command, and `verify` after a
group option such as `--log-level`, is the click group's (cli/main.py)."""

from __future__ import annotations

import sys


def run() -> None:
    if sys.argv[1:2] == ["verify"]:
        from cli.commands.verify import run as verify

        raise SystemExit(verify(sys.argv[2:]))
    from cli.main import main

    main()
