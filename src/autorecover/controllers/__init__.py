"""Controllers: the recovery loops — the store, the domain's decisions and the ports, wired."""
