"""docs/architecture.md's graph of stages matches the imports in src/, and no stage uses another's private names."""

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src" / "sebench"
STAGES = ("builder", "obfuscate", "tasks", "rollout", "judge", "train", "export", "report", "experiment")


def _drawn_edges() -> set[tuple[str, str]]:
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    block = re.search(r"```mermaid\n(.*?)```", text, re.S)
    assert block, "docs/architecture.md has no mermaid graph"
    edges = set()
    for line in block.group(1).splitlines():
        if "-->" in line:
            source, targets = (part.strip() for part in line.split("-->"))
            edges |= {(source, target.strip()) for target in targets.split("&")}
    return edges


def _imports() -> list[tuple[str, str, list[str]]]:
    """(importing stage, imported module, imported names) for every `sebench.*` import in a stage."""
    found = []
    for path in sorted(SRC.rglob("*.py")):
        stage = path.relative_to(SRC).parts[0]
        if stage not in STAGES:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("sebench."):
                found.append((stage, node.module, [a.name for a in node.names]))
            elif isinstance(node, ast.Import):
                found += [(stage, a.name, []) for a in node.names if a.name.startswith("sebench.")]
    return found


def test_the_drawn_graph_is_the_import_graph():
    actual = {(stage, module.split(".")[1]) for stage, module, _ in _imports()
              if module.split(".")[1] in STAGES and module.split(".")[1] != stage}
    drawn = _drawn_edges()
    assert {s for edge in drawn for s in edge} <= set(STAGES)
    assert actual - drawn == set(), "imports between stages missing from docs/architecture.md"
    assert drawn - actual == set(), "arrows in docs/architecture.md that no import backs"


def test_no_stage_imports_another_stage_private_names():
    leaks = [(stage, module, name) for stage, module, names in _imports() for name in names
             if name.startswith("_") and module.split(".")[1] != stage]
    assert leaks == []


def test_shared_modules_import_no_stage():
    shared = [p for p in SRC.glob("*.py") if p.stem not in ("cli", "__init__")]
    for path in shared:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("sebench."):
                assert node.module.split(".")[1] not in STAGES, f"{path.name} imports {node.module}"
