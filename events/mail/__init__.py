"""Moves by email: reply tokens, the text of a reply, and the use case that plays it."""
