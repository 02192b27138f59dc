"""The node agent: probes read the node, signals go to the engine or to Slurm's health check."""
