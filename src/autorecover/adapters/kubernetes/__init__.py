"""The Kubernetes adapters: nodes, PyTorchJobs, pods, leases, and the test control plane."""
