"""Where a fit's time goes, function by function: Linux ``perf`` with svmlab's kernels named.

perf samples the processor and names what it finds from the symbol tables of programs and
libraries. numba's kernels are machine code made in memory, which perf reports as "[JIT] tid" and
an address. This script gives perf their names. It fits once, compiling every kernel the fit needs
into an empty numba cache of its own (so that each kernel's object file is at hand, and those of
the functions it calls: a kernel loaded from a cache brings none of theirs), fits again under the
profile, and writes ``/tmp/perf-<pid>.map``: the address, size and name of every function in that
code, read from the object files' symbol tables (a function whose first definition has no object
file, such as numba's ``NRT_incref``, is placed by its address and named too). Run from the
repository root, inside the book's environment:

    perf record -k 1 -F 4000 -o /tmp/svmlab.perf .venv/bin/python -m benchmarks.perf_map smo --n 20000 --C 1 --jobs 2
    perf report -i /tmp/svmlab.perf --time START,END --no-children --sort pid,dso,sym

It prints the second command, with the file ``perf record`` writes (read from perf's command line,
as perf is this process's parent) and the profiled fit's START and END: ``-k 1`` puts perf on the
clock that the script reads (CLOCK_MONOTONIC), so that the report leaves out the imports, the data
and the first fit. ``pid`` is a thread's id: the main thread's is the number in the map's name,
the others are the threads of numba's parallel loops. A function is named ``module.function``.
numba compiles, into each kernel's code, a copy of every function the kernel calls; calls mostly
run the copy in the function's own library, named plainly, and a sample in a kernel's own copy is
named ``function [in kernel]``. The body of a parallel loop (``prange``) is named ``prange loop of
f``, f the function that holds the loop. Samples in ``libgomp`` (a library without symbols, so
shown as addresses) are the threads of those loops waiting: at the end of a loop for the slowest
thread, or between loops for the next one. perf reads the map when it reports: remove
``/tmp/perf-*.map`` when done.

Cases: ``smo``, KernelSVM (RBF, bench_smo's data of n x 20, tol 1e-3, cache 200 MB, ``--jobs``
threads); ``dcd``, LinearSVM (10 passes in a permutation, no shrinking) on the first n rows of
``datasets.make_dense``.
"""

import argparse
import bisect
import gc
import os
import re
import struct
import sys
import tempfile
import time
import warnings

SHT_SYMTAB, STT_FUNC = 2, 2  # ELF: a section of symbols; a symbol that is a function
LOOP_BODY = "_ZN13_3cdynamic_3e36__numba_parfor_gufunc"  # the mangled <dynamic>.__numba_parfor_gufunc_...


