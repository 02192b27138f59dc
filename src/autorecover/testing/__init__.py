"""Real systems for tests and benchmarks: a Slurm cluster, a Kubernetes control plane, PostgreSQL,
and the rigs that drive them.
"""
