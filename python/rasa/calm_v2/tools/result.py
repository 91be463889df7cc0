"""`ToolResult`: what a tool returns."""

from typing import Any

__all__ = ["ToolResult"]


class ToolResult:
    """The value returned to the LLM (`llm_response`, any JSON value)."""

    __slots__ = ("llm_response",)

    def __init__(self, llm_response: Any = None) -> None:
        self.llm_response = llm_response

    def __repr__(self) -> str:
        return f"ToolResult(llm_response={self.llm_response!r})"
