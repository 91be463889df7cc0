"""maestro's long-lived Python tool worker.

Started by the runtime as `python3 maestro_worker.py` from the folder that
holds maestro's support package (so `rasa.calm_v2.*` / `rasa.mantle.*`
resolve to it). It speaks JSON lines: one JSON object per line on stdin
(requests from maestro) and on the original stdout (answers). Everything
else, including `print()` in tool code and tracebacks, goes to stderr.

maestro -> worker:
  {"op": "load", "root": DIR, "modules": [REL, ...]?}        (once)
  {"op": "call", "id": N, "module": REL, "function": NAME,
   "arguments": {...}, "context": {"skill_id", "events", "llm_config",
   "references_index"}}
  {"op": "reply", "id": M, "value": V} | {"op": "reply", "id": M, "error": E}
  {"op": "cancel", "id": N}

worker -> maestro:
  {"op": "loaded", "errors": [{"path": REL, "error": TEXT}, ...]}
  {"op": "request", "id": M, "call": N, "kind": "memory_get" | "memory_set"
   | "send", "name": ..., "value": ..., "text": ...}
  {"op": "result", "id": N, "ok": VALUE} | {"op": "result", "id": N,
   "error": TEXT} | {"op": "result", "id": N, "cancelled": true}

Calls run one at a time on an asyncio loop. A reader thread keeps reading
stdin while a call runs: replies complete the waiting request directly (so a
synchronous `context.memory.get` can block the loop until its answer
arrives), a cancel marks the call cancelled at once (`is_cancelled`) and
cancels its task (the tool sees `asyncio.CancelledError` at its current
`await`, decision D13).
"""

import asyncio
import concurrent.futures
import copy
import importlib.util
import inspect
import json
import math
import os
import sys
import threading
import traceback

from rasa.calm_v2.tools.decorator import TOOL_MARKER, MemoryWriteError, ToolContext
from rasa.calm_v2.tools.result import ToolResult


class _NotSerializable(Exception):
    pass


