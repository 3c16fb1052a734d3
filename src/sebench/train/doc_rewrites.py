"""Rule-made rewrites of a function's doc for docs-cpt-augmented (no model writes them).

Four forms, each with a few seeded variants:
  permuted     the doc's fields (description, Parameters, Returns, Examples, ...) in a shuffled order
  name-first   sentences that start from the name: "`pkg.f(sig)` calculates ..."
  behaviour    sentences that start from the behaviour: "To calculate ..., call `pkg.f(sig)`" (the
               direction the tasks ask in: they describe behaviour and need the name)
  snippet      short pieces that combine functions used together: pairs that share training tasks, and
               the doc's own example code where it calls other functions
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable

from sebench.errors import SebenchError
from sebench.records import ApiDoc
from sebench.train.doc_fields import DocFields, behaviour, example_statements, parse_doc, third_person

REWRITE_FORMS = ("permuted", "name-first", "behaviour", "snippet")
MAX_SNIPPET_STATEMENTS = 8

_NAME_FIRST = (
    "`{call}` {does}.",
    "The function `{name}` {does}. Call it as `{call}`.",
    "`{name}` is the `{pkg}` function that {does}; its signature is `{call}`.",
)
_BEHAVIOUR = (
    "To {want}, call `{call}`.",
    "If you need to {want}, use `{name}`: `{call}`.",
    "Which `{pkg}` function should you call to {want}? `{name}`, as `{call}`.",
)


def rewrites(doc: ApiDoc, k: int, seed: int, partners: dict[str, ApiDoc] | None = None,
             forms: tuple[str, ...] = REWRITE_FORMS) -> list[tuple[str, str]]:
    """Up to `k` distinct (form, text) rewrites of `doc`, taking `forms` in turn (a form with nothing
    left to give is skipped); `partners`: docs of the functions used together with it, by name."""
    check_forms(forms)
    fields = parse_doc(doc)
    rng = random.Random(f"{seed}:{doc.name}")
    pools = {form: _variants(form, fields, partners or {}, rng) for form in REWRITE_FORMS}  # each form draws alike
    chosen: list[tuple[str, str]] = []
    while len(chosen) < k and any(pools[form] for form in forms):
        for form in forms:
            if pools[form] and len(chosen) < k:
                chosen.append((form, pools[form].pop(0)))
    return chosen


def check_forms(forms: tuple[str, ...]) -> None:
    unknown = [f for f in forms if f not in REWRITE_FORMS]
    if unknown or not forms:
        raise SebenchError(f"rewrite forms must be some of {', '.join(REWRITE_FORMS)}, not {', '.join(unknown) or 'none'}")


def _variants(form: str, fields: DocFields, partners: dict[str, ApiDoc], rng: random.Random) -> list[str]:
    builders: dict[str, Callable[[], list[str]]] = {
        "permuted": lambda: [permuted(fields, rng) for _ in range(len(_NAME_FIRST))],
        "name-first": lambda: [name_first(fields, t) for t in _NAME_FIRST],
        "behaviour": lambda: [behaviour_first(fields, t) for t in _BEHAVIOUR],
        "snippet": lambda: [pair_snippet(fields, parse_doc(d)) for d in partners.values()] + example_snippets(fields),
    }
    texts = [t for t in builders[form]() if t]
    distinct = list(dict.fromkeys(texts))
    if form in ("name-first", "behaviour"):
        rng.shuffle(distinct)
    return distinct


def permuted(fields: DocFields, rng: random.Random) -> str:
    """The call line, then the description and every section in a shuffled order."""
    description = "\n\n".join(x for x in (fields.summary, fields.description) if x)
    parts = [description] if description else []
    parts += [f"{title}\n{'-' * len(title)}\n{body}" for title, body in fields.sections if body]
    rng.shuffle(parts)
    return "\n\n".join([f"`{fields.call}`", *parts])


def _returns_sentence(fields: DocFields) -> str:
    """" `pkg.f` returns: <its first returned value's description>", or "" (the name, never "it":
    Physics of LMs 3.1's "fullname" augmentation)."""
    lines = [ln.strip() for ln in fields.section("Returns").splitlines() if ln.strip()]
    described = []
    for line in lines[1:]:
        if re.match(r"^\w+\s*:", line):
            break
        described.append(line)
    return f" `{fields.name}` returns: {' '.join(described)}" if described else ""


def _param_sentence(fields: DocFields) -> str:
    names = [m.group(1) for m in re.finditer(r"^(\*{0,2}\w+)\s*:", fields.section("Parameters"), re.M)]
    return f" `{fields.name}` takes {', '.join(f'`{n}`' for n in names)}." if names else ""


def name_first(fields: DocFields, template: str) -> str:
    """A name-first sentence from `template`, then the parameters and the returned value."""
    want = behaviour(fields.summary)
    if not want:
        return ""
    text = template.format(call=fields.call, name=fields.name, pkg=fields.package, does=third_person(want))
    return text + _param_sentence(fields) + _returns_sentence(fields)


def behaviour_first(fields: DocFields, template: str) -> str:
    """A behaviour-first sentence from `template` (what to do, then the call), then the returned value."""
    want = behaviour(fields.summary)
    if not want:
        return ""
    return template.format(call=fields.call, name=fields.name, pkg=fields.package, want=want) + _returns_sentence(fields)


def pair_snippet(fields: DocFields, other: DocFields) -> str:
    """Two functions used together, each introduced by its behaviour."""
    want, other_want = behaviour(fields.summary), behaviour(other.summary)
    if not want or not other_want:
        return ""
    return (f"`{fields.name}` and `{other.name}` are used together. To {want}, call `{fields.call}`; "
            f"to {other_want}, call `{other.call}`.")


def example_snippets(fields: DocFields) -> list[str]:
    """The doc's example code as one python block (outputs as comments), where it calls the function
    together with another function of the package."""
    statements = example_statements(fields)[:MAX_SNIPPET_STATEMENTS]
    code = "\n".join(s.source + "".join(f"\n# {ln}" for ln in s.output.splitlines()[:3]) for s in statements)
    called = set(re.findall(rf"\b{re.escape(fields.package)}(?:\.\w+)+(?=\()", code))
    if fields.name not in called or len(called) < 2:
        return []
    others = ", ".join(f"`{n}`" for n in sorted(called - {fields.name}))
    return [f"`{fields.name}` together with {others}:\n```python\n{code}\n```"]
