"""The dependency rule of DESIGN §1, held by import-linter's contracts in pyproject.toml.

"`games` imports nothing of ours. `events` may import `games`. `workers` and `service`
import `events` (and `games` for types). ... `service` and `workers` never import each
other." Inside `events`, each subpackage is a layer (pyproject.toml names them), the record
verifier runs without Redis, and no module takes part in an import cycle.

The contracts are checked on the code as it is, and on copies of it with one forbidden
import added, so that a contract that could not fail would fail here.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
ROOT_PACKAGES = ("games", "events", "service", "workers", "cli")
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"


def lint_imports(tree: Path) -> subprocess.CompletedProcess[str]:
    """import-linter on the packages in `tree`, with this repository's contracts."""
    return subprocess.run(
        [str(LINT_IMPORTS), "--config", str(REPO / "pyproject.toml"), "--no-cache"],
        cwd=tree, env={"PYTHONPATH": str(tree), "PATH": "/usr/bin:/bin"},
        capture_output=True, text=True, timeout=120,
    )


# Run in a child process: this one has the real packages imported already, and grimp would
# find those instead of a copy's.
_CYCLES = """
import json, sys
import grimp
graph = grimp.build_graph(*sys.argv[1:], cache_dir=None)
cycles = []
for importer in sorted(graph.modules):
    for imported in sorted(graph.find_modules_directly_imported_by(importer)):
        back = graph.find_shortest_chain(importer=imported, imported=importer)
        if back:
            cycles.append([importer, *back])
print(json.dumps(cycles))
"""


def import_cycles(tree: Path) -> list[list[str]]:
    """Each direct import a -> b from which a chain of imports leads back to a, as that
    chain (a, b, ..., a). Empty when the modules form no cycle."""
    result = subprocess.run([sys.executable, "-c", _CYCLES, *ROOT_PACKAGES], cwd=tree,
                            env={"PYTHONPATH": str(tree)}, capture_output=True, text=True,
                            timeout=120, check=True)
    cycles: list[list[str]] = json.loads(result.stdout)
    return cycles


@pytest.fixture
def copy_of_code(tmp_path: Path) -> Path:
    for package in ROOT_PACKAGES:
        shutil.copytree(REPO / package, tmp_path / package,
                        ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path


def add_import(tree: Path, module: str, statement: str) -> None:
    path = tree / (module.replace(".", "/") + ".py")
    if not path.exists():
        path = tree / module.replace(".", "/") / "__init__.py"
    path.write_text(path.read_text() + f"\n{statement}  # the forbidden import\n")


def test_every_contract_is_kept() -> None:
    result = lint_imports(REPO)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def test_no_module_is_in_an_import_cycle() -> None:
    assert import_cycles(REPO) == []


@pytest.mark.parametrize(("module", "statement", "broken"), [
    ("games.registry", "from events.domain import envelope",
     "games is not allowed to import events"),
    ("games.res_publica.rules", "import random", "games is not allowed to import random"),
    ("service.middleware.errors", "import workers.jobs",
     "service is not allowed to import workers"),
    ("workers.jobs", "from service import errors", "workers is not allowed to import service"),
    ("events.domain.table", "import events.application.meeple",
     "events.domain is not allowed to import events.application"),
    ("events.records.verify", "import redis",
     "events.records.verify is not allowed to import redis"),
])
def test_a_forbidden_import_breaks_a_contract(copy_of_code: Path, module: str, statement: str,
                                              broken: str) -> None:
    assert lint_imports(copy_of_code).returncode == 0  # the copy itself is clean
    add_import(copy_of_code, module, statement)
    result = lint_imports(copy_of_code)
    assert result.returncode == 1, result.stdout
    assert broken in " ".join(result.stdout.split())


def test_an_import_cycle_is_found(copy_of_code: Path) -> None:
    # events.domain.table imports events.domain.deadlines; the way back closes a cycle.
    add_import(copy_of_code, "events.domain.deadlines", "import events.domain.table")
    cycles = import_cycles(copy_of_code)
    assert ["events.domain.deadlines", "events.domain.table", "events.domain.deadlines"] in cycles
    report = " ".join(lint_imports(copy_of_code).stdout.split())
    assert "No import cycles between the modules or subpackages of one package BROKEN" in report
