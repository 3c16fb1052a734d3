"""More single-function families: reversing, classifying, picking by index, bounded counts, peeking,
repeated calls and subsets as sets."""

from __future__ import annotations

from sebench.libraries.more_itertools.families.common import G, I, L, S, Str, distinct, ints


def _indices(r, i):
    text = "".join(r.choice("abcdefgh") for _ in range(r.randint(1, 8)))
    return {"text": text, "indices": [r.randrange(len(text)) for _ in range(r.randint(0 if i == 0 else 1, 5))]}


def _stack(r, i):
    return {"stack": ints(r, i, 0, 9, (0, 7))}


def templates() -> list:
    return [
        S("always_reversible", "reverse_filtered", "values limit", "return list({always_reversible}(v for v in values if v > limit))", (
            "A generator yields the items of `values` that are greater than `limit`. Reverse what it yields (even though a generator has no reversed view) and return it as a list.",
            "Return, last first, the items of `values` above `limit`, obtained by reversing a lazily filtered iterable, which needs caching it first when it is not a sequence.",
        ), G(values=L(0, 9, (0, 9)), limit=I(0, 5))),
        S("classify_unique", "seen_flags", "values", "return [list(t) for t in {classify_unique}(values)]", (
            "For each item of `values` return [item, whether it differs from the item right before it, whether it has never appeared before], in order.",
            "A birdwatcher logs the species codes `values`. Label every sighting with two flags: new compared with the previous sighting, and new overall. Return [code, flag1, flag2] for each sighting.",
        ), G(values=L(0, 3, (0, 9)))),
        S("extract", "pick_letters", "text indices", "return ''.join({extract}(text, indices))", (
            "Build a string from `text` by taking the characters at the 0-based positions in `indices`, in the order given (positions may repeat or go backwards).",
            "A cipher key `indices` lists positions in the message `text`; return the letters at those positions joined in key order.",
        ), _indices),
        S("strictly_n", "first_n_checked", "values n", "return list({strictly_n}(values, n, too_short=lambda got: None, too_long=lambda got: None))", (
            "Return the first `n` items of `values` (all of them when there are fewer), with callbacks that silently accept inputs that are too short or too long instead of raising.",
            "A form expects exactly `n` answers; pass the answers `values` through a length check whose failure handlers do nothing, keeping at most `n` answers. Return the answers kept.",
        ), G(values=L(0, 9, (0, 8)), n=I(0, 5))),
        S("substrings_indexes", "spans", "text", "return [[s, a, b] for s, a, b in {substrings_indexes}(text, reverse=True)]", (
            "List every non-empty substring of `text` together with its start and end position (end exclusive), longest substrings first and, within one length, left to right. Return [substring, start, end] triples.",
            "A search index stores each contiguous piece of `text` as [piece, start index, stop index]; produce all of them from the whole string down to single characters (same length: by position). Return the list.",
        ), G(text=Str((2, 5), "abcde"))),
        S("doublestarmap", "format_records", "records",
          "rows = [dict(name=n, qty=q) for n, q in records]\nreturn list({doublestarmap}(lambda name, qty: str(qty) + 'x ' + name, rows))", (
            "Each order line in `records` is a [name, qty] pair. Turn every line into a dict with the keys 'name' and 'qty', then call a formatter with each dict's entries as keyword arguments to build the string '<qty>x <name>'. Return the strings.",
            "Convert the pairs `records` ([name, quantity]) to dicts {'name': ..., 'qty': ...} and map a labelling function over them by unpacking every dict as keyword arguments, giving labels like '3x pear'. Return the labels in order.",
        ), lambda r, i: {"records": [[r.choice(("pear", "fig", "kiwi", "plum")), r.randint(1, 9)]
                                     for _ in range(r.randint(0 if i == 0 else 1, 4))]}),
        S("iter_except", "pop_all", "stack", "items = list(stack)\nreturn list({iter_except}(items.pop, IndexError))", (
            "A plate stack `stack` (bottom first) is emptied by repeatedly taking the top plate until taking one fails. Return the plates in the order they were taken.",
            "Call pop() on a copy of `stack` over and over, stopping when it raises IndexError, and return the popped items in order.",
        ), _stack),
        S("spy", "peek_then_all", "values k", "head, it = {spy}(values, k)\nreturn [list(head), list(it)]", (
            "Look at the first `k` items of the iterable `values` without losing them: return [those first items, the complete sequence].",
            "A parser previews up to `k` tokens of `values` and then still reads everything from the start. Return [preview, all tokens].",
        ), G(values=L(0, 9, (0, 7)), k=I(0, 3))),
        S("repeatfunc", "repeated_calls", "base exponent times", "return list({repeatfunc}(pow, times, base, exponent))", (
            "Call pow(`base`, `exponent`) `times` times and return the list of results.",
            "A benchmark repeats the same computation, `base` raised to `exponent`, exactly `times` times and records every result. Return the recorded results.",
        ), G(base=I(-9, 12), exponent=I(0, 5), times=I(0, 4))),
        S("loops", "count_laps", "n", "return sum(1 for _ in {loops}(n))", (
            "A track runner does `n` laps; loop `n` times with a loop helper that yields nothing useful, counting the iterations, and return the count.",
            "Return how many iterations a loop over `n` repetitions (an iterator yielding None `n` times) performs.",
        ), G(n=I(0, 500))),
        S("powerset_of_sets", "subsets_as_sets", "values", "return [sorted(s) for s in {powerset_of_sets}(values)]", (
            "Return all subsets of the distinct values of `values` (repeats count once), ordered by size, each subset as a sorted list.",
            "A pizza menu lists every set of toppings that can be formed from `values` (duplicates ignored), from the empty set up, by increasing size. Return each set as a sorted list.",
        ), lambda r, i: {"values": [r.choice(v) for v in [distinct(r, 4, 0, 9)] for _ in range(r.randint(0 if i == 0 else 1, 4))]}),
        S("idft", "inverse_transform", "re_parts", "return [round(c.real, 6) for c in {idft}(re_parts)]", (
            "The list `re_parts` holds real Fourier coefficients. Compute the inverse discrete Fourier transform and return the real parts of the results, rounded to 6 decimals.",
            "A synthesiser turns the spectrum `re_parts` (real numbers) back into samples with the inverse DFT. Return each sample's real part rounded to 6 decimals.",
        ), G(re_parts=L(-4, 4, (1, 6), empty=False))),
    ]
