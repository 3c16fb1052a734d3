"""more-itertools under the library contract: its surface exists in the installed original, every
template's reference runs with the original on its generated inputs and gives JSON data, and no statement
names a function in code."""

import inspect
import json
import re
from collections import Counter

import more_itertools as mi
import pytest

from sebench.experiment.select import choose_functions
from sebench.judge import Rules
from sebench.judge.static import check_code
from sebench.libraries.more_itertools import LIBRARY
from sebench.tasks.generate import DRAWS_PER_CASE, SIMILAR_TEXT, TaskSizes, plan, similarity, trigrams
from sebench.tasks.gens import BudgetedRandom
from sebench.values import literal, to_task_data

TEMPLATES = LIBRARY.templates()
NAMES = {f.name for f in LIBRARY.surface()}
NAME_RE = re.compile(r"\{([a-z_][a-z0-9_]*)\}")


def with_original(template):
    """The template's function rendered with the original (`mi.<name>`)."""
    body = NAME_RE.sub(lambda m: "mi." + m.group(1), template.body)
    code = f"def {template.entry}({', '.join(template.params)}):\n" + "".join(f"    {line}\n" for line in body.splitlines())
    scope = {"mi": mi}
    exec(code, scope)  # trusted template code
    return scope[template.entry]


def test_surface_is_at_least_100_public_functions_of_the_installed_original():
    surface = LIBRARY.surface()
    assert len(surface) >= 100 and len(NAMES) == len(surface)
    assert [f.name for f in surface] == sorted(f.name for f in surface)  # a fixed order
    public = set(mi.more.__all__) | set(mi.recipes.__all__)
    for f in surface:
        assert f.key == f"more_itertools.{f.name}" and f.group == ""
        obj = getattr(mi, f.name)
        assert f.name in public and callable(obj) and not inspect.isclass(obj), f.name
        assert LIBRARY.doc(f.key).strip(), f.name
    assert LIBRARY.version() == mi.__version__
    leak = re.compile(r"\b(?:" + "|".join(map(re.escape, LIBRARY.leak_words)) + r")\b")
    assert not [f.name for f in surface if leak.search(LIBRARY.doc(f.key))]
    assert "seekable" in inspect.getdoc(mi.locate) and "index" in LIBRARY.doc("more_itertools.locate")
    with pytest.raises(KeyError):
        LIBRARY.doc("more_itertools.peekable")


def test_leak_words_name_no_surface_function_and_cover_the_left_out_classes():
    assert not NAMES & LIBRARY.leak_words
    classes = {n for n in dir(mi) if inspect.isclass(getattr(mi, n)) and not n.startswith("_")}
    english = {"bucket", "countable"}
    assert classes - english <= LIBRARY.leak_words
    assert {"more_itertools", "UnequalIterablesError"} <= LIBRARY.leak_words
    assert "more" not in LIBRARY.leak_words and "recipes" not in LIBRARY.leak_words  # English words


@pytest.mark.parametrize("template", TEMPLATES, ids=lambda t: t.key)
def test_reference_runs_with_the_original_and_gives_json_data(template):
    assert template.library == "more_itertools"
    assert all(f"more_itertools.{n}" in {f.key for f in LIBRARY.surface()} for n in NAME_RE.findall(template.body))
    fn = with_original(template)
    rng = BudgetedRandom(template.key, DRAWS_PER_CASE)
    outputs, inputs = [], set()
    for i in range(template.tries):
        rng.allow(DRAWS_PER_CASE)
        kwargs = template.gen(rng, i)
        assert set(kwargs) == set(template.params)
        inputs.add(", ".join(literal(kwargs[p]) for p in template.params))  # as the builder writes inputs
        outputs.append(json.dumps(to_task_data(fn(**kwargs))))  # raises on anything but plain data
    # a task's example shows inputs and outputs as code: their strings must not hold a function's name
    words = set(re.findall(r"[A-Za-z_]\w*", " ".join([*inputs, *outputs])))
    assert not words & NAMES, (template.key, sorted(words & NAMES))
    assert len(inputs) >= template.cases and len(set(outputs)) >= 2, template.key


def drawn_inputs(template, seed: str) -> set[str]:
    rng = BudgetedRandom(seed, DRAWS_PER_CASE)
    return {", ".join(literal(v) for v in template.gen(rng, i).values()) for i in range(template.tries)}


@pytest.mark.parametrize("template", TEMPLATES, ids=lambda t: t.key)
def test_a_test_draft_finds_inputs_that_twelve_train_drafts_did_not_draw(template):
    """The builder repeats a function's train variant with fresh inputs (five or six times at the quick
    preset's 720 train tasks, twice as many here for a margin) and keeps a test case only when no train task
    of its template drew its input."""
    train = set().union(*(drawn_inputs(template, f"train|{a}") for a in range(12)))
    assert len(drawn_inputs(template, "test") - train) >= template.cases, template.key


