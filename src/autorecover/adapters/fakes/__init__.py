"""In-memory fakes of the controllers' ports (tests, the simulator) and the journaled fake cluster
(`serve --scheduler fake`): the fake is a first-class adapter, with its own `stack.py`.
"""
