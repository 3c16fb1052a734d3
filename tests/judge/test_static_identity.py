"""sebench's protocol, one step stricter: identity-like package functions alone are not using the package.

Hostile answers return a lookup table of outputs passed through a function whose result holds its
argument's values unchanged (copy, asarray, astype, ...); they must be `not_using_package`, while
answers whose value really comes from a package computation stay allowed.
"""

import pytest

from sebench.judge.static import IDENTITY_LIKE, Rules, check_code

MAPPING = {
    "package": "zwc", "linalg": "rfx", "array_type": "Qoravet", "constructor": "zwc.yitaf",
    "functions": {"numpy.array": "zwc.yitaf", "numpy.mean": "zwc.kocito", "numpy.sum": "zwc.sumo",
                  "numpy.copy": "zwc.lipo", "numpy.asarray": "zwc.tesa", "numpy.astype": "zwc.garu",
                  "numpy.copyto": "zwc.mobe", "numpy.positive": "zwc.posa", "numpy.atleast_2d": "zwc.duve",
                  "numpy.ascontiguousarray": "zwc.keto", "numpy.put": "zwc.rexa",
                  "numpy.linalg.inv": "zwc.rfx.quvohe"},
}
RULES = Rules.from_mapping(MAPPING)
TABLE = "import zwc\nTABLE = {(1, 2): [3.0], (4,): [5.0]}\n"


def verdict(code, selected=("zwc.kocito",)):
    return check_code(code, "solve", RULES, selected)


@pytest.mark.parametrize("body", [
    "def solve(a):\n    return zwc.lipo(TABLE[tuple(a)])",
    "def solve(a):\n    return zwc.tesa(TABLE.get(tuple(a), [0]))",
    "def solve(a):\n    return zwc.lipo(zwc.tesa(zwc.yitaf(TABLE[tuple(a)])))",
    "def solve(a):\n    return zwc.garu(zwc.yitaf(TABLE[tuple(a)]), float)",
    "def solve(a):\n    return zwc.posa(TABLE[tuple(a)])",
    "def solve(a):\n    return zwc.duve(TABLE[tuple(a)])",
    "def solve(a):\n    return zwc.keto(TABLE[tuple(a)])",
    "from zwc import lipo as compute\ndef solve(a):\n    return compute(TABLE[tuple(a)])",
    "def helper(x):\n    return zwc.lipo(x)\ndef solve(a):\n    return helper(TABLE[tuple(a)])",
    "def solve(a):\n    out = [0.0]\n    zwc.mobe(out, TABLE[tuple(a)])\n    return out",
    "def solve(a):\n    out = [0.0]\n    zwc.posa(TABLE[tuple(a)], out=out)\n    return out",
    "def solve(a):\n    res = []\n    for v in zwc.duve(TABLE[tuple(a)]):\n        res.append(v)\n    return res",
    "def solve(a):\n    if zwc.lipo(a) is not None:\n        return TABLE[tuple(a)]\n    return None",
    "def solve(a):\n    if (m := zwc.tesa(TABLE[tuple(a)])) is not None:\n        return m\n    return 0",
    "solve = lambda a: zwc.lipo(TABLE[tuple(a)])",
    "def solve(a):\n    x = zwc.tesa(a)\n    return [TABLE[tuple(a)], x][0]",
])
def test_a_table_through_identity_like_functions_is_not_using_the_package(body):
    result = verdict(TABLE + body)
    assert result.verdict == "not_using_package", body
    assert "identity-like" in result.message


@pytest.mark.parametrize("body", [
    "def solve(a):\n    return zwc.lipo(zwc.kocito(a))",
    "def solve(a):\n    b = zwc.tesa(a)\n    return zwc.kocito(b)",
    "def solve(a):\n    return zwc.garu(zwc.sumo(zwc.yitaf(a)), float)",
    "def solve(a):\n    out = [0.0]\n    zwc.mobe(out, zwc.kocito(a))\n    return out",
    "def solve(a):\n    out = zwc.lipo(a)\n    zwc.rexa(out, [0], [9])\n    return out",
    "def solve(a):\n    return zwc.rfx.quvohe(zwc.duve(a))",
])
def test_identity_like_functions_beside_a_real_call_are_fine(body):
    assert verdict(TABLE + body).verdict is None, body


def test_they_count_when_the_task_is_about_one_of_them():
    code = TABLE + "def solve(a):\n    return zwc.lipo(a)"
    assert verdict(code, selected=("zwc.lipo",)).verdict is None
    assert verdict(code, selected=("zwc.tesa",)).verdict is None  # any as-array function solves an as-array task
    assert verdict(code, selected=("zwc.kocito",)).verdict == "not_using_package"
    assert verdict(TABLE + "def solve(a):\n    return zwc.yitaf(a)", selected=("zwc.garu",)).verdict is None


def test_every_identity_like_function_is_in_the_numpy_surface():
    from sebench.obfuscate.surface import load_surface

    keys = {fn.key for fn in load_surface()}
    assert set(IDENTITY_LIKE) <= keys
    assert {"zwc.lipo", "zwc.tesa", "zwc.garu", "zwc.mobe", "zwc.posa", "zwc.duve", "zwc.keto", "zwc.yitaf",
            "zwc.Qoravet"} == RULES.identity_like
