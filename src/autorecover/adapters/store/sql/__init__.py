"""autorecover.adapters.store.sql"""
