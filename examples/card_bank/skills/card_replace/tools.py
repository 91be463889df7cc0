from rasa.calm_v2.tools.decorator import ToolContext, tool
from rasa.calm_v2.tools.result import ToolResult

from lib import bank_api

ORDER_ID = "replacement_order_id"
VALID_REASONS = {"lost", "stolen", "damaged", "not received"}


@tool(description="Lock the selected card so it cannot be used any more")
async def lock_card(context: ToolContext = None) -> ToolResult:
    card_id = context.memory.get("selected_card_id")
    ok = await bank_api.lock(card_id)
    return ToolResult(llm_response={"locked": ok, "card_id": card_id})


@tool(description="Order a replacement for the selected card")
async def process_card_replacement(
    express: bool = False,
    context: ToolContext = None,
) -> ToolResult:
    card_id = context.memory.get("selected_card_id")
    order_id = f"R-{card_id}"
    context.memory.set(ORDER_ID, order_id)
    return ToolResult(llm_response={"order_id": order_id, "express": express})


@tool(description="Check the replacement reason the customer gave")
async def run_after_setting_replacement_reason(context: ToolContext = None) -> ToolResult:
    reason = (context.memory.get("replacement_reason") or "").strip().lower()
    if reason not in VALID_REASONS:
        return ToolResult(
            llm_response={"error": "The reason must be lost, stolen, damaged or not received."}
        )
    return ToolResult(llm_response={"error": None})
