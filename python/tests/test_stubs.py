"""The type stubs (satfeat/__init__.pyi, with py.typed) against the module they describe: the
same public names, the same members per class, the same parameter names per call, so a name
added to (or renamed in) the extension without its stub fails here. With mypy installed
(Debian: python3-mypy) mypy's own stubtest checks the signatures and types as well."""
import ast
import inspect
import pathlib
import subprocess
import sys
import types

import pytest

import satfeat

PACKAGE = pathlib.Path(satfeat.__file__).parent
STRUCTSEQ_EXTRAS = {"n_fields", "n_sequence_fields", "n_unnamed_fields"}


@pytest.fixture(scope="module")
def stub():
    """Top-level public definitions of the stub: name -> ast node (overloads: the first)."""
    tree = ast.parse((PACKAGE / "__init__.pyi").read_text(), "__init__.pyi")
    names = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.setdefault(node.name, node)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.setdefault(node.target.id, node)
    return {n: v for n, v in names.items() if not n.startswith("_") or n == "__version__"}


def runtime_public():
    return {n for n in dir(satfeat) if not n.startswith("_")
            and not isinstance(getattr(satfeat, n), types.ModuleType)} | {"__version__"}


def class_members(node):
    """Public names a stub class defines (methods, properties, attributes), overloads once."""
    names = set()
    for item in node.body:
        if isinstance(item, ast.FunctionDef):
            names.add(item.name)
        elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
            names.add(item.target.id)
    return {n for n in names if not n.startswith("_")}


def stub_params(fn):
    a = fn.args
    names = [p.arg for p in a.posonlyargs + a.args + a.kwonlyargs]
    return [n for n in names if n != "self"], a.kwarg.arg if a.kwarg else None


def runtime_params(obj):
    sig = inspect.signature(obj)
    names = [p.name for p in sig.parameters.values()
             if p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL) and p.name != "self"]
    kwarg = [p.name for p in sig.parameters.values() if p.kind == p.VAR_KEYWORD]
    return names, kwarg[0] if kwarg else None


def test_stub_names_are_the_module_names(stub):
    assert set(stub) == runtime_public()
    assert set(stub) - {"__version__"} == set(satfeat.__all__)
    assert (PACKAGE / "py.typed").is_file()


def test_stub_classes_have_the_runtime_members(stub):
    for name, node in stub.items():
        if not isinstance(node, ast.ClassDef):
            continue
        cls = getattr(satfeat, name)
        bases = [b.id for b in node.bases if isinstance(b, ast.Name)]
        if issubclass(cls, BaseException):
            assert bases == [b.__name__ for b in cls.__bases__], name
            continue
        runtime = {n for n in vars(cls) if not n.startswith("_")}
        assert class_members(node) == runtime, name
    err = satfeat.ArgumentError  # Error's attributes are set on each raised instance
    with pytest.raises(err) as info:
        satfeat.Detector(64, 48, backend="cpu", octaves=9)
    assert class_members(stub["Error"]) == {"status", "status_name"}
    assert isinstance(info.value.status, int) and isinstance(info.value.status_name, str)


def test_stub_signatures_name_the_runtime_parameters(stub):
    defaults = set(satfeat.detector_defaults())
    for name, node in stub.items():
        if isinstance(node, ast.FunctionDef):
            assert stub_params(node) == runtime_params(getattr(satfeat, name)), name
        if not isinstance(node, ast.ClassDef) or issubclass(getattr(satfeat, name), BaseException):
            continue
        cls = getattr(satfeat, name)
        for item in node.body:
            if not isinstance(item, ast.FunctionDef) or item.name.startswith("__") and \
                    item.name != "__init__":
                continue
            if any(isinstance(d, ast.Name) and d.id == "property" for d in item.decorator_list):
                continue
            got, want = stub_params(item), runtime_params(cls if item.name == "__init__"
                                                          else getattr(cls, item.name))
            if want[1] == "params" and got[1] is None:  # the stub spells the detector's params
                assert got[0][:len(want[0])] == want[0] and set(got[0][len(want[0]):]) == defaults
            else:
                assert got == want, f"{name}.{item.name}"


def test_stubtest_when_mypy_is_installed(tmp_path):
    pytest.importorskip("mypy", reason="mypy not installed (Debian: python3-mypy)")
    config = tmp_path / "mypy.ini"
    config.write_text("[mypy]\nignore_missing_imports = True\n"
                      "[mypy-satfeat.*]\nignore_errors = True\n")
    r = subprocess.run([sys.executable, "-m", "mypy.stubtest", "satfeat", "--mypy-config-file",
                        str(config), "--ignore-missing-stub"], capture_output=True, text=True)
    submodules = {p.stem for p in PACKAGE.glob("*.py")} | {"_satfeat"}
    errors = [line for line in r.stdout.splitlines() if line.startswith("error: satfeat")
              and (line.split()[1].split(".") + [""])[1] not in submodules]
    assert not errors, r.stdout[-4000:]
