"""The local demonstration: simulated nodes, a real training job, the engine, a fault injector."""
