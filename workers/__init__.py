"""RQ jobs: bot turns, scoring. They call the use cases in `events`, like the API does."""
