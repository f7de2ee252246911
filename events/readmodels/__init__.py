"""Cross-game read models fed by the use cases and rebuilt from the streams: the lobby,
ratings and leaderboards."""
