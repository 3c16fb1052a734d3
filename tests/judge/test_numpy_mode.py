"""The numpy mode's judge (specificity): the same static rules with real NumPy as the library. A NumPy answer
is correct there and forbidden under the package's rules; a package answer is forbidden there."""

from __future__ import annotations

import pytest
from numpy_answers import numpy_solution

from sebench.errors import SebenchError
from sebench.instance import Instance
from sebench.judge import Judge


def _fence(code: str) -> str:
    return "```python\n" + code + "\n```"


@pytest.fixture(scope="module")
def cases(built_instance):
    instance = Instance.open(built_instance)
    found = [(t, numpy_solution(t, instance)) for t in instance.tasks("single_test") if t.is_valid]
    found = [(t, code) for t, code in found if code][:6]
    assert found, "no single_test task without package values in its inputs"
    return found


def test_numpy_answer_is_correct_in_numpy_mode_and_forbidden_under_the_package(built_instance, cases):
    with Judge(built_instance, workers=2, library="numpy") as numpy_judge, Judge(built_instance, workers=2) as judge:
        items = [(t, _fence(code), 0) for t, code in cases]
        assert [v.verdict for v in numpy_judge.judge_many(items)] == ["correct"] * len(cases)
        assert {v.verdict for v in judge.judge_many(items)} == {"forbidden_import"}
        package = numpy_judge.judge_many([(t, _fence(t.reference_solution), 0) for t, _ in cases])
        assert {v.verdict for v in package} == {"forbidden_import"}


def test_numpy_mode_keeps_the_package_rule_on_numpy(built_instance, cases):
    task = cases[0][0]
    params = task.function_name.strip().removeprefix("def ").removesuffix(":").split("(", 1)[1].rstrip(")")
    first = params.split(",")[0].strip()
    passthrough = f"import numpy as np\n\ndef {task.entry_point}({params}):\n    return np.array({first}).tolist()\n"
    with Judge(built_instance, workers=1, library="numpy") as judge:
        assert judge.judge(task, _fence(passthrough)).verdict == "not_using_package"


def test_numpy_mode_refuses_remote_sandboxes(built_instance):
    with pytest.raises(SebenchError, match="local sandbox"):
        Judge(built_instance, sandbox_urls=["http://127.0.0.1:1"], library="numpy")


def test_numpy_mode_withholds_numpy_file_access():
    from sebench.judge.static import Rules, check_code

    rules = Rules.of_numpy()
    assert check_code("import numpy as np\ndef f(x):\n    return np.sum(x)\n", "f", rules).verdict is None
    loads = check_code("import numpy as np\ndef f(x):\n    return np.loadtxt('/etc/hostname')\n", "f", rules)
    assert loads.verdict == "forbidden_access"
    assert check_code("from numpy import lib\ndef f(x):\n    return lib.format\n", "f", rules).verdict == "forbidden_access"


def test_a_rollouts_file_is_judged_in_one_library():
    from sebench.judge.run import judged_library
    from sebench.records import Rollout

    def rollout(mode: str) -> Rollout:
        return Rollout("t", 0, mode, "fake:", [], "", None, "stop")

    assert judged_library([rollout("numpy")] * 2) == "numpy"
    assert judged_library([rollout("closed"), rollout("open")]) == "package"
    with pytest.raises(SebenchError, match="mix mode numpy"):
        judged_library([rollout("numpy"), rollout("closed")])
