"""The `meeple` commands, one module each; `cli.main.COMMANDS` maps a command's name to its
module, imported only when that command runs."""
