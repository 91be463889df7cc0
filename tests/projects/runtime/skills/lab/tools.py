import asyncio

from rasa.calm_v2.tools.decorator import ToolContext, tool
from rasa.calm_v2.tools.result import ToolResult


@tool(description="A tool that is hidden until unlocked")
async def secret_tool(context: ToolContext = None) -> ToolResult:
    context.memory.set("secret_ran", True)
    return ToolResult(llm_response={"ran": True})


@tool(description="A tool that takes too long")
async def slow_tool(context: ToolContext = None) -> ToolResult:
    context.memory.set("before_sleep", "written")
    await asyncio.sleep(30)
    return ToolResult(llm_response={"slept": True})


@tool(description="A tool that writes memory nobody declared")
async def sloppy_tool(key: str, context: ToolContext = None) -> ToolResult:
    context.memory.set(key, "value")
    return ToolResult(llm_response={"ok": True})


@tool(description="Look something up in the knowledge base")
async def lookup_faq(query: str, context: ToolContext = None) -> ToolResult:
    index = context.model.references_index
    if index is None:
        context.memory.set("no_index_seen", True)
        return ToolResult(llm_response={"hits": []})
    hits = index.search(query, limit=1)
    if hits:
        context.memory.set("faq_source", hits[0]["source"])
    return ToolResult(llm_response={"hits": hits})


@tool(description="A tool that says it has started, then waits")
async def patient_tool(seconds: float, context: ToolContext = None) -> ToolResult:
    context.memory.set("before_sleep", "patient")
    await context.send("Working on it.")
    await asyncio.sleep(seconds)
    context.memory.set("woke", True)
    return ToolResult(llm_response={"slept": seconds})
