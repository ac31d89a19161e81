"""Runs the exercises' tests and prints a score table: `python -m {{ cookiecutter.package_name }}.grade` (or `make grade`).

An exercise earns the points of its test file's `points` marker when every one of its tests passes, as GitHub
Classroom's workflow (.github/workflows/classroom.yml) grades it. Extra arguments go to pytest, e.g. `-x`.
"""

import ast
import collections
import re
import sys
from pathlib import Path

import pytest

EXERCISES = Path(__file__).resolve().parent.parent / "tests" / "exercises"
POINTS = re.compile(r"^pytestmark = pytest\.mark\.points\((\d+)\)$", re.MULTILINE)


def exercises():
    """{test file: (title, points)}, the title being its docstring's words before the first colon."""
    found = {}
    for path in sorted(EXERCISES.glob("test_*.py")):
        text = path.read_text(encoding="utf-8")
        title = (ast.get_docstring(ast.parse(text)) or path.stem).split(":")[0]
        points = POINTS.search(text)
        found[path.name] = (f"{path.stem.split('_')[1]} {title}", int(points.group(1)) if points else 0)
    return found


class Failures:
    """A pytest plugin that keeps, per test file, what each failure says first (a test's, or the file's import)."""

    def __init__(self):
        self.by_file = collections.defaultdict(list)

    def pytest_collectreport(self, report):
        if report.failed:
            self.by_file[Path(report.nodeid).name].append("could not be imported")

    def pytest_runtest_logreport(self, report):
        if report.failed:
            crash = getattr(report.longrepr, "reprcrash", None)  # the exception's first line says what to fix
            why = crash.message.splitlines()[0] if crash and crash.message else report.head_line or report.nodeid
            self.by_file[Path(report.nodeid.split("::")[0]).name].append(why)


def table(found, failures):
    """The score table: one row per exercise, then the total."""
    width = max(len(title) for title, _ in found.values())
    lines = [f"{'exercise':<{width}}  {'score':>7}  result"]
    earned = 0
    for name, (title, points) in found.items():
        failed = failures.get(name)
        earned += 0 if failed else points
        result = f"failed: {failed[0]}" if failed else "passed"
        lines.append(f"{title:<{width}}  {0 if failed else points:>3}/{points:<3}  {result}")
    lines.append(f"{'total':<{width}}  {earned:>3}/{sum(points for _, points in found.values()):<3}")
    return "\n".join(lines)


def main(argv=None):
    found, failures = exercises(), Failures()
    pytest.main([str(EXERCISES), "-q", "-p", "no:cacheprovider", *(argv or [])], plugins=[failures])
    print(table(found, failures.by_file))
    return 1 if failures.by_file else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
