import pytest

from sebench.judge.static import Rules, check_code

from .conftest import MAPPING

RULES = Rules.from_mapping(MAPPING)


def verdict(code, selected=("zwc.kocito",)):
    return check_code(code, "solve", RULES, selected).verdict


@pytest.mark.parametrize("code", [
    "import zwc\ndef solve(a):\n    return zwc.kocito(a)",
    "import zwc as z\ndef solve(a):\n    m = z.kocito(a)\n    return round(m, 2)",
    "from zwc import kocito\ndef solve(a):\n    return kocito(a)",
    "from zwc.rfx import quvohe\nimport zwc\ndef solve(a):\n    return quvohe(a)",
    "import zwc.rfx\ndef solve(a):\n    return zwc.rfx.quvohe(a)",
    "from zwc import rfx\ndef solve(a):\n    return rfx.quvohe(a)",
    "import zwc\ndef helper(x):\n    return zwc.sumo(x)\ndef solve(a):\n    return helper(a) + 1",
    "import zwc\ndef solve(a):\n    out = []\n    for row in a:\n        out.append(zwc.kocito(row))\n    return out",
    "import zwc\ndef solve(a):\n    return [zwc.kocito(r) for r in a]",
    "import zwc\ndef solve(a):\n    if zwc.kocito(a) > 0:\n        return 1\n    return 0",
    "import zwc\ndef solve(a):\n    total = 0\n    for v in a:\n        total += zwc.sumo(v)\n    return total",
    "import zwc\ndef solve(a):\n    arr = zwc.yitaf(a)\n    return zwc.sumo(arr, axis=0)",
    "import zwc, math\nfrom collections import Counter\ndef solve(a):\n    return math.floor(zwc.kocito(a))",
    "from __future__ import annotations\nimport zwc\ndef solve(a):\n    return zwc.kocito(a)",
    "import zwc\nsolve = lambda a: zwc.kocito(a)",
    "import zwc\nif __name__ == '__main__':\n    print(1)\ndef solve(a):\n    return zwc.kocito(a)",
    "import zwc\ndef solve(a):\n    for _ in range(2):\n        pass\n    return zwc.kocito(a)",
    "import zwc\ndef solve(input):\n    return zwc.kocito(input)",
    "from zwc import *\ndef solve(a):\n    return kocito(a)",
    "import zwc\ndef solve(a):\n    if (m := zwc.kocito(a)) > 1:\n        return m\n    return 0",
    "import zwc\ndef solve(a):\n    out = zwc.yitaf(a)\n    zwc.rexa(out, [0], [9])\n    return out",
    'import zwc\ndef solve(a):\n    """Like x.__len__ or obj._private, see __init__."""\n    return zwc.kocito(a)',
    "import zwc\ndef solve(a):\n    out = [0.0]\n    zwc.dabel(a, a, out=out)\n    return out",
])
def test_allowed(code):
    assert check_code(code, "solve", RULES, ("zwc.kocito",)).verdict is None, check_code(code, "solve", RULES)


