"""LLM tool schemas and a dispatcher: `steadyhand.tools.dispatch(call)` (see fronts/tools.py)."""

from steadyhand.fronts.tools import adispatch, dispatch, flat_tool, granular_tools, tool_schemas

__all__ = ["adispatch", "dispatch", "flat_tool", "granular_tools", "tool_schemas"]
