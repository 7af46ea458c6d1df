"""Helpers shared by several check modules: common sub-requests (`requests`), the reasons a
check runs direct only (`hops`), how a property runs under hypothesis (`property_runs`) and the
strategies that build valid batches (`strategies`). Check modules import these, never each
other; nothing here imports a check module.
"""
