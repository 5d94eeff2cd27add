# batlehub-behavior's import phase (PyPI): the module imported as a user imports it, then every
# submodule of it, each under its own alarm — a package's code can sit in a submodule its
# __init__ never imports (a package whose __init__.py is empty and whose payload runs when
# pkg/payload.py is imported). At most MAX_SUBMODULES, and none of what a user does not
# import: __main__ (a command line's entry), tests, docs, examples, setup and conftest. Run as
# `python3 import.py MODULE`, one module per interpreter, inside the walls and under the
# observer like every phase. A failure of the module's own import is the phase's exit status,
# as with `python -c "import MODULE"`; a submodule's failure is its own and passes.
import importlib
import pkgutil
import signal
import sys

MAX_SUBMODULES = 50
BOUND_SECONDS = 5
SKIP = {"__main__", "test", "tests", "testing", "conftest", "setup", "docs", "doc", "examples", "example",
        "benchmarks", "benchmark"}


class Bounded(BaseException):
    pass


def _alarm(signum, frame):
    raise Bounded()


def skipped(name):
    return any(part in SKIP or part.startswith("test_") for part in name.split(".")[1:])


def submodules(package, budget):
    """Imports the package's submodules, depth first, each under its own alarm; returns what is
    left of the budget."""
    try:
        found = list(pkgutil.iter_modules(getattr(package, "__path__", None) or [], package.__name__ + "."))
    except BaseException:
        return budget
    for info in found:
        if budget <= 0:
            break
        if skipped(info.name):
            continue
        budget -= 1
        signal.setitimer(signal.ITIMER_REAL, BOUND_SECONDS)
        try:
            module = importlib.import_module(info.name)
        except BaseException:
            module = None
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        if module is not None and info.ispkg:
            budget = submodules(module, budget)
    return budget


def main():
    module = importlib.import_module(sys.argv[1])
    signal.signal(signal.SIGALRM, _alarm)
    submodules(module, MAX_SUBMODULES)


main()