def object_functions(obj):
    """(section, offset, size, symbol) of every function in the ELF64 object file ``obj`` (bytes)."""
    shoff, = struct.unpack_from("<Q", obj, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", obj, 0x3A)
    # sh_name, sh_type, sh_flags, sh_addr, sh_offset, sh_size, sh_link, sh_info, sh_addralign, sh_entsize
    sections = [struct.unpack_from("<IIQQQQIIQQ", obj, shoff + k * shentsize) for k in range(shnum)]
    for _, kind, _, _, offset, size, link, _, _, entsize in sections:
        if kind != SHT_SYMTAB:
            continue
        names = sections[link][4]
        for at in range(offset, offset + size, entsize):
            name, info, _, section, value, length = struct.unpack_from("<IBBHQQ", obj, at)
            if info & 0xF == STT_FUNC and length:
                start = names + name
                yield section, value, length, obj[start:obj.index(b"\0", start)].decode()


def readable(symbol):
    """``svmlab.solvers.smo._advance`` for numba's mangled name of it (the parts of the name up to
    its tags, with numba's escapes of punctuation, _XX in hexadecimal, undone); a name numba did
    not mangle is kept."""
    if not symbol.startswith("_ZN"):
        return symbol
    parts, at = [], 3
    while at < len(symbol) and symbol[at].isdigit():
        digits = re.match(r"\d+", symbol[at:]).group()
        at += len(digits)
        parts.append(symbol[at:at + int(digits)])
        at += int(digits)
    name = ".".join(parts)
    return re.sub(r"_(2[0-9a-f]|3[a-f]|40|5[b-e]|60|7[b-e])", lambda m: chr(int(m.group(1), 16)), name)


def keep_object_files():
    """Make numba keep each kernel's object file when it loads one from its cache (it hands the
    bytes to LLVM and drops them; a kernel it compiles keeps its own). Call before any kernel loads."""
    from numba.core.codegen import CPUCodeLibrary

    def set_compiled_object(library, value, _set=CPUCodeLibrary._set_compiled_object):
        library.perf_object = value
        _set(library, value)
    CPUCodeLibrary._set_compiled_object = set_compiled_object


def libraries():
    """(library, its entry's symbol, the functions of its object file) for every library of compiled
    code in this process that has its object file: a kernel's, or code numba made for one, such as
    the body of a parallel loop. The entry is the function the library is named for."""
    from numba.core.codegen import CPUCodeLibrary

    for library in [o for o in gc.get_objects() if isinstance(o, CPUCodeLibrary)]:
        obj = getattr(library, "perf_object", None) or getattr(library, "_compiled_object", None)
        if not obj:
            continue
        functions = list(object_functions(obj))
        entry = next((f[3] for f in functions if readable(f[3]).endswith("." + library.name)
                      and not f[3].startswith(("_ZN7cpython", "cfunc"))), None)
        if entry is not None:
            yield library, entry, functions


def load_base(library, entry, functions):
    """(the section of the library's entry, where that section was loaded). Every library holds
    copies of the functions its code calls, and LLVM resolves a name to the first library that
    defined it, for a callee its own library: so only the entry's address places the library."""
    section, value = next((f[0], f[1]) for f in functions if f[3] == entry)
    return section, library._codegen._engine.get_function_address(entry) - value


def compiled_functions():
    """(address, size, name) of every function in the compiled code of this process, no two
    overlapping."""
    found = list(libraries())
    # a parallel loop's body (numba's __numba_parfor_gufunc_..., and its __gufunc__ wrapper) is in
    # its own library, in the object of the kernel that holds the loop, and in that kernel's callers'
    owner = {}
    for _, entry, functions in sorted(found, key=lambda k: -len(k[2])):  # the smallest object last
        if not entry.startswith(LOOP_BODY):
            owner.update((f[3], readable(entry)) for f in functions if f[3].startswith(LOOP_BODY))
    rows = set()
    for library, entry, functions in found:
        section, base = load_base(library, entry, functions)
        kernel = readable(entry)
        for sec, offset, length, symbol in functions:
            if sec != section:
                continue
            loop = next((o for body, o in owner.items() if body in symbol), None)
            if loop is not None:
                name = f"prange loop of {loop}"
            else:
                name = readable(symbol)
                name = name if name.removeprefix("cpython.") == kernel else f"{name} [in {kernel}]"
            rows.add((base + offset, length, name))
    return sorted(rows | first_definitions(found, rows))


def first_definitions(found, rows):
    """Rows for the functions whose name LLVM resolves to code that none of ``rows`` covers: first
    defined by a library without an object file (numba's reference counting, NRT_incref, is one).
    Their size is that of a copy in an object, cut short of the next function."""
    covered = sorted((address, address + size) for address, size, _ in rows)
    starts = [a for a, _ in covered]
    lengths = {}  # each name once: most are in many objects
    for _, _, functions in found:
        for _, _, length, symbol in functions:
            lengths.setdefault(symbol, length)
    engine = found[0][0]._codegen._engine if found else None  # numba has one JIT engine for all
    placed = {}
    for symbol, length in lengths.items():
        address = engine.get_function_address(symbol)
        k = bisect.bisect_right(starts, address)
        if address and not (k > 0 and address < covered[k - 1][1]):
            placed.setdefault(address, (length, readable(symbol)))
    starts = sorted(set(starts) | set(placed))
    extra = set()
    for address, (length, name) in placed.items():
        k = bisect.bisect_right(starts, address)
        following = starts[k] if k < len(starts) else address + length
        extra.add((address, min(length, following - address), name))
    return extra


def write_perf_map(path=None):
    """Write perf's map of run-time code (``/tmp/perf-<pid>.map``); returns its path and line count."""
    path = path or f"/tmp/perf-{os.getpid()}.map"
    rows = compiled_functions()
    with open(path, "w") as f:
        f.writelines(f"{address:x} {size:x} {name}\n" for address, size, name in rows)
    return path, len(rows)


def fit_of(case, n, C, jobs):
    """The profiled fit of ``case`` (see the module's docstring), as a function of no arguments."""
    import svmlab

    if case == "smo":
        from benchmarks.bench_smo import standardized_data
        X, y = standardized_data(n)
        model = svmlab.KernelSVM(C=C, tol=1e-3, cache_size=200, n_jobs=jobs)
    else:
        from svmlab import datasets
        X, y = datasets.make_dense()
        X, y = X[:n], y[:n]
        model = svmlab.LinearSVM(C=C, shrinking=False, tol=1e-12, max_iter=10, random_state=0)
    return lambda: model.fit(X, y)


def perf_data():
    """The file ``perf record`` writes (its -o), read from its command line: perf runs this script as
    its child. None when the parent is not perf."""
    try:
        with open(f"/proc/{os.getppid()}/cmdline", "rb") as f:
            args = f.read().decode().split("\0")
    except OSError:
        return None
    if not os.path.basename(args[0]).startswith("perf"):
        return None
    for flag, value in zip(args, args[1:]):
        if flag in ("-o", "--output"):
            return value
    return next((a.split("=", 1)[1] for a in args if a.startswith("--output=")), "perf.data")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("case", choices=["smo", "dcd"])
    parser.add_argument("--n", type=int, default=20_000)
    parser.add_argument("--C", type=float, default=1.0)
    parser.add_argument("--jobs", type=int, default=1, help="SMO's n_jobs")
    args = parser.parse_args(argv)
    keep_object_files()
    fit = fit_of(args.case, args.n, args.C, args.jobs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        begin = time.monotonic()
        fit()  # compiles every kernel the fit needs
        start = time.monotonic()
        fit()
        end = time.monotonic()
    path, count = write_perf_map()
    print(f"profiled fit: {end - start:.2f} s (the first, compiling, {start - begin:.0f} s); "
          f"{count} functions named in {path}")
    data = perf_data()
    if data is None:
        print("not run under perf record: see the docstring")
    else:
        print(f"perf report -i {data} --time {start:.6f},{end:.6f} --no-children --sort pid,dso,sym")


if __name__ == "__main__":
    with tempfile.TemporaryDirectory(prefix="svmlab-perf-") as cache:
        os.environ["NUMBA_CACHE_DIR"] = cache  # before svmlab is imported
        sys.exit(main())
