from rasa.calm_v2.tools.decorator import ToolContext, tool
from rasa.calm_v2.tools.result import ToolResult

from lib.bank_api import CARDS


@tool(description="Fetch the customer's profile and the cards they hold")
async def get_customer_info(context: ToolContext = None) -> ToolResult:
    customer_id = context.memory.get("customer_id") or "U-1"
    cards = [c for c in CARDS.values() if c["customer"] == customer_id]
    context.memory.set("customer_id", customer_id)
    return ToolResult(llm_response={"customer_id": customer_id, "cards": cards})
