from rasa.calm_v2.tools.decorator import ToolContext, tool
from rasa.calm_v2.tools.result import ToolResult


@tool
def pay(amount: float, ctx: ToolContext = None) -> dict:
    ctx.memory.set("paid_amount", amount)
    return {"ok": True}
