from rasa.mantle.tools.decorator import ToolContext, tool
from rasa.mantle.tools.result import ToolResult

SAVED = "address_saved"


def _mark_saved(ctx: ToolContext) -> None:
    ctx.memory.set(SAVED, True)


@tool(description="Save the new postal address to the customer's profile")
async def save_address(context: ToolContext = None) -> ToolResult:
    address = context.memory.get("new_address")
    if not address:
        return ToolResult(llm_response={"error": "no address given yet"})
    _mark_saved(context)
    return ToolResult(llm_response={"saved": True})
