"""`tool` and `ToolContext`, as documented for skill tools.

`@tool(description="...")` marks an async function as a tool and returns it
unchanged. The description is keyword-only: a bare `@tool` raises TypeError,
as the documentation says.
"""

from typing import Any, Callable, Optional

__all__ = ["tool", "ToolContext", "MemoryWriteError", "TOOL_MARKER"]

TOOL_MARKER = "__maestro_tool__"


def tool(*, description: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Mark an async function as a tool the LLM may call."""

    def mark(fn: Callable[..., Any]) -> Callable[..., Any]:
        setattr(fn, TOOL_MARKER, {"name": fn.__name__, "description": description})
        return fn

    return mark


class MemoryWriteError(Exception):
    """Raised by `context.memory.set` when the write is not allowed."""


class ToolContext:
    """The per-call context the runtime injects as `context=`.

    The runtime's worker replaces these members with live ones; this class
    documents the interface and lets modules import and annotate with it.
    """

    memory: Any = None
    events: list = []
    is_cancelled: bool = False
    model: Optional[Any] = None

    async def send(self, text: str) -> None:  # pragma: no cover - replaced at run time
        raise RuntimeError("ToolContext.send is only available while a tool runs")
