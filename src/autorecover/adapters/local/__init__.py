"""autorecover.adapters.local"""
