"""The SQL written once for SQLite and PostgreSQL: dialect, schema and migrations, hardware
recovery's tables, the engine's inbox and leases, job recovery's tables, and their codecs.
"""
