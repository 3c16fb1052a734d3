"""The measures of lifelong internalization, in one place: the accuracy matrix, transfer, forgetting, mix-ups.

R[s][j] is the closed-book accuracy on library j's test tasks after stage s (s = 0: the base, before any
stage; s = i: after learning library i), the share of samples judged correct (sebench.metrics), seeds
pooled as samples. For k libraries learned in order:

- average accuracy ACC = 1/k sum_j R[k][j]                          (Lopez-Paz & Ranzato 2017, GEM)
- backward transfer BWT = 1/(k-1) sum_{j<k} (R[k][j] - R[j][j])     (GEM): below 0 when later libraries
  cost earlier ones accuracy
- forward transfer FWT = 1/(k-1) sum_{j>=2} (R[j-1][j] - b_j)       (GEM), b_j = R[0][j]: the base's
  accuracy on library j (GEM's b_j is a randomly initialised model's; here the study's own base)
- forgetting f_j = max_{l in 1..k-1} R[l][j] - R[k][j] for j < k    (Chaudhry et al. 2018, RWalk), and its
  mean over j < k: the best accuracy a library had before the last stage minus its final accuracy

A value needing a cell without samples is None. The at-once reference has one row after the base; its
ACC is the mean of that row.

Mix-up: an answer to library j mixes up library i when its code holds an identifier of library i's public
API that library j's API does not also hold; counted apart, the answers that name library i's package. A library's identifiers are its package name, its linalg
submodule's and array type's names (manifest.json) and every component of its functions' public names
(api_doc.jsonl), never NumPy's names; generated names are no Python or English word (obfuscate/names.py),
so an identifier of another library in an answer is that library's, comments and strings included.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from sebench.instance import Instance
from sebench.metrics import verdicts_stats
from sebench.records import Verdict

IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class Matrix:
    """Accuracy by row (the base, then each stage's model) and library: correct and n samples per cell."""

    rows: tuple[str, ...]
    libraries: tuple[str, ...]
    correct: tuple[tuple[int, ...], ...]
    n: tuple[tuple[int, ...], ...]

    def accuracy(self, row: int, library: int) -> float | None:
        """R[row][library + 1] (0-based library index); None when the cell has no samples."""
        n = self.n[row][library]
        return self.correct[row][library] / n if n else None

    def values(self) -> list[list[float | None]]:
        return [[self.accuracy(s, j) for j in range(len(self.libraries))] for s in range(len(self.rows))]


def library_column(library: dict) -> str:
    """A library's name in tables: "L2", or "L2 (more-itertools)" for a package of another library than NumPy
    (an entry of lifelong.json's "libraries")."""
    return f"L{library['position']}" + (f" ({library['library']})" if library.get("library") else "")


def accuracy_matrix(rows: Iterable[str], libraries: Iterable[str],
                    verdicts: Mapping[tuple[str, str], Iterable[Verdict]]) -> Matrix:
    """The matrix of `verdicts[(row, library)]` (missing cells have no samples)."""
    rows, libraries = tuple(rows), tuple(libraries)
    stats = [[verdicts_stats(verdicts.get((row, lib), ())) for lib in libraries] for row in rows]
    return Matrix(rows, libraries, tuple(tuple(s["correct"] for s in line) for line in stats),
                  tuple(tuple(s["n"] for s in line) for line in stats))


def _mean(values: list[float | None]) -> float | None:
    return None if not values or any(v is None for v in values) else sum(values) / len(values)


def _diff(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else a - b


def _sequential(m: Matrix) -> int:
    """k, for a matrix with the base row and one row per library learned in order."""
    if len(m.rows) != len(m.libraries) + 1:
        raise ValueError(f"a sequential matrix has k + 1 rows for k libraries (got {len(m.rows)} and {len(m.libraries)})")
    return len(m.libraries)


def average_accuracy(m: Matrix) -> float | None:
    """ACC: the mean accuracy over the libraries in the last row."""
    return _mean([m.accuracy(len(m.rows) - 1, j) for j in range(len(m.libraries))])


def backward_transfer(m: Matrix) -> float | None:
    """BWT (GEM): the mean over j < k of R[k][j] - R[j][j]."""
    k = _sequential(m)
    return _mean([_diff(m.accuracy(k, j - 1), m.accuracy(j, j - 1)) for j in range(1, k)])


def forward_transfer(m: Matrix) -> float | None:
    """FWT (GEM): the mean over j >= 2 of R[j-1][j] - R[0][j], R[0] being the base's accuracies."""
    k = _sequential(m)
    return _mean([_diff(m.accuracy(j - 1, j - 1), m.accuracy(0, j - 1)) for j in range(2, k + 1)])


def forgetting(m: Matrix) -> list[float | None]:
    """f_j for j < k (Chaudhry et al. 2018): max over stages l < k of R[l][j], minus R[k][j]."""
    k = _sequential(m)
    out = []
    for j in range(1, k):
        best = [m.accuracy(stage, j - 1) for stage in range(1, k)]
        out.append(None if any(b is None for b in best) else _diff(max(best), m.accuracy(k, j - 1)))
    return out


def measures(m: Matrix, sequential: bool = True) -> dict:
    """ACC, and for a sequential matrix BWT, FWT, forgetting per library and its mean."""
    if not sequential:
        return {"average_accuracy": average_accuracy(m)}
    forgot = forgetting(m)
    return {"average_accuracy": average_accuracy(m), "backward_transfer": backward_transfer(m),
            "forward_transfer": forward_transfer(m), "forgetting": forgot, "mean_forgetting": _mean(forgot)}


# ---- mix-ups ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LibraryApi:
    """A library's package name and every identifier of its public API (the package's included)."""

    package: str
    identifiers: frozenset[str]


def api_identifiers(package: str, names: Iterable[str], extra: Iterable[str | None] = ()) -> LibraryApi:
    """The API of a library: the package, `extra` names and every dotted component of its functions' public
    `names`."""
    ids = {package, *(e for e in extra if e)}
    for name in names:
        ids.update(name.split("."))
    return LibraryApi(package, frozenset(ids))


def library_api(data: Path) -> LibraryApi:
    """`api_identifiers` of the instance (or studied subset) at `data`, from its manifest and api_doc.jsonl."""
    inst = Instance.open(data)
    manifest = inst.manifest()
    return api_identifiers(inst.package_name, (d.name for d in inst.api_docs()),
                           (manifest.get("linalg"), manifest.get("array_type")))


def _used(code: str | None, own: LibraryApi) -> set[str]:
    return set(IDENTIFIER.findall(code)) - own.identifiers if code else set()


def mixed_up(code: str | None, own: LibraryApi, others: Mapping[str, LibraryApi]) -> list[str]:
    """The libraries of `others` whose identifiers (other than those `own` shares) the code uses."""
    used = _used(code, own)
    return [name for name, api in others.items() if used & api.identifiers]


def mixup_counts(codes: Iterable[str | None], own: LibraryApi, others: Mapping[str, LibraryApi]) -> dict:
    """{"n": answers, "any": answers mixing up some other library, "package": those naming another library's
    package, "by": {library: answers mixing it up}}."""
    counts = {"n": 0, "any": 0, "package": 0, "by": {name: 0 for name in others}}
    for code in codes:
        hits = mixed_up(code, own, others)
        counts["n"] += 1
        counts["any"] += bool(hits)
        counts["package"] += any(others[name].package in _used(code, own) for name in hits)
        for name in hits:
            counts["by"][name] += 1
    return counts


def add_counts(a: dict, b: dict) -> dict:
    """Two `mixup_counts` pooled (runs of several seeds)."""
    by = {name: a["by"].get(name, 0) + b["by"].get(name, 0) for name in {**a["by"], **b["by"]}}
    return {"n": a["n"] + b["n"], "any": a["any"] + b["any"], "package": a["package"] + b["package"], "by": by}
