"""The `meeple` command line (DESIGN §6): one click group, one module per command.

`COMMANDS` maps each command to the module that defines it. A module is imported only when
its command runs (or `--help` lists them all), so `meeple run` never depends on, say, the
SMTP listener's imports, and no command module imports this one: there is no cycle.
"""

from __future__ import annotations

import importlib

import click

# command name -> "module:attribute" of its click command or group
COMMANDS = {
    "archive": "cli.commands.archive:archive",
    "deadlines": "cli.commands.deadlines:deadlines",
    "keys": "cli.commands.keys:keys",
    "openapi": "cli.commands.openapi:openapi",
    "rebuild-lobby": "cli.commands.rebuild:rebuild_lobby",
    "replay": "cli.commands.replay:replay",
    "run": "cli.commands.run:run",
    "simulate": "cli.commands.simulate:simulate",
    "smtpd": "cli.commands.smtpd:smtpd",
    "stats": "cli.commands.stats:stats",
    "verify": "cli.main:verify",
    "worker": "cli.commands.worker:worker",
}
# Commands that log nothing: they do not set the logs up, and so do not import structlog (a
# fifth of `meeple verify`'s start-up; bench/verify.py, tests/records/test_verify_startup.py).
UNLOGGED = frozenset({"verify"})


class LazyGroup(click.Group):
    """A click group whose commands are imported from `COMMANDS` when first asked for, and
    whose commands fail in one line, not a traceback, on what is not a bug: a Redis that
    does not answer, or a use case's refusal (cli.errors)."""

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except Exception as error:  # what cli.errors does not explain goes on as it is
            from cli.errors import explained  # here: see cli.errors

            failure = explained(error)
            if failure is None:
                raise
            raise failure from None

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *COMMANDS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS:
            return super().get_command(ctx, cmd_name)
        module_name, attribute = COMMANDS[cmd_name].split(":")
        command = getattr(importlib.import_module(module_name), attribute)
        if not isinstance(command, click.Command):
            raise TypeError(f"{COMMANDS[cmd_name]} is not a click command")
        return command


@click.group(cls=LazyGroup)
@click.option("--log-level", default="INFO", show_default=True,
              type=click.Choice(["DEBUG", "INFO", "WARNING", "ERROR"], case_sensitive=False))
@click.pass_context
def main(ctx: click.Context, log_level: str) -> None:
    """Meeple: an event-sourced board-game server."""
    if ctx.invoked_subcommand in UNLOGGED:
        return
    from events import logs  # here, not at the top: see UNLOGGED

    logs.configure(log_level.upper())


@click.command("verify", add_help_option=False,
               context_settings={"ignore_unknown_options": True})
@click.argument("arguments", nargs=-1, type=click.UNPROCESSED)
def verify(arguments: tuple[str, ...]) -> None:
    """Verify a game record offline: signature, hash chain, seed, every move re-executed."""
    from cli.commands.verify import run as verify_command

    raise SystemExit(verify_command(list(arguments)))
