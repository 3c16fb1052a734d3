"""The original's GRPO reward (its verl_evolve/verl/utils/reward_score/self_question.py), which differs from its
judge: the first python block, test inputs pasted as stored, any stderr fails, tolerance 1e-10. Each test has an
answer that the original judge accepts and the reward refuses for one of these reasons only."""

from __future__ import annotations

import pytest

from sebench.instance import Instance
from sebench.judge.original import OriginalJudge

from .test_original_protocol import ADD, CUMSUM, _fenced, _row, zwc_instance  # noqa: F401 (a fixture)

LOG = "romowa"  # numpy.log in the release's mapping
RIGHT = f"import zwc\ndef running_total(sales):\n    return zwc.{CUMSUM}(sales)"


@pytest.fixture(scope="module")
def judged(zwc_instance):  # noqa: F811
    instance = Instance.open(zwc_instance)
    tasks = {t.function_name: t for t in instance.tasks("single_test")}
    with OriginalJudge(instance, workers=2) as judge:
        yield judge, tasks


def _both(judged, function, response):
    judge, tasks = judged
    task = tasks[function]
    return judge.judge(task, response).outcome, judge.reward(task, response)


def test_a_right_answer_is_rewarded(judged):
    assert _both(judged, "def running_total(sales):", _fenced(RIGHT)) == ("right", 1.0)


def test_the_reward_reads_the_first_python_block(judged):
    wrong_first = _fenced(f"import zwc\ndef running_total(sales):\n    return zwc.{ADD}(sales, 1)") + _fenced(RIGHT)
    assert _both(judged, "def running_total(sales):", wrong_first) == ("right", 0.0)


def test_any_output_on_stderr_gives_no_reward(judged):
    noisy = RIGHT.replace("    return", "    import sys\n    print('note', file=sys.stderr)\n    return")
    assert _both(judged, "def running_total(sales):", _fenced(noisy)) == ("right", 0.0)


def test_a_library_warning_reaches_stderr_under_the_originals_semantics(judged):
    warns = RIGHT.replace("    return", f"    zwc.{LOG}(zwc.yitaf([0.0]))\n    return")  # divide by zero
    assert _both(judged, "def running_total(sales):", _fenced(warns)) == ("right", 0.0)


def test_numbers_must_agree_to_1e_10(judged):
    near = RIGHT.replace(f"zwc.{CUMSUM}(sales)", f"zwc.{ADD}(zwc.{CUMSUM}(sales), 1e-5)")
    assert _both(judged, "def running_total(sales):", _fenced(near)) == ("right", 0.0)  # the judge: 1e-2


def test_inputs_are_pasted_as_stored_so_np_array_fails(judged):
    # row 2's first input holds `np.array(...)`: the judge rewrites it to the package's constructor, the reward
    # does not, and the program fails on the name `np`
    answer = _fenced(f"import zwc\ndef combine(a, b):\n    return zwc.{ADD}(a, b)")
    assert _both(judged, "def combine(a, b):", answer) == ("right", 0.0)


def test_on_a_built_instance_every_reference_solution_that_runs_there_is_rewarded(built_instance):
    """A task sebench built stores its outputs at full precision, where the original's package prints 8 digits:
    the reward compares against what that package prints for the reference, as the original made its
    right_exe_result, so that the 1e-10 comparison does not fail correct answers (against the task's own
    outputs, 93 of these 110 references were rewarded)."""
    from sebench.judge.original import reward_program

    instance = Instance.open(built_instance)
    tasks = [t for split in ("train", "single_test", "multiple_test") for t in instance.tasks(split)]
    with OriginalJudge(instance, workers=2) as judge:
        rewards = judge.rewards([(t, f"```python\n{t.reference_solution}\n```") for t in tasks])
        wrong = judge.rewards([(t, f"```python\n{t.reference_solution.replace('return ', 'return 1 + ', 1)}\n```")
                               for t in tasks[:5]])
        # the unrewarded ones do not run on the original's package (its array type lacks some operators)
        for task, reward in zip(tasks, rewards):
            if reward == 0.0:
                assert judge.run(reward_program(task.reference_solution + "\n", task.test_cases, judge.package))[1]
    assert sum(rewards) >= 0.95 * len(tasks)
    assert wrong == [0.0] * 5
