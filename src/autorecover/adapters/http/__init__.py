"""autorecover.adapters.http"""
