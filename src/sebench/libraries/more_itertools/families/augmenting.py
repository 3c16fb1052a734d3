"""Augmenting: separators, padding, repetition, marks and prefixes."""

from __future__ import annotations

from sebench.libraries.more_itertools.families.common import G, I, L, S, W


def _chain_parts(r, i):
    parts = []
    for _ in range(r.randint(0 if i else 1, 5)):
        parts.append(r.randint(0, 9) if r.random() < 0.5 else [r.randint(0, 9) for _ in range(r.randint(0, 3))])
    return {"parts": parts}


def templates() -> list:
    return [
        S("intersperse", "with_separators", "values sep every", "return list({intersperse}(sep, values, n=every))", (
            "A typesetter inserts the marker `sep` into the list `values` after every `every` items (never at the very start or end). Return the resulting list.",
            "Return `values` with the item `sep` placed between consecutive groups of `every` items; no separator before the first group or after the last.",
        ), G(values=L(1, 9, (0, 9)), sep=I(0, 0), every=I(1, 3))),
        S("padded", "pad_to", "values fill size", "return list({padded}(values, fill, size))", (
            "A fixed-width record needs at least `size` fields: append copies of `fill` to the fields `values` until there are `size` of them (longer records stay as they are). Return the fields.",
            "Extend `values` with the filler `fill` so that its length is at least `size`, leaving it unchanged when it is already long enough. Return the list.",
        ), G(values=L(1, 9, (0, 8)), fill=I(-1, 0), size=I(1, 9))),
        S("repeat_each", "stutter", "values times", "return list({repeat_each}(values, times))", (
            "A slow-motion replay shows every frame of `values` `times` times in a row before moving on. Return the replayed frame sequence.",
            "Return the list in which each item of `values` is repeated `times` times consecutively (for example a, a, b, b for two repeats).",
        ), G(values=L(0, 9, (0, 6)), times=I(0, 3))),
        S("repeat_last", "hold_last", "values default length", "return [v for v, _ in zip({repeat_last}(values, default), range(length))]", (
            "A display shows the readings `values` one per second and then keeps showing the last reading forever (or `default` if there were no readings). Return what it shows during the first `length` seconds.",
            "Produce the first `length` items of the endless sequence that yields `values` and afterwards repeats its final item indefinitely; with an empty `values` the sequence repeats `default`. Return them as a list.",
        ), G(values=L(1, 9, (0, 5)), default=I(0, 0), length=I(0, 9))),
        S("pad_none", "none_padded", "values length", "return [v for v, _ in zip({pad_none}(values), range(length))]", (
            "A table renderer reads the cells `values` and then an unlimited supply of None for missing cells. Return the first `length` cells it reads.",
            "Return the first `length` items of `values` followed by None forever, as a list.",
        ), G(values=L(1, 9, (0, 5)), length=I(0, 9))),
        S("mark_ends", "flag_ends", "values", "return [[a, b, v] for a, b, v in {mark_ends}(values)]", (
            "A slideshow labels each slide of `values` with two flags: whether it is the first slide and whether it is the last. Return [is_first, is_last, slide] for every slide.",
            "For every item of `values` return the triple [True if it is the first item else False, True if it is the last item else False, item], as lists, in order.",
        ), G(values=L(0, 9, (0, 6)))),
        S("prepend", "with_header", "head values", "return list({prepend}(head, values))", (
            "A CSV export starts with the header code `head`, followed by the data codes `values`. Return the full sequence.",
            "Return a list consisting of the single value `head` followed by all items of `values`.",
        ), G(head=I(-9, -1), values=L(0, 9, (0, 6)))),
        S("adjacent", "near_target", "values target distance", "return [[flag, v] for flag, v in {adjacent}(lambda v: v == target, values, distance=distance)]", (
            "A log viewer highlights every entry equal to `target` together with up to `distance` entries on each side of it. For each entry of `values` return [highlighted, entry].",
            "For each item of `values`, flag whether it lies within `distance` positions of an item equal to `target` (the matching item itself included). Return [flag, item] pairs in order.",
        ), G(values=L(0, 5, (0, 10)), target=I(0, 3), distance=I(0, 2))),
        S("value_chain", "flatten_once", "parts", "return list({value_chain}(*parts))", (
            "An order form lists `parts`, where each part is either a single item number or a list of item numbers. Return all item numbers in one flat list, in order.",
            "Given `parts`, a list whose entries are integers or lists of integers, return a flat list: integers stay as they are, lists contribute their items.",
        ), _chain_parts),
        S("ncycles", "repeat_playlist", "values times", "return list({ncycles}(values, times))", (
            "A radio station plays the whole playlist `values` `times` times in a row. Return the full broadcast order.",
            "Return the sequence `values` repeated end to end `times` times, as one list.",
        ), G(values=W((0, 4)), times=I(0, 3))),
    ]
