"""The `meeple` command line: a face of its own beside `service/` (HTTP) and `workers/` (RQ).

`cli.entry` is the `meeple` script (it runs `verify` before click loads: see there);
`cli.main` holds the click group and the table of commands. `cli.commands` holds the
commands, one module each: `run`, `worker`, `deadlines`, `keys`, `openapi`, `rebuild`,
`replay`, `simulate`, `smtpd`, `stats`, `archive`, `verify`. The rest is the machinery
they share: `supervisor` (the processes `meeple run` starts and watches), `embedded_redis`
(a private redis-server for `run`, `simulate` and the tests), `local_cluster` (a Redis
Cluster of them), `connections` and `errors` (a failure that is not a bug, such as a Redis
that does not answer, as one line rather than a traceback).
"""
