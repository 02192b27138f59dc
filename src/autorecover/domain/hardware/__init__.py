"""autorecover.domain.hardware"""
