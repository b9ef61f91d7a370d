"""svmlab/jit.py's rule: a kernel compiled without a Python entry point (``@inner``) is called only
by compiled code. A call from Python would crash the interpreter instead of raising, so this
test reads the sources: no Python-level code of svmlab may name an ``@inner`` kernel."""

import ast
import pathlib

import svmlab

PACKAGE = pathlib.Path(svmlab.__file__).parent
COMPILED = {"njit", "inner", "overload", "intrinsic"}  # decorators whose functions numba compiles


def _decorator_names(node):
    names = set()
    for d in node.decorator_list:
        target = d.func if isinstance(d, ast.Call) else d
        names.add(target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", ""))
    return names


def _inner_kernels(tree):
    return {node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)
            and "inner" in _decorator_names(node)}


def _python_level_names(tree):
    """The names read by code that runs in Python: everything outside compiled functions (an
    overload's implementations, its nested lambdas, are compiled too)."""
    found = []

    def visit(node, compiled):
        if isinstance(node, ast.FunctionDef):
            compiled = compiled or bool(_decorator_names(node) & COMPILED)
        if isinstance(node, ast.Name) and not compiled:
            found.append((node.id, node.lineno))
        for child in ast.iter_child_nodes(node):
            visit(child, compiled)

    visit(tree, False)
    return found


def test_no_python_code_calls_an_inner_kernel():
    trees = {path: ast.parse(path.read_text()) for path in PACKAGE.rglob("*.py")}
    inner = set().union(*(_inner_kernels(tree) for tree in trees.values()))
    assert {"_search_low", "_get", "_reconstruct"} <= inner  # the scan sees the decorator
    offenders = [f"{path.relative_to(PACKAGE)}:{line} {name}" for path, tree in trees.items()
                 for name, line in _python_level_names(tree) if name in inner]
    assert not offenders, f"Python code names kernels compiled without a Python entry point: {offenders}"


def test_the_scan_finds_a_python_call():
    """The scan itself: a Python function (and a lambda in it) naming an @inner kernel is found."""
    tree = ast.parse("@inner\ndef k(x):\n    return x\n\ndef calibrate(x):\n    return best(lambda: k(x))\n")
    assert _inner_kernels(tree) == {"k"}
    assert ("k", 6) in _python_level_names(tree)


def test_every_kernel_compiles_through_svmlab_jit():
    """svmlab.jit.njit leaves out numba's C-callable wrapper; a module importing numba's own njit
    would compile that wrapper into each of its kernels, silently lengthening a first fit."""
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        if path.name == "jit.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            imports_njit = isinstance(node, ast.ImportFrom) and any(a.name == "njit" for a in node.names)
            if imports_njit and node.module == "numba":
                offenders.append(str(path.relative_to(PACKAGE)))
            if isinstance(node, ast.Attribute) and node.attr == "njit" and getattr(node.value, "id", "") == "numba":
                offenders.append(str(path.relative_to(PACKAGE)))
    assert not offenders, f"modules compiling with numba's njit instead of svmlab.jit.njit: {offenders}"
