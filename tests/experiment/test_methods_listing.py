"""`sebench methods` lists every name in one table: each row's origin starts in the same column, whatever
the length of the longest name, and every name the study accepts is listed once."""

import contextlib
import io

from sebench.cli import main
from sebench.experiment.methods_cli import rows


def test_every_row_of_the_listing_has_its_origin_in_one_column():
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        assert main(["methods"]) == 0
    lines = [line for line in printed.getvalue().splitlines() if line.strip()]
    expected = rows()
    assert [line.split()[0] for line in lines] == [name for name, _, _ in expected]
    columns = {line.index(f" {origin} ", len(name)) for line, (name, origin, _) in zip(lines, expected)}
    assert len(columns) == 1, columns
    longest = max(len(name) for name, _, _ in expected)
    assert columns.pop() > longest  # the longest name keeps a space before its origin


def _shown(name: str, capsys) -> list[str]:
    assert main(["methods", name]) == 0, capsys.readouterr().err
    return capsys.readouterr().out.splitlines()


def test_every_listed_name_is_shown_alone_and_a_regimes_settings_flag_sets_its_training(capsys):
    """`sebench methods NAME` takes every name the listing prints; for a regime or a variant it prints how its
    training settings are given, and that `--set` sets them in a study that runs it."""
    from sebench.experiment.config import PRESETS, parse_setting, resolve

    for name, origin, _ in rows():
        lines = _shown(name, capsys)
        assert lines[0].split("\t")[:2] == [name, origin], lines
        flag = next((line for line in lines if line.startswith("  settings: ")), None)
        if flag is None:
            continue
        setting = flag.split("(--set ", 1)[1].removesuffix(")").strip("'")
        setting = setting.replace("KEY=VALUE", "epochs=2").replace('"KEY": "VALUE"', '"epochs": 2')
        preset = next((p for p, values in PRESETS.items() if name in values.get("variants", {})), "quick")
        key, value = parse_setting(setting)
        cfg = resolve(preset, {"regimes": [name], key: value})
        assert cfg.train_settings(name)["epochs"] == 2, (name, setting)


def test_arguments_given_to_a_regime_name_it_and_say_where_its_settings_go(tmp_path, capsys):
    argv = ["run", "--out", str(tmp_path / "run"), "--preset", "quick", "--regimes", "closed-sft",
            "-M", "closed-sft.epochs=2", "--show-config"]
    assert main(argv) == 2
    error = capsys.readouterr().err.strip()
    assert len(error.splitlines()) == 1 and "--set train_regimes.closed-sft.KEY=VALUE" in error, error
    assert not (tmp_path / "run").exists()