def test_statements_never_name_a_function_in_code_and_differ_from_each_other():
    code_name = re.compile(r"`([^`]*)`|\b([a-z_][a-z0-9_]*)\(")
    for t in TEMPLATES:
        assert t.entry not in NAMES and not set(t.params) & NAMES, t.key
        assert len(t.texts) >= 2, t.key
        for text in t.texts:
            for m in code_name.finditer(text):
                words = set(re.findall(r"[A-Za-z_]\w*", m.group(1) or "")) | {m.group(2) or ""}
                assert not words & NAMES, (t.key, text)
            low = text.lower()
            assert not [w for w in LIBRARY.leak_words if w.lower() in low], (t.key, text)
        grams = [trigrams(x) for x in t.texts]
        assert all(similarity(a, b) <= SIMILAR_TEXT for k, a in enumerate(grams) for b in grams[k + 1:]), t.key


def test_templates_cover_every_surface_function_and_at_least_ten_pipelines():
    singles = {t.focus[0] for t in TEMPLATES if t.kind == "single"}
    pipelines = [t for t in TEMPLATES if t.kind == "multiple"]
    assert singles == {f.key for f in LIBRARY.surface()}  # the builder gives every function train tasks
    # four statements a function: up to three single-function test tasks and one left for train
    # (tasks.generate.plan), so that a study of 8 functions gets the quick preset's 24 single-function tasks
    texts = Counter()
    for t in TEMPLATES:
        if t.kind == "single":
            texts[t.focus[0]] += len(t.texts)
    assert min(texts.values()) >= 4
    assert len(pipelines) >= 10 and all(2 <= len(t.focus) <= 3 for t in pipelines)
    assert len({t.key.split(".")[1] for t in pipelines}) >= 4  # families go whole to train or test
    assert len({t.key for t in TEMPLATES}) == len(TEMPLATES)


def test_forbidden_imports_are_vendored_copies_of_the_original():
    assert LIBRARY.forbidden_imports and all(m.endswith(".more_itertools") for m in LIBRARY.forbidden_imports)
    assert LIBRARY.module == "more_itertools" and LIBRARY.name == "more-itertools"


def test_every_reference_passes_the_judges_static_rules():
    """Rendered with a package's names, each reference imports only the package and returns a value that
    depends on a package call (the judge's data-flow rule)."""
    functions = {f.key: f"zwc.q{i}" for i, f in enumerate(LIBRARY.surface())}
    rules = Rules.from_mapping({"package": "zwc", "functions": functions})
    for t in TEMPLATES:
        body = NAME_RE.sub(lambda m: functions["more_itertools." + m.group(1)], t.body)
        code = "import zwc\n\n\n" + t.signature() + "\n" + "".join(f"    {line}\n" for line in body.splitlines())
        result = check_code(code, t.entry, rules, [functions[f] for f in t.focus])
        assert result.verdict is None, (t.key, result.message)


def planned_share_of_test_bodies_trained(templates, seed: int, sizes) -> tuple[int, int]:
    """(single-function test slots whose template a train slot of the same function also uses, all of
    them), in the builder's plan: such a test task's reference has the same body as a train task's."""
    functions = sorted({t.focus[0] for t in templates if t.kind == "single"})
    slots = plan(list(templates), seed, sizes, functions)
    trained = {(s[0].template.focus[0], s[0].template.key) for s in slots["train"]}
    tests = [s[0].template for s in slots["single_test"]][:sizes.single]
    return sum((t.focus[0], t.key) in trained for t in tests), len(tests)


def test_functions_with_several_templates_get_test_tasks_whose_body_train_does_not_show():
    """A function with a second template (another use of it) can have a single-function test task whose
    reference body no train task of the function shares; at the quick preset's sizes (3 test tasks of 4
    variants a function) at most a third of them share one, where one template a function gives all."""
    per_fn = Counter(t.focus[0] for t in TEMPLATES if t.kind == "single")
    several = {f for f, n in per_fn.items() if n >= 2}
    assert several == {f.key for f in LIBRARY.surface()}  # every function has a second use
    assert all(len(t.texts) >= 2 for t in TEMPLATES if t.kind == "single" and t.focus[0] in several)
    quick = TaskSizes(train=720, single=24, multiple=0)
    for seed in range(3):
        chosen = set(choose_functions(list(TEMPLATES), {f: f for f in several}, 8, seed))
        keep = [t for t in TEMPLATES if t.kind == "single" and t.focus[0] in chosen]
        shared, total = planned_share_of_test_bodies_trained(keep, seed, quick)
        assert total == 24 and shared <= total // 3, (seed, shared, total)
        one_template = [t for t in keep if t.key == min(u.key for u in keep if u.focus == t.focus)]
        one_shared, one_total = planned_share_of_test_bodies_trained(one_template, seed, quick)
        assert one_shared == one_total > 0  # every test body is a train body: the measure can fail
