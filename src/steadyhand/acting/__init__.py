"""The acting machinery every act command runs in (below the commands, above the call).

- loop.py: one act in flight, precondition -> act -> verify, retried within its deadline
  (`Act`);
- results.py: the results several commands share: where a tab is, what an action did.

The checks, waits, locators, verification and watchdog it uses are in actions/; the
commands that act (click, type, fill, ...) are in commands/.
"""
