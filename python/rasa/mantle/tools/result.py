"""The later engine's name for `rasa.calm_v2.tools.result`."""

from rasa.calm_v2.tools.result import ToolResult  # noqa: F401
