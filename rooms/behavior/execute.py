# batlehub-behavior's execute phase (PyPI; OSSF package-analysis's third phase): the module
# imported, then every function and class it defines, and every method of each class, called
# with MagicMock arguments — each call bounded by its own alarm — so that code that does its
# work only when called is seen doing it. Run as `python3 execute.py MODULE`, one module per
# interpreter, inside the walls and under the observer like every phase; nothing it calls
# can reach more than the sandbox.
import importlib
import inspect
import signal
import sys
from unittest import mock

MAX_CALLS = 200
BOUND_SECONDS = 2


class Bounded(BaseException):
    pass


def _alarm(signum, frame):
    raise Bounded()


signal.signal(signal.SIGALRM, _alarm)
calls = 0


def call(target):
    global calls
    if calls >= MAX_CALLS:
        return None
    calls += 1
    try:
        params = inspect.signature(target).parameters.values()
        args = [mock.MagicMock() for p in params
                if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        args = []
    signal.setitimer(signal.ITIMER_REAL, BOUND_SECONDS)
    try:
        result = target(*args)
        if inspect.iscoroutine(result):
            result.close()
        return result
    except BaseException:
        return None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def defined_here(obj, prefix):
    return (getattr(obj, "__module__", None) or "").split(".")[0] == prefix


def walk(module, prefix, seen):
    for name, obj in list(vars(module).items()):
        if name.startswith("__") or id(obj) in seen:
            continue
        seen.add(id(obj))
        if inspect.isfunction(obj) and defined_here(obj, prefix):
            call(obj)
        elif inspect.isclass(obj) and defined_here(obj, prefix):
            instance = call(obj)
            for method_name, _ in inspect.getmembers(obj, inspect.isfunction):
                if not method_name.startswith("__") and instance is not None:
                    try:
                        call(getattr(instance, method_name))
                    except BaseException:
                        pass
        elif inspect.ismodule(obj) and obj.__name__.startswith(prefix + "."):
            walk(obj, prefix, seen)


def main():
    name = sys.argv[1]
    try:
        module = importlib.import_module(name)
    except BaseException:
        return
    walk(module, name.split(".")[0], set())


main()
