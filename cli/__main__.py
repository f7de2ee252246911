"""`python -m cli`: the `meeple` command, as `meeple run` starts its children."""

from cli.main import main

main(prog_name="meeple")
