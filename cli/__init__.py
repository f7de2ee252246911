"""The `meeple` command line: a face of its own beside `service/` (HTTP) and `workers/` (RQ).

`cli.entry` is the `meeple` script (it runs `verify` before click loads: see there);
`cli.main` holds the click group and the table of commands; each command is one module:
`run` and its `supervisor`, `worker`, `deadlines`, `keys`, `openapi`, `rebuild`, `replay`,
`simulate`, `smtpd`, `verify`; `embedded_redis` starts a private redis-server for `run`,
`simulate` and the tests.
"""
