"""The engine's store: its port (`base`), in memory, SQLite and PostgreSQL, by URL (`url`)."""
