"""Players: accounts and API keys, notification profiles, where a webhook may point."""
