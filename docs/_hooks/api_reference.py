"""mkdocs hook: expands `<!-- front doors -->` in api.md into one mkdocstrings block per exported name.

Each stage package of sebench declares its public names once, in its `__init__.py`:
`__all__` and `front_door(__name__, __all__, {module: names})`. This hook reads that mapping with `ast`
(nothing is imported), so the reference lists exactly what each stage exports, and a stage added later
(or a name added to a front door) appears without editing the page.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "sebench"
MARKER = "<!-- front doors -->"
# the order of the chain, bottom to top (docs/architecture.md); later stages are appended in name order
ORDER = ["obfuscate", "tasks", "builder", "rollout", "judge", "train", "export", "report", "experiment",
         "methods", "integrations"]


def front_door(package: Path) -> tuple[str | None, dict[str, list[str]]]:
    """The package's docstring and its {module: exported names}, read from its __init__.py."""
    tree = ast.parse((package / "__init__.py").read_text(encoding="utf-8"))
    homes: dict[str, list[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "front_door" and len(node.args) == 3:
            mapping = node.args[2]
            if isinstance(mapping, ast.Dict):
                for key, value in zip(mapping.keys, mapping.values):
                    homes[ast.literal_eval(key)] = list(ast.literal_eval(value))
    return ast.get_docstring(tree), homes


# One exported name: its own heading (h3, the short name, in the table of contents), its signature (a class's
# with its `__init__` merged in, so a dataclass shows its fields and defaults: mkdocs.yml's handler options)
# and its docstring; its documented members below it at h4.
NAME_OPTIONS = """    options:
      heading_level: 3
      show_root_heading: true
      show_root_toc_entry: true
      show_root_full_path: false
      show_signature: true
"""


def identifier(stage: str, module: str, name: str) -> str:
    """Where `name`, exported by `sebench.<stage>`, is defined: the mkdocstrings identifier and the heading's id."""
    return f"sebench.{stage}.{module}.{name}"


def exported() -> list[tuple[str, str, str]]:
    """Every (stage, module, name) that a stage's front door exports, in the page's order."""
    return [(stage, module, name) for stage in stages() for module, names in front_door(SRC / stage)[1].items()
            for name in sorted(names)]


def stages() -> list[str]:
    found = sorted(p.name for p in SRC.iterdir() if (p / "__init__.py").is_file() and front_door(p)[1])
    return [s for s in ORDER if s in found] + [s for s in found if s not in ORDER]


def reference() -> str:
    parts = []
    for stage in stages():
        _, homes = front_door(SRC / stage)
        parts.append(f"## sebench.{stage}\n\n::: sebench.{stage}\n    options:\n      members: false\n"
                     "      show_root_heading: false\n      show_root_toc_entry: false\n")
        for module, names in homes.items():
            for name in sorted(names):
                parts.append(f"::: {identifier(stage, module, name)}\n{NAME_OPTIONS}")
    return "\n".join(parts)


def on_page_markdown(markdown: str, page, config, files) -> str:
    if MARKER not in markdown:
        return markdown
    return markdown.replace(MARKER, reference())
