"""Everything between the HTTP face and the rules, in rooms by kind, each layer importing only
the ones below it (pyproject.toml's import-linter contracts hold this):

    mail/, records/    moves by email; game records and their offline verifier
    application/       the use cases (`Meeple`) and what they queue after a commit
    readmodels/, accounts/, store/
                       lobby and ratings; players and profiles; the event store on Redis
    domain/            pure: envelopes, the table fold and deciders, deadlines, visibility

`exceptions` is shared by all. Imports `games`, never `service`, `workers` or `cli`.
"""
