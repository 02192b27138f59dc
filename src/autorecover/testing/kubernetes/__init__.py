"""autorecover.testing.kubernetes"""
