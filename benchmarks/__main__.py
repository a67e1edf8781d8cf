"""`make bench` (or `python -m benchmarks [name ...]`): run the benchmarks, print tables.

Each `benchmarks/bench_<name>.py` has a `run()` that prints its own table(s).
"""

import importlib
import pkgutil
import sys
from pathlib import Path


def main(selected: list[str]) -> None:
    names = sorted(
        module.name.removeprefix("bench_")
        for module in pkgutil.iter_modules([str(Path(__file__).parent)])
        if module.name.startswith("bench_")
    )
    for name in selected or names:
        if name not in names:
            sys.exit(f"no benchmark named {name!r}; have: {', '.join(names)}")
        print(f"\n# benchmark: {name}", flush=True)
        importlib.import_module(f"benchmarks.bench_{name}").run()


if __name__ == "__main__":
    main(sys.argv[1:])
