"""Use cases, the event store and projections. Imports `games`, never `service` or `workers`."""
