"""THE command table. Each command is defined once, in one of these modules.

Importing the package registers every command, in the order the CLI lists them.
"""

from steadyhand.commands import (  # noqa: F401  (imported to register their commands)
    act_on_elements,
    act_pointer_and_choice,
    approvals,
    batch,
    desktop,
    desktop_events,
    desktop_windows,
    dialogs,
    emulation,
    evaluate,
    extension,
    extract,
    files,
    flow_run,
    flows,
    handover,
    har,
    lifecycle,
    navigation,
    network_control,
    observe,
    page_actions,
    page_logs,
    pdf,
    profiles,
    record,
    report,
    screenshot,
    secret_names,
    snapshots,
    state_key,
    storage,
    tabs,
)
from steadyhand.commands.table import COMMANDS, Command, Params, Result, TabParams

__all__ = ["COMMANDS", "Command", "Params", "Result", "TabParams"]
