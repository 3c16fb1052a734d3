"""The stages form a one-way chain that meets only at front doors, as docs/architecture.md draws it.

Checked on the code (every import, at module level or inside a function): the graph of imports between
stages is the drawn one and has no cycle, no module cycle exists, and a stage imports another stage only
through the names that stage's `__init__.py` exports (`__all__`): never one of its modules, never a name it
does not export. The last test plants a back door and cycles in a small tree and sees the checks fail.
"""

import ast
import importlib
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src" / "sebench"


# ---- the checker (it takes any package folder, so that a planted tree can be checked too) ----------------


def stages(package_dir: Path) -> list[str]:
    """The stage packages: the sub-folders with an `__init__.py`."""
    return sorted(p.name for p in package_dir.iterdir() if (p / "__init__.py").is_file())


def exported(package_dir: Path, stage: str) -> set[str]:
    """The names in the literal `__all__` of a stage's `__init__.py`."""
    for node in ast.parse((package_dir / stage / "__init__.py").read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            return set(ast.literal_eval(node.value))
    return set()


def module_name(package_dir: Path, path: Path) -> str:
    parts = [package_dir.name, *path.relative_to(package_dir).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(package_dir: Path) -> list[tuple[str, str, list[str], str]]:
    """(importing module, imported module, imported names, "file:line") for every import of the package."""
    top = package_dir.name
    found = []
    for path in sorted(package_dir.rglob("*.py")):
        importer = module_name(package_dir, path)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            where = f"{path.relative_to(package_dir)}:{getattr(node, 'lineno', 0)}"
            if isinstance(node, ast.ImportFrom):
                module = node.module or ""
                if node.level:  # relative: from the importing module's package
                    base = importer.split(".")[: len(importer.split(".")) - node.level + (path.name == "__init__.py")]
                    module = ".".join(base + ([module] if module else []))
                if module == top or module.startswith(top + "."):
                    found.append((importer, module, [a.name for a in node.names], where))
            elif isinstance(node, ast.Import):
                found += [(importer, a.name, [], where) for a in node.names if a.name.startswith(top + ".")]
    return found


def stage_of(package_dir: Path, module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in stages(package_dir) else None


def back_doors(package_dir: Path) -> list[str]:
    """Imports of another stage that bypass its front door: a module path under it, the stage package itself
    as a value, or a name its `__all__` does not export."""
    top, found = package_dir.name, []
    for importer, module, names, where in imports(package_dir):
        source = stage_of(package_dir, importer)
        if source is None:
            continue  # shared modules import no stage (checked below); the top-level CLI registers them all
        if module == top:  # `from sebench import judge`: a stage as a value, its modules one attribute away
            found += [f"{where}: from {top} import {name}" for name in names
                      if name in stages(package_dir) and name != source]
            continue
        target = stage_of(package_dir, module)
        if target is None or target == source:
            continue
        if module != f"{top}.{target}" or not names:
            found.append(f"{where}: {module} is a module of stage {target}; import from {top}.{target}")
            continue
        found += [f"{where}: {target} does not export {name}" for name in names
                  if name not in exported(package_dir, target)]
    return found


def stage_graph(package_dir: Path) -> set[tuple[str, str]]:
    """(importing stage, imported stage) for every import between two stages."""
    edges = set()
    for importer, module, names, _ in imports(package_dir):
        source = stage_of(package_dir, importer)
        targets = {stage_of(package_dir, module)} | ({n for n in names if n in stages(package_dir)}
                                                      if module == package_dir.name else set())
        edges |= {(source, t) for t in targets if source and t and t != source}
    return edges


def module_graph(package_dir: Path) -> set[tuple[str, str]]:
    """(importing module, imported module) between the package's modules (`from a import b`, b a module: a.b)."""
    known = {module_name(package_dir, p) for p in package_dir.rglob("*.py")}
    edges = set()
    for importer, module, names, _ in imports(package_dir):
        targets = {f"{module}.{n}" for n in names if f"{module}.{n}" in known} or {module}
        edges |= {(importer, t) for t in targets if t in known and t != importer}
    return edges


def cycles(edges: set[tuple[str, str]]) -> list[list[str]]:
    """The strongly connected parts of more than one node (Tarjan), each sorted."""
    graph: dict[str, list[str]] = {}
    for a, b in edges:
        graph.setdefault(a, []).append(b)
        graph.setdefault(b, [])
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph[node]:
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            part = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                part.append(member)
                if member == node:
                    break
            if len(part) > 1:
                found.append(sorted(part))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


# ---- the project ------------------------------------------------------------------------------------------


def drawn_edges() -> set[tuple[str, str]]:
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    block = re.search(r"```mermaid\n(.*?)```", text, re.S)
    assert block, "docs/architecture.md has no mermaid graph"
    edges = set()
    for line in block.group(1).splitlines():
        if "-->" in line:
            source, targets = (part.strip() for part in line.split("-->"))
            edges |= {(source, target.strip()) for target in targets.split("&")}
    return edges


def test_the_drawn_graph_is_the_import_graph_and_has_no_cycle():
    actual, drawn = stage_graph(SRC), drawn_edges()
    assert {s for edge in drawn for s in edge} <= set(stages(SRC))
    assert actual - drawn == set(), "imports between stages missing from docs/architecture.md"
    assert drawn - actual == set(), "arrows in docs/architecture.md that no import backs"
    assert cycles(drawn) == []


def test_no_cycle_between_stages_or_modules():
    assert cycles(stage_graph(SRC)) == []
    assert cycles(module_graph(SRC)) == []


def test_stages_meet_only_at_front_doors():
    assert back_doors(SRC) == []


def test_every_exported_name_resolves():
    for stage in stages(SRC):
        package = importlib.import_module(f"sebench.{stage}")
        assert sorted(package.__all__) == sorted(exported(SRC, stage))
        for name in package.__all__:
            assert getattr(package, name) is not None, f"sebench.{stage}.{name}"


def test_shared_modules_import_no_stage():
    shared = [p for p in SRC.glob("*.py") if p.stem not in ("cli", "__init__")]
    for path in shared:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("sebench."):
                assert node.module.split(".")[1] not in stages(SRC), f"{path.name} imports {node.module}"


def test_the_checks_fail_on_a_planted_back_door_and_cycles(tmp_path):
    pkg = tmp_path / "pkg"
    files = {
        "__init__.py": "",
        "shared.py": "",
        "low/__init__.py": '__all__ = ["f"]\n',
        "low/impl.py": "from pkg import shared\n\n\ndef f():\n    pass\n",
        "high/__init__.py": '__all__ = ["g"]\n',
        "high/impl.py": "from pkg.low import f\n\n\ndef g():\n    return f\n",
    }
    for rel, text in files.items():
        (pkg / rel).parent.mkdir(parents=True, exist_ok=True)
        (pkg / rel).write_text(text)
    assert (back_doors(pkg), cycles(stage_graph(pkg)), cycles(module_graph(pkg))) == ([], [], [])
    # a back door (a module under `high`, and a name `high` does not export) that also closes a stage cycle
    (pkg / "low/impl.py").write_text("from pkg.high.impl import g\nfrom pkg.high import h\n")
    # and a module cycle inside a stage
    (pkg / "high/impl.py").write_text("from pkg.high import other\n")
    (pkg / "high/other.py").write_text("from pkg.high.impl import g\n")
    assert back_doors(pkg) == ["low/impl.py:1: pkg.high.impl is a module of stage high; import from pkg.high",
                               "low/impl.py:2: high does not export h"]
    assert cycles(stage_graph(pkg)) == [] and stage_graph(pkg) == {("low", "high")}
    (pkg / "high/other.py").write_text("from pkg.low import f\n")
    assert cycles(stage_graph(pkg)) == [["high", "low"]]
    (pkg / "high/other.py").write_text("from pkg.high.impl import g\n")
    assert cycles(module_graph(pkg)) == [["pkg.high.impl", "pkg.high.other"]]
