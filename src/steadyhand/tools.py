"""LLM tool schemas and a dispatcher: `steadyhand.tools.dispatch(call)` (fronts/agent/tools.py)."""

from steadyhand.fronts.agent.tools import (
    adispatch,
    dispatch,
    flat_tool,
    granular_tools,
    tool_schemas,
)

__all__ = ["adispatch", "dispatch", "flat_tool", "granular_tools", "tool_schemas"]
