"""The later engine's name for `rasa.calm_v2.tools.decorator`."""

from rasa.calm_v2.tools.decorator import *  # noqa: F401,F403
from rasa.calm_v2.tools.decorator import TOOL_MARKER, MemoryWriteError, ToolContext, tool  # noqa: F401
