"""Edges: everything that touches files, processes, clusters or databases."""
