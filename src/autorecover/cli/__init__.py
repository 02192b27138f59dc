"""autorecover.cli.main"""
