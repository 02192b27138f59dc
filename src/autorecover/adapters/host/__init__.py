"""autorecover.adapters.host"""