@pytest.mark.parametrize("code,expected", [
    ("def solve(a):\n  return (", "syntax_error"),
    ("import numpy\ndef solve(a):\n    return 1", "forbidden_import"),
    ("import numpy.linalg as la\nimport zwc\ndef solve(a):\n    return zwc.kocito(a)", "forbidden_import"),
    ("from numpy import mean\nimport zwc\ndef solve(a):\n    return zwc.kocito(a)", "forbidden_import"),
    ("import os\nimport zwc\ndef solve(a):\n    return zwc.kocito(a)", "forbidden_import"),
    ("import sys\nimport zwc\ndef solve(a):\n    return zwc.kocito(a)", "forbidden_import"),
    ("import scipy\nimport zwc\ndef solve(a):\n    return zwc.kocito(a)", "forbidden_import"),
    ("import statistics\nimport zwc\ndef solve(a):\n    return zwc.kocito(a)", "forbidden_import"),
    ("from . import x\nimport zwc\ndef solve(a):\n    return zwc.kocito(a)", "forbidden_import"),
    ("import zwc\ndef solve(a):\n    return __import__('numpy').mean(a)", "forbidden_access"),
    ("import zwc\ndef solve(a):\n    return zwc._np.mean(a)", "forbidden_access"),
    ("from zwc import _np\ndef solve(a):\n    return _np.mean(a)", "forbidden_access"),
    ("import zwc._core\ndef solve(a):\n    return 1", "forbidden_access"),
    ("import zwc\ndef solve(a):\n    return zwc.np.mean(a)", "forbidden_access"),
    ("import zwc\ndef solve(a):\n    return zwc.kocito.__globals__", "forbidden_access"),
    ("import zwc\ndef solve(a):\n    return getattr(zwc, 'kocito')(a)", "forbidden_access"),
    ("import zwc\ndef solve(a):\n    return eval('zwc.kocito(a)')", "forbidden_access"),
    ("import zwc\ndef solve(a):\n    exec('import numpy')\n    return zwc.kocito(a)", "forbidden_access"),
    ("import zwc\ndef solve(a):\n    return ().__class__.__bases__[0].__subclasses__()", "forbidden_access"),
    ("import zwc\ndef solve(a):\n    return open('/etc/passwd').read()", "forbidden_access"),
    ("import zwc\ndef solve(a):\n    return vars(zwc)", "forbidden_access"),
    ("import zwc\nm = zwc\ndef solve(a):\n    return m.kocito(a)", "forbidden_access"),
    ("from operator import attrgetter\nimport zwc\ndef solve(a):\n    return attrgetter('np')(zwc)", "forbidden_access"),
    ("import zwc\ndef solve(a):\n    return '{0.__class__}'.format(a)", "forbidden_access"),
    ("import zwc\ndef solve(a):\n    return '{0._a}'.format(zwc.yitaf(a))", "forbidden_access"),
    ("import zwc\ndef solve(a):\n    return __builtins__", "forbidden_access"),
    ("import zwc\ndef solve(a):\n    return zwc.yitaf(a)._a.mean()", "forbidden_access"),
    ("def solve(a):\n    return sum(a) / len(a)", "not_using_package"),
    ("import zwc\ndef solve(a):\n    return sum(a) / len(a)", "not_using_package"),
    ("import zwc\ndef solve(a):\n    zwc.kocito(a)\n    return sum(a) / len(a)", "not_using_package"),
    ("import zwc\ndef solve(a):\n    return zwc.yitaf(a)", "not_using_package"),
    ("import zwc\nx = zwc.kocito([1])\ndef solve(a):\n    return sum(a)", "not_using_package"),
    ("import zwc\ndef other(a):\n    return zwc.kocito(a)", "not_using_package"),
])
def test_rejected(code, expected):
    assert verdict(code) == expected


def test_constructor_counts_when_it_is_the_task():
    code = "import zwc\ndef solve(a):\n    return zwc.yitaf(a)"
    assert verdict(code, selected=("zwc.yitaf",)) is None
    result = check_code(code, "solve", RULES, ("zwc.kocito",))
    assert "constructor" in result.message


def test_package_calls_names_every_call_into_the_package_public_or_not():
    from sebench.judge.static import package_calls

    code = ("import zwc\nimport zwc.rfx as r\nfrom zwc import kocito as k\nimport math\n"
            "def solve(x):\n    y = zwc.nosuch(x)\n    return r.quvohe(k(x)) + math.sqrt(2) + zwc.array(y).sum()\n")
    assert package_calls(code, "zwc") == ["zwc.array", "zwc.kocito", "zwc.nosuch", "zwc.rfx.quvohe"]
    assert package_calls("def solve(:", "zwc") == [] and package_calls("import numpy as np\nnp.mean(1)", "zwc") == []
