"""maestro's Python support package: the `rasa` import paths that tool
modules use, provided by maestro so that unchanged user code imports and
runs without the Python engine installed."""
