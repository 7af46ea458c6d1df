"""The suite's model: requirements, checks, verdicts, the target, run settings and context.

Nothing here imports a check module, the runner or the command line; `transport` is the only
layer below. The strict reader of batch responses (`validator`) and of the 207 forms
(`representations`) live here too, because every check judges through them.
"""