def _jsonable(value, _active=None):
    """`value` as plain JSON data: non-JSON leaves are stringified (dates,
    decimals, ...), NaN/infinity too; cycles and unusable dict keys raise
    `_NotSerializable`."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if _active is None:
        _active = set()
    if isinstance(value, (dict, list, tuple)):
        if id(value) in _active:
            raise _NotSerializable("cycle")
        _active.add(id(value))
        try:
            if isinstance(value, dict):
                out = {}
                for k, v in value.items():
                    if isinstance(k, str):
                        key = k
                    elif k is None or isinstance(k, (bool, int, float)):
                        key = json.dumps(k)
                    else:
                        raise _NotSerializable("key")
                    out[key] = _jsonable(v, _active)
                return out
            return [_jsonable(v, _active) for v in value]
        finally:
            _active.discard(id(value))
    return str(value)


class _Call:
    """One running call: its id, cancellation flag and asyncio task."""

    def __init__(self, call_id):
        self.id = call_id
        self.cancelled = False
        self.task = None

    def cancel_task(self):
        if self.task is not None and not self.task.done():
            self.task.cancel()


class _Memory:
    """`context.memory`: every access is a request to maestro."""

    def __init__(self, worker, call):
        self._worker = worker
        self._call = call

    def get(self, name, default=None):
        try:
            value = self._worker.request(self._call, "memory_get", name=str(name))
        except _ReplyError:
            return default
        return default if value is None else value

    def set(self, name, value):
        try:
            data = _jsonable(value)
        except _NotSerializable:
            raise TypeError("the value for memory entry %r is not JSON-serializable" % (name,))
        try:
            self._worker.request(self._call, "memory_set", name=str(name), value=data)
        except _ReplyError as e:
            raise MemoryWriteError(str(e)) from None


class _ReferencesIndex:
    """`context.model.references_index`: the packaged knowledge index.

    `search(query, limit=5)` returns a list of `{"text", "source", "scope",
    "score"}` dicts, best first, searched by maestro (BM25) with the same
    scope as the agent's `search_knowledge` (the active skill's references
    and the global ones). `stats` describes the index.
    """

    def __init__(self, worker, call, stats):
        self._worker = worker
        self._call = call
        self.stats = stats

    def search(self, query, limit=5):
        try:
            return self._worker.request(self._call, "search", query=str(query), limit=int(limit)) or []
        except _ReplyError:
            return []

    def __repr__(self):
        return "ReferencesIndex(%r)" % (self.stats,)


class _Model:
    """`context.model`: read-only settings fixed for the loaded model."""

    def __init__(self, llm_config, references_index):
        self._llm_config = llm_config
        self._references_index = references_index

    @property
    def llm_config(self):
        return self._llm_config

    @property
    def references_index(self):
        return self._references_index

    def __repr__(self):
        return "ToolModelContext(llm_config=%r, references_index=%r)" % (
            self._llm_config,
            self._references_index,
        )


class _LiveContext(ToolContext):
    """The `ToolContext` injected as `context=` into one call."""

    def __init__(self, worker, call, data):
        self._worker = worker
        self._call = call
        self._events = list(data.get("events") or [])
        self._memory = _Memory(worker, call)
        index = data.get("references_index")
        self._model = _Model(
            data.get("llm_config") or {},
            _ReferencesIndex(worker, call, index) if index is not None else None,
        )
        self.skill_id = data.get("skill_id")

    @property
    def memory(self):
        return self._memory

    @property
    def events(self):
        return copy.deepcopy(self._events)

    @property
    def is_cancelled(self):
        return self._call.cancelled

    @property
    def model(self):
        return self._model

    async def send(self, text):
        if self._call.cancelled:
            return None
        await self._worker.request_async(self._call, "send", text=str(text))
        return None


class _ReplyError(Exception):
    pass


class _Escaped(Exception):
    """SystemExit / KeyboardInterrupt raised by a tool, kept from stopping
    the worker."""


async def _guarded(awaitable):
    try:
        return await awaitable
    except (SystemExit, KeyboardInterrupt) as e:
        raise _Escaped("%s: %s" % (type(e).__name__, e)) from e


class Worker:
    def __init__(self, proto_in, proto_out):
        self.proto_in = proto_in
        self.proto_out = proto_out
        self.write_lock = threading.Lock()
        self.lock = threading.Lock()
        self.pending = {}
        self.next_request = 0
        self.current = None
        self.cancelled_early = set()
        self.root = None
        self.modules = {}
        self.load_errors = {}
        self.module_count = 0
        self.lib_modules = set()

    # -- protocol ---------------------------------------------------------

    def write(self, msg):
        line = json.dumps(msg, ensure_ascii=False, allow_nan=False)
        with self.write_lock:
            self.proto_out.write(line + "\n")
            self.proto_out.flush()

    def _new_request(self, call, kind, fields):
        fut = concurrent.futures.Future()
        with self.lock:
            self.next_request += 1
            rid = self.next_request
            self.pending[rid] = fut
        msg = {"op": "request", "id": rid, "call": call.id, "kind": kind}
        msg.update(fields)
        self.write(msg)
        return fut

    def request(self, call, kind, **fields):
        """A synchronous request: blocks (even the event loop) until maestro
        replies."""
        return self._new_request(call, kind, fields).result()

    async def request_async(self, call, kind, **fields):
        return await asyncio.wrap_future(self._new_request(call, kind, fields))

    def _read(self):
        for line in self.proto_in:
            line = line.strip()
            if not line:
                continue
            try:
                msg = json.loads(line)
            except ValueError:
                print("maestro worker: ignoring a line that is not JSON: %r" % line[:200], file=sys.stderr)
                continue
            op = msg.get("op")
            if op == "reply":
                with self.lock:
                    fut = self.pending.pop(msg.get("id"), None)
                if fut is None or fut.done():
                    continue
                try:
                    if msg.get("error") is not None:
                        fut.set_exception(_ReplyError(str(msg["error"])))
                    else:
                        fut.set_result(msg.get("value"))
                except concurrent.futures.InvalidStateError:
                    pass
            elif op == "cancel":
                self._cancel(msg.get("id"))
            else:
                self.loop.call_soon_threadsafe(self.inbox.put_nowait, msg)
        # maestro went away: nothing left to answer to.
        os._exit(0)

    def _cancel(self, call_id):
        with self.lock:
            call = self.current
            if call is not None and call.id == call_id:
                call.cancelled = True
                self.loop.call_soon_threadsafe(call.cancel_task)
            else:
                self.cancelled_early.add(call_id)

    async def run(self):
        self.loop = asyncio.get_running_loop()
        self.inbox = asyncio.Queue()
        threading.Thread(target=self._read, name="maestro-reader", daemon=True).start()
        while True:
            msg = await self.inbox.get()
            op = msg.get("op")
            try:
                if op == "load":
                    self.load(msg.get("root"), msg.get("modules"))
                elif op == "call":
                    await self.run_call(msg)
                else:
                    print("maestro worker: unknown op %r" % (op,), file=sys.stderr)
            except Exception:
                traceback.print_exc()
                if op == "call":
                    self.write({"op": "result", "id": msg.get("id"), "error": "internal worker error"})

    # -- loading ----------------------------------------------------------

    def load(self, root, modules):
        for name in self.lib_modules:
            sys.modules.pop(name, None)
        self.lib_modules.clear()
        self.root = os.path.abspath(root)
        self.modules = {}
        self.load_errors = {}
        if modules is None:
            modules = self.discover(self.root)
        for rel in modules:
            self.import_module(rel)
        self.write(
            {
                "op": "loaded",
                "errors": [{"path": p, "error": e} for p, e in sorted(self.load_errors.items())],
            }
        )

    @staticmethod
    def discover(root):
        """The tool modules of a package: `skills/<id>/tools.py`,
        `skills/<id>/tools/*.py` and the agent-root `tools/*.py`."""
        found = []

        def py_files(folder, prefix):
            try:
                names = sorted(os.listdir(folder))
            except OSError:
                return
            for name in names:
                if name.endswith(".py") and name != "__init__.py" and os.path.isfile(os.path.join(folder, name)):
                    found.append(prefix + name)

        skills = os.path.join(root, "skills")
        try:
            skill_ids = sorted(os.listdir(skills))
        except OSError:
            skill_ids = []
        for sid in skill_ids:
            folder = os.path.join(skills, sid)
            if not os.path.isdir(folder):
                continue
            if os.path.isfile(os.path.join(folder, "tools.py")):
                found.append("skills/%s/tools.py" % sid)
            py_files(os.path.join(folder, "tools"), "skills/%s/tools/" % sid)
        py_files(os.path.join(root, "tools"), "tools/")
        return found

    @staticmethod
    def _key(rel):
        return os.path.normpath(str(rel).replace("\\", "/")).replace("\\", "/")

    def import_module(self, rel):
        key = self._key(rel)
        path = os.path.join(self.root, key)
        self.module_count += 1
        name = "_maestro_tools_%d" % self.module_count
        added = self.root not in sys.path
        if added:
            sys.path.insert(0, self.root)
        try:
            spec = importlib.util.spec_from_file_location(name, path)
            if spec is None or spec.loader is None:
                raise ImportError("cannot load %s" % key)
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            try:
                spec.loader.exec_module(module)
            except BaseException:
                sys.modules.pop(name, None)
                raise
            self.modules[key] = module
            self.load_errors.pop(key, None)
        except SystemExit as e:
            self.load_errors[key] = "the module called sys.exit(%r) on import" % (e.code,)
        except BaseException as e:  # noqa: B902 - report every import failure
            traceback.print_exc()
            self.load_errors[key] = "%s: %s" % (type(e).__name__, e)
        finally:
            if added and self.root in sys.path:
                sys.path.remove(self.root)
            for mod in list(sys.modules):
                if mod == "lib" or mod.startswith("lib."):
                    self.lib_modules.add(mod)

    def find_tool(self, rel, function):
        """The tool function, or an error message."""
        if self.root is None:
            return None, "the tool worker has no package loaded"
        key = self._key(rel)
        if os.path.isabs(key) or key == ".." or key.startswith("../"):
            return None, "Tool module '%s' is outside the package." % (rel,)
        if key not in self.modules and key not in self.load_errors:
            self.import_module(key)
        if key in self.load_errors:
            return None, "Tool module '%s' could not be imported: %s" % (key, self.load_errors[key])
        fn = getattr(self.modules[key], str(function), None)
        if fn is None or not callable(fn) or getattr(fn, TOOL_MARKER, None) is None:
            return None, "Unknown tool '%s' \u2014 no handler registered." % (function,)
        return fn, None

    # -- calls ------------------------------------------------------------

    async def run_call(self, msg):
        call = _Call(msg.get("id"))
        with self.lock:
            if call.id in self.cancelled_early:
                self.cancelled_early.discard(call.id)
                early = True
            else:
                early = False
                self.current = call
        if early:
            self.write({"op": "result", "id": call.id, "cancelled": True})
            return
        try:
            outcome = await self.invoke(call, msg)
        finally:
            with self.lock:
                self.current = None
        if call.cancelled:
            outcome = {"cancelled": True}
        outcome["op"] = "result"
        outcome["id"] = call.id
        self.write(outcome)

    async def invoke(self, call, msg):
        name = str(msg.get("function"))
        fn, problem = self.find_tool(msg.get("module"), name)
        if problem is not None:
            return {"error": problem}
        arguments = msg.get("arguments")
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            return {"error": "Tool '%s' expects an object of arguments." % name}
        # `context` is injected, never an LLM argument.
        arguments = {k: v for k, v in arguments.items() if k != "context"}
        context = _LiveContext(self, call, msg.get("context") or {})
        try:
            returned = fn(context=context, **arguments)
        except BaseException as e:  # noqa: B902 - the tool's own failure
            traceback.print_exc()
            return {"error": "%s: %s" % (type(e).__name__, e)}
        if not inspect.isawaitable(returned):
            return {
                "error": "Tool '%s' must be an async function (async def); it returned %s instead of a coroutine."
                % (name, type(returned).__name__)
            }
        call.task = asyncio.ensure_future(_guarded(returned))
        if call.cancelled:
            call.task.cancel()
        await asyncio.wait({call.task})
        task = call.task
        if call.cancelled:
            # A value returned from a CancelledError handler is discarded.
            if not task.cancelled():
                task.exception()
            return {"cancelled": True}
        if task.cancelled():
            return {"error": "CancelledError: the tool was cancelled"}
        error = task.exception()
        if error is not None:
            traceback.print_exception(type(error), error, error.__traceback__)
            if isinstance(error, _Escaped):
                return {"error": str(error)}
            return {"error": "%s: %s" % (type(error).__name__, error)}
        value = task.result()
        if not isinstance(value, ToolResult):
            return {"error": "Tool '%s' must return a ToolResult, got %s." % (name, type(value).__name__)}
        try:
            return {"ok": _jsonable(value.llm_response)}
        except (_NotSerializable, RecursionError):
            return {"error": "Tool '%s' returned a non-serializable result." % name}


def main():
    # The protocol keeps the original stdin/stdout; tool code gets
    # /dev/null as stdin and stderr as stdout, so a print() cannot corrupt
    # the protocol.
    proto_in = os.fdopen(os.dup(0), "r", encoding="utf-8", errors="replace")
    proto_out = os.fdopen(os.dup(1), "w", encoding="utf-8", newline="\n")
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    asyncio.run(Worker(proto_in, proto_out).run())


if __name__ == "__main__":
    main()
