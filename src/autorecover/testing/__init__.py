"""autorecover.testing"""
