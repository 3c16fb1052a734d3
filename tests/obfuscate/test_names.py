import builtins
import json
import keyword
from pathlib import Path

import numpy
import pytest

from sebench.errors import SebenchError
from sebench.obfuscate.names import banned_words, check_package_name, generate_names, names_from_official
from sebench.obfuscate.surface import data_text, load_surface


def _all_identifiers(n):
    short = [v.rsplit(".", 1)[1] for v in n.functions.values()]
    return [*short, n.package, n.linalg, n.array_type, n.slot.lstrip("_"), n.axis_error, n.linalg_error]


def test_surface_has_278_functions_31_in_linalg():
    surface = load_surface()
    assert len(surface) == 278
    assert sum(f.linalg for f in surface) == 31
    assert {"numpy.mean", "numpy.linalg.inv", "numpy.trapz", "numpy.cross", "numpy.linalg.cross"} <= {
        f.key for f in surface}


def test_same_seed_same_names():
    assert generate_names(3) == generate_names(3)


def test_different_seeds_differ_for_nearly_all_functions():
    a, b = generate_names(1).functions, generate_names(2).functions
    same = [k for k in a if a[k].rsplit(".", 1)[1] == b[k].rsplit(".", 1)[1]]
    assert len(same) <= 3
    assert generate_names(1).package != generate_names(2).package


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_names_are_unique_and_never_banned(seed):
    n = generate_names(seed)
    idents = _all_identifiers(n)
    assert len({i.lower() for i in idents}) == len(idents)
    banned = banned_words()
    numpy_names = {x.lower() for x in dir(numpy) + dir(numpy.linalg)}
    english = set(data_text("english_words.txt").split())
    for ident in idents:
        base = ident[:-5] if ident.endswith("Error") else ident
        low = base.lower()
        assert ident.isidentifier() and not keyword.iskeyword(ident)
        assert ident not in dir(builtins)
        assert low not in numpy_names and low not in english and low not in banned


def test_names_are_pronounceable_syllables():
    import re

    n = generate_names(0)
    for name in [v.rsplit(".", 1)[1] for v in n.functions.values()]:
        assert re.fullmatch(r"(?:(?:qu|[bcdfghjklmnprstvwxyz])[aeiou])+[bdfgklmnprstvxz]?", name), name


def test_package_name_option_and_validation():
    n = generate_names(0, package_name="kelvoro")
    assert n.package == "kelvoro" and all(v.startswith("kelvoro.") for v in n.functions.values())
    for bad in ("numpy", "os", "Bad-Name", "_x", "class", "sebench"):
        with pytest.raises(SebenchError):
            check_package_name(bad)


def test_banned_list_covers_keywords_builtins_numpy_and_words():
    banned = banned_words()
    assert {"lambda", "print", "mean", "linalg", "ndarray", "house", "tolist"} <= banned


OFFICIAL = Path(__file__).resolve().parents[3] / "shared/reference/official_api_doc.jsonl"


@pytest.mark.skipif(not OFFICIAL.is_file(), reason="shared/reference is not beside the repository")
def test_official_mapping_is_read_exactly():
    n = names_from_official(OFFICIAL)
    assert n.package == "zwc" and n.linalg == "rfx"
    assert n.constructor == "zwc.yitaf"
    assert n.functions["numpy.linalg.inv"] == "zwc.rfx.quvohe"
    assert n.functions["numpy.abs"] == "zwc.falekef"
    assert n.functions["numpy.cross"] != n.functions["numpy.linalg.cross"]
    assert len(n.functions) == 278


def _row(mapping, orig="abs", curr="falekef"):
    import json

    return json.dumps({"original_name": orig, "curr_name": curr, "func_mapping": json.dumps(mapping)})


def test_malformed_official_rows_name_file_line_and_field(tmp_path):
    path = tmp_path / "m.jsonl"
    path.write_text(_row({"np.abs": "zwc.falekef"}) + "\n" + '{"original_name": "x", "curr_name": 3}\n')
    with pytest.raises(SebenchError, match=r"m\.jsonl:2: field 'curr_name'"):
        names_from_official(path)
    path.write_text(_row({"np.abs": "zwc.falekef"}) + "\n" + _row({"np.abs": "zwc.other"}) + "\n")
    with pytest.raises(SebenchError, match=r"m\.jsonl:2: field 'func_mapping': 'np.abs' -> 'zwc.other' contradicts"):
        names_from_official(path)
    path.write_text('{"original_name": "abs", "curr_name": "x", "func_mapping": "{not json"}\n')
    with pytest.raises(SebenchError, match=r"m\.jsonl:1: field 'func_mapping': not valid JSON"):
        names_from_official(path)
    path.write_text(json.dumps({"original_name": "abs", "curr_name": "x", "func_mapping": "[" * 100_000}) + "\n")
    with pytest.raises(SebenchError, match=r"m\.jsonl:1: field 'func_mapping': JSON nested too deep"):
        names_from_official(path)
    path.write_text("[" * 100_000 + "\n")
    with pytest.raises(SebenchError, match=r"m\.jsonl:1: JSON nested too deep"):
        names_from_official(path)
    path.write_text(_row({"np.nosuch": "zwc.falekef"}) + "\n")
    with pytest.raises(SebenchError, match=r"m\.jsonl:1: field 'func_mapping': 'np.nosuch' is not a covered"):
        names_from_official(path)
    path.write_text(_row({"np.abs": "zwc.falekef"}) + "\n")
    with pytest.raises(SebenchError, match=r"m\.jsonl: field 'func_mapping': no row maps"):
        names_from_official(path)
