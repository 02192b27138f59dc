"""The node agent's probes: one module per source (kernel log, NVML, InfiniBand, PCIe, DCGM) over
the `NodeProbe` port in `base.py`, with the counter rules and storm limits they share.
"""
