"""Pure game rules. This package imports nothing else of Meeple's."""
