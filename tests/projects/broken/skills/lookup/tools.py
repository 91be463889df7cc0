from rasa.calm_v2.tools.decorator import ToolContext, tool
from rasa.calm_v2.tools.result import ToolResult


@tool(description="Look up")
async def activate(query: str, context: ToolContext = None) -> ToolResult:
    return ToolResult(
