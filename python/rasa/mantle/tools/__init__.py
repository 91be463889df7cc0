"""Tool decorator, context and result (maestro support package)."""
