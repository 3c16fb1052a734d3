"""The report's PNG figures (matplotlib, imported lazily with the Agg backend so no display is needed).

Each function takes the numbers computed in tables.py and writes one PNG; none reads run directories. Text is
drawn as written: names come from folders someone else made, and mathtext would parse a `$` in them.
"""

from __future__ import annotations

from pathlib import Path

from sebench.errors import SebenchError
from sebench.output_files import atomic_bytes

VERDICT_COLORS = {
    "correct": "#2e7d32",
    "wrong_answer": "#ef6c00",
    "runtime_error": "#c62828",
    "timeout": "#6a1b9a",
    "memory_limit": "#4a148c",
    "no_code": "#9e9e9e",
    "syntax_error": "#795548",
    "not_using_package": "#1565c0",
    "forbidden_import": "#00838f",
    "forbidden_access": "#004d40",
    "judge_error": "#000000",
}
SPLIT_COLORS = {"single_test": "#1f77b4", "multiple_test": "#ff7f0e", "train": "#7f7f7f"}


def _pyplot():
    try:
        import matplotlib
    except ImportError:
        raise SebenchError(
            "the report's plots need matplotlib: pip install 'sebench[report]' (or pass --no-plots)"
        ) from None
    matplotlib.use("Agg")
    matplotlib.rcParams.update({"text.parse_math": False, "text.usetex": False})  # a `$` in a name is a `$`
    import matplotlib.pyplot as plt

    return plt


def _label(row: dict, with_model: bool) -> str:
    return f"{row['model']}: {row['regime']}" if with_model else row["regime"]


def accuracy_by_regime(rows: list[dict], out: Path) -> Path:
    """Grouped bars: accuracy of each regime per split with 95% CI whiskers, one panel per prompt mode."""
    plt = _pyplot()
    modes = list(dict.fromkeys(r["mode"] for r in rows))
    with_model = len({r["model"] for r in rows}) > 1
    fig, axes = plt.subplots(1, len(modes), figsize=(max(5, 4.5 * len(modes)), 4), squeeze=False, sharey=True)
    for ax, mode in zip(axes[0], modes):
        subset = [r for r in rows if r["mode"] == mode]
        labels = list(dict.fromkeys(_label(r, with_model) for r in subset))
        splits = list(dict.fromkeys(r["split"] for r in subset))
        width = 0.8 / len(splits)
        for j, split in enumerate(splits):
            xs, ys, errs = [], [], [[], []]
            for r in subset:
                if r["split"] != split:
                    continue
                x = labels.index(_label(r, with_model)) + (j - (len(splits) - 1) / 2) * width
                xs.append(x)
                ys.append(r["accuracy"])
                errs[0].append(r["accuracy"] - r["ci95"][0])
                errs[1].append(r["ci95"][1] - r["accuracy"])
            ax.bar(xs, ys, width, yerr=errs, capsize=3, label=split, color=SPLIT_COLORS.get(split))
            for x, y in zip(xs, ys):
                ax.text(x, y + 0.01, f"{100 * y:.0f}", ha="center", va="bottom", fontsize=8)
        ax.set_xticks(range(len(labels)), labels, rotation=20, ha="right")
        ax.set_title(f"{mode}-book" if mode in ("closed", "open") else mode)
        ax.set_ylim(0, 1.05)
        ax.grid(axis="y", alpha=0.3)
    axes[0][0].set_ylabel("accuracy (share of samples correct)")
    legend = {}  # every split once, whichever panel shows it
    for ax in axes[0]:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            legend.setdefault(label, handle)
    axes[0][-1].legend(legend.values(), legend.keys(), title="split", fontsize=8)
    fig.suptitle("Accuracy by regime (95% CI clustered by task)")
    return _save(fig, out)


