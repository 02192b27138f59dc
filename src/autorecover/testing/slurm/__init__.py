"""A real Slurm cluster on this machine (`cluster`), a harness for tests (`harness`), the end-to-
end rig (`rig`) and its training job.
"""
