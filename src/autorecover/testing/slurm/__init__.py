"""autorecover.testing.slurm"""
