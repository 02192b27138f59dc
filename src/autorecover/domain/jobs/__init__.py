"""autorecover.domain.jobs"""
