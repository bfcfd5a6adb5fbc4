"""One act in flight and everything it uses (below the commands, above the call).

- loop.py: precondition -> act -> verify, retried within its deadline (`Act`); the only
  place an act's internal signals (retry, unverified) exist, converted to the taxonomy's
  errors at its boundary;
- results.py: the results several commands share: where a tab is, what an action did;
- resolve.py, locators.py: a ref or a locator to one element (or a clear refusal);
- checks.py, conditions.py, cover.py: whether an element can be acted on, what covers it;
- verify.py, evidence.py: reading back what an act did, and the screenshots of a failure;
- watchdog.py, watchdog_patterns.py: clearing known interruptions before acting;
- retry.py: deadlines, backoff and which failures may pass;
- extract.py (+ extract.js): structured reads of the page.

The commands that act (click, type, fill, ...) are in commands/.
"""
