# The detonation room's stand-in for a module a package imports and the room does not hold
# (rooms/behavior.toml). A detonation installs with no index and no dependencies, so a
# setup.py that imports a library it never declared, or code written for Windows
# (win32crypt, winreg), would stop at its first import and show nothing of what it does.
# An import made by the package's own code — a file under the build directory pip unpacked
# it to, or under the venv it was installed into — that no finder satisfies gets a
# unittest.mock.MagicMock instead, and the code goes on. An import made by pip, setuptools,
# the standard library or the room's own libraries fails as it always does.
import sys

_PACKAGE_CODE = ("/work/tmp/pip-", "/work/venv/lib/")


def _imported_by_package_code():
    frame = sys._getframe(2)
    while frame is not None:
        name = frame.f_code.co_filename
        if not name.startswith("<frozen ") and "importlib" not in name:
            return name.startswith(_PACKAGE_CODE)
        frame = frame.f_back
    return False


class _StandIn:
    """A meta path finder of last resort."""

    @classmethod
    def find_spec(cls, fullname, path=None, target=None):
        import importlib.machinery
        if fullname.split(".")[0] not in sys.modules and not _imported_by_package_code():
            return None
        if fullname.split(".")[0] in sys.modules and not isinstance(sys.modules[fullname.split(".")[0]], _Module):
            return None
        return importlib.machinery.ModuleSpec(fullname, cls, is_package=True)

    @staticmethod
    def create_module(spec):
        return _Module(spec.name)

    @staticmethod
    def exec_module(module):
        pass


def _module_type():
    from unittest import mock

    class Module(mock.MagicMock):
        def __init__(self, name=None, **kw):
            super().__init__(name=name, **kw)
            self.__path__ = []
            self.__name__ = name or "stand-in"

    return Module


_Module = _module_type()
sys.meta_path.append(_StandIn)
