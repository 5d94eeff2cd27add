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


# The Windows view (issue 47): much of the malware on PyPI is written for Windows and checks
# before anything else (`if os.name == "nt"`, `sys.platform == "win32"`,
# `platform.system() == "Windows"`), so on Linux it does nothing a detonation could see. In a
# phase run with the view, the package's own code — its setup.py, as pip's build runs it, and
# its modules in the venv — is compiled with those three read as Windows answers them;
# everything else (pip, setuptools, the standard library) sees Linux, so nothing of the room
# breaks. The decoy home holds the stores Windows keeps under APPDATA and LOCALAPPDATA, which
# the environment points at. The variable that asks for the view stays in the environment:
# pip copies os.environ into the process it builds setup.py in, which must get the view too.
def _windows_view():
    import ast
    import builtins
    import importlib.machinery
    import os

    if os.environ.get("BATLEHUB_VIEW") != "windows":
        return

    answers = {("sys", "platform"): "win32", ("os", "name"): "nt"}
    calls = {("platform", "system"): "Windows", ("platform", "platform"): "Windows-10-10.0.19045-SP0",
             ("platform", "release"): "10"}

    class _AsWindows(ast.NodeTransformer):
        def visit_Attribute(self, node):
            self.generic_visit(node)
            if isinstance(node.value, ast.Name) and (node.value.id, node.attr) in answers and \
                    isinstance(node.ctx, ast.Load):
                return ast.copy_location(ast.Constant(answers[(node.value.id, node.attr)]), node)
            return node

        def visit_Call(self, node):
            self.generic_visit(node)
            f = node.func
            if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and \
                    (f.value.id, f.attr) in calls and not node.args and not node.keywords:
                return ast.copy_location(ast.Constant(calls[(f.value.id, f.attr)]), node)
            return node

    def package_file(name):
        return isinstance(name, str) and name.startswith(_PACKAGE_CODE) and name.endswith(".py")

    def as_windows(source, filename):
        if isinstance(source, (bytes, bytearray)):
            source = bytes(source).decode("utf-8", "surrogateescape")
        tree = ast.parse(source, filename)
        return ast.fix_missing_locations(_AsWindows().visit(tree))

    original_compile = builtins.compile
    original_exec = builtins.exec

    def compile(source, filename, mode, flags=0, dont_inherit=False, optimize=-1, **kw):
        if package_file(filename) and isinstance(source, (str, bytes, bytearray)) and \
                not flags & ast.PyCF_ONLY_AST:
            try:
                source = as_windows(source, filename)
            except Exception:
                pass
        return original_compile(source, filename, mode, flags, dont_inherit, optimize, **kw)

    def exec(source, globals=None, locals=None, *rest, **kw):
        # setuptools' build backend runs setup.py as exec(<its text>, locals()) with __file__ set.
        where = (locals if isinstance(locals, dict) else None) or (globals if isinstance(globals, dict) else None)
        filename = where.get("__file__") if where else None
        if isinstance(source, str) and package_file(filename):
            try:
                source = original_compile(as_windows(source, filename), filename, "exec")
            except Exception:
                pass
        return original_exec(source, globals, locals, *rest, **kw)

    builtins.compile = compile
    builtins.exec = exec

    # A module of the package is compiled from its source every time (pip byte-compiled it at
    # install, with Linux's answers), with the view.
    loader = importlib.machinery.SourceFileLoader
    original_get_code = loader.get_code

    def get_code(self, fullname):
        path = self.get_filename(fullname)
        if package_file(path):
            try:
                return original_compile(as_windows(self.get_data(path), path), path, "exec", dont_inherit=True)
            except Exception:
                pass
        return original_get_code(self, fullname)

    loader.get_code = get_code


_windows_view()
