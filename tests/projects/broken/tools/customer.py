from rasa.calm_v2.tools.decorator import ToolContext, tool
from rasa.calm_v2.tools.result import ToolResult


@tool(description="Fetch the customer")
async def get_customer(context: ToolContext = None) -> ToolResult:
    context.memory.set("system.customer", "x")
    return ToolResult()
