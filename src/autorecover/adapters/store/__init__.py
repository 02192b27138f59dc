"""autorecover.adapters.store.memory"""
