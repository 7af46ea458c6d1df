"""Helpers shared by several check modules: common sub-requests (`requests`), the reasons a
check runs direct only (`hops`), how a property runs under hypothesis (`property_runs`), the
strategies that build valid batches (`strategies`) and the sender framing rules judged on any
multipart a server writes (`framing`). Check modules import these, never each other; nothing
here imports a check module.
"""