def verdict_breakdown(rows: list[dict], out: Path) -> Path:
    """Horizontal stacked bars: the share of each verdict for every row of the main table."""
    plt = _pyplot()
    with_model = len({r["model"] for r in rows}) > 1
    names = [n for n in VERDICT_COLORS if any(n in r["verdicts"] for r in rows)]
    names += sorted({n for r in rows for n in r["verdicts"]} - set(names))
    fig, ax = plt.subplots(figsize=(10, 0.4 * len(rows) + 1.4))
    labels = [f"{_label(r, with_model)} · {r['mode']} · {r['split']}" for r in rows]
    left = [0.0] * len(rows)
    for name in names:
        widths = [r["verdicts"].get(name, 0.0) for r in rows]
        ax.barh(range(len(rows)), widths, left=left, label=name, color=VERDICT_COLORS.get(name))
        left = [a + b for a, b in zip(left, widths)]
    ax.set_yticks(range(len(rows)), labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of samples")
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
    ax.set_title("Verdict breakdown")
    return _save(fig, out)


def loss_curves(curves: dict[str, list[tuple[float, float]]], out: Path) -> Path:
    """One line per (run, regime) training loss curve."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6, 4))
    for label, points in curves.items():
        ax.plot([p[0] for p in points], [p[1] for p in points], marker="." if len(points) < 40 else None, label=label)
    ax.set_xlabel("step")
    ax.set_ylabel("training loss")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    ax.set_title("Training loss")
    return _save(fig, out)


def function_heatmap(functions_table: dict, out: Path) -> Path:
    """Accuracy by function (rows) and regime (columns); blank where a regime has no sample."""
    plt = _pyplot()
    columns = functions_table["columns"]
    functions = functions_table["functions"]
    with_model = len({c["model"] for c in columns}) > 1
    grid = [
        [functions_table["accuracy"][c["key"]].get(fn, float("nan")) for c in columns] for fn in functions
    ]
    fig, ax = plt.subplots(figsize=(1.3 * len(columns) + 3, 0.28 * len(functions) + 1.5))
    image = ax.imshow(grid, vmin=0, vmax=1, cmap="viridis", aspect="auto")
    ax.set_xticks(range(len(columns)), [f"{c['model']}: {c['regime']}" if with_model else c["regime"] for c in columns],
                  rotation=20, ha="right")
    ax.set_yticks(range(len(functions)), functions, fontsize=7)
    if len(functions) * len(columns) <= 400:
        for i, row in enumerate(grid):
            for j, value in enumerate(row):
                if value == value:  # not NaN
                    ax.text(j, i, f"{100 * value:.0f}", ha="center", va="center", fontsize=6,
                            color="white" if value < 0.6 else "black")
    fig.colorbar(image, ax=ax, label="accuracy", fraction=0.05)
    ax.set_title(f"{functions_table['mode']}-book accuracy by function ({functions_table['split']})")
    return _save(fig, out)


def accuracy_matrices(tracks: list[dict], out: Path, split: str) -> Path:
    """One heatmap per track: accuracy by stage (rows) and library (columns), "accuracy % / n" in each cell."""
    plt = _pyplot()
    width = max(len(t["libraries"]) for t in tracks)
    height = max(len(t["rows"]) for t in tracks)
    columns = min(len(tracks), 3)
    lines = -(-len(tracks) // columns)
    fig, axes = plt.subplots(lines, columns, figsize=((1.1 * width + 1.4) * columns + 1, (0.5 * height + 1) * lines + 0.8),
                             squeeze=False, layout="constrained")
    for ax in axes.flat[len(tracks):]:
        ax.axis("off")
    for ax, track in zip(axes.flat, tracks):
        grid = [[float("nan") if a is None else a for a in row] for row in track["accuracy"]]
        image = ax.imshow(grid, vmin=0, vmax=1, cmap="viridis", aspect="auto")
        ax.set_xticks(range(len(track["libraries"])), track["libraries"])
        ax.set_yticks(range(len(track["rows"])), track["rows"], fontsize=8)
        for i, row in enumerate(grid):
            for j, value in enumerate(row):
                if value == value:  # not NaN
                    ax.text(j, i, f"{100 * value:.0f}\nn={track['n'][i][j]}", ha="center", va="center", fontsize=7,
                            color="white" if value < 0.6 else "black")
        ax.set_title(track["name"], fontsize=9)
    fig.colorbar(image, ax=axes.ravel().tolist(), label="accuracy", shrink=0.8)
    fig.suptitle(f"Closed-book accuracy on each library after each stage ({split})")
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return out


def _save(fig, out: Path) -> Path:
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    with atomic_bytes(out) as handle:  # a link left at `out` (a folder someone else made) is replaced, not followed
        fig.savefig(handle, format="png", dpi=110)
    import matplotlib.pyplot as plt

    plt.close(fig)
    return out
