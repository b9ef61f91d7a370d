"""Tables of the benchmark scripts: printed, and written to ``benchmarks/results/<name>.md``
with the date and the machine, so that a run can be compared with the next one."""

import datetime
import os
import platform

RESULTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results")


def machine():
    """The processor, the core count and the Python/NumPy/numba versions, on one line."""
    import numba
    import numpy as np

    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return (f"{cpu}, {os.cpu_count()} cores; Python {platform.python_version()}, NumPy {np.__version__}, "
            f"numba {numba.__version__}")


def markdown_table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def write_markdown(name, title, sections, notes=()):
    """Print each (heading, header, rows) section as a table, and write them all, with the date,
    the machine and ``notes`` (lines of text), to benchmarks/results/<name>.md."""
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    parts = [f"# {title}", "", f"{stamp}; {machine()}", ""]
    for heading, header, rows in sections:
        table = markdown_table(header, rows)
        print(f"\n{heading}\n{table}")
        parts += [f"## {heading}", "", table, ""]
    for line in notes:
        print(line)
        parts += [line, ""]
    os.makedirs(RESULTS, exist_ok=True)
    path = os.path.join(RESULTS, f"{name}.md")
    with open(path, "w") as f:
        f.write("\n".join(parts))
    print(f"\nwritten to {os.path.relpath(path)}")
    return path
