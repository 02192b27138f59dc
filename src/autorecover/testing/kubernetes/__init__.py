"""A real Kubernetes control plane on this machine (`cluster`, `pki`), a harness for tests
(`harness`) and the end-to-end rig (`rig`).
"""
