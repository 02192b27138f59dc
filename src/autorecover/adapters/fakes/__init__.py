"""autorecover.adapters.fakes.cluster"""
