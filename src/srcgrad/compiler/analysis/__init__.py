"""Analyses of lowered code: how each assignment is differentiated and which names are
active (activity), what may share memory (aliasing, callee_writes), value kinds (kinds)."""
