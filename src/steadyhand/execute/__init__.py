"""Running a request on the runtime: what every front hands a command to.

- run.py: one command of the table: validate, restore, approve, run within its deadline,
  map errors, record (`execute`);
- gate.py: the approval gate run before a command: does the call need a person's
  `approve` under the settings (approvals/policy.py), and if so ask and wait;
- record.py: the action-log row, metrics and structured log line a command leaves;
- live.py: the live view's `live.*` requests (streams of screens and events, ref boxes,
  remote input), which are not commands of the table.
"""
