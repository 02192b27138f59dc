"""What the node agent reads on a node: kernel log (file, follow, journal), NVML, InfiniBand and
PCIe sysfs, DCGM, and the agent's state file.
"""
