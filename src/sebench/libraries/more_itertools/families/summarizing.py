"""Summarizing: counts, first/last/n-th items, order and equality tests, extremes, duplicates."""

from __future__ import annotations

from sebench.libraries.more_itertools.families.common import G, I, L, S, W, ints


def _one_above(r, i):
    values = r.sample(range(0, 50), r.randint(1, 8))
    return {"values": values, "limit": sorted(values)[-2] if len(values) > 1 else values[0] - 1}


def _at_most_one(r, i):
    words = r.sample(("apple", "river", "stone", "cloud", "maple", "tiger", "lemon", "piano", "ocean", "delta"),
                     r.randint(0 if i else 1, 6))
    initials = [w[0] for w in words]
    return {"words": words, "initial": r.choice(initials) if initials and r.random() < 0.7 else r.choice("befgz")}


def _sortedish(r, i):
    v = sorted(ints(r, i, 0, 9, (0, 7)))
    if r.random() < 0.5 and len(v) > 1:
        k = r.randrange(len(v) - 1)
        v[k], v[k + 1] = v[k + 1], v[k]
    return {"values": v}


def _maybe_equal(r, i):
    n = 0 if i == 0 else r.randint(1, 6)
    if r.random() < 0.5:
        return {"values": [r.randint(0, 99)] * n}
    return {"values": [r.randint(0, 2) for _ in range(n)]}


def _groups(r, i):
    return {"groups": [ints(r, 1, 0, 9, (0, 5)) for _ in range(r.randint(1, 4))]}


def _paths(r, i):
    base = "".join(r.choice("ab/") for _ in range(r.randint(0, 4)))
    return {"paths": [base + "".join(r.choice("abc") for _ in range(r.randint(0, 3))) for _ in range(r.randint(1, 4))]}


def _two_lists(r, i):
    a = ints(r, i, 0, 3, (0, 4))
    return {"left": a, "right": list(a) if r.random() < 0.5 else ints(r, i, 0, 3, (0, 4))}


def templates() -> list:
    nonempty = G(values=L(-20, 20, (1, 9), empty=False))
    return [
        S("ilen", "count_above", "values limit", "return {ilen}(v for v in values if v > limit)", (
            "A quiz has the scores `values`; count how many are strictly above `limit` by consuming a generator of those scores and measuring its length. Return the count.",
            "Return the number of items produced by the generator of the items of `values` greater than `limit` (the length of an iterator, found by exhausting it).",
        ), G(values=L(0, 20, (0, 10)), limit=I(3, 15))),
        S("first", "first_or_default", "values default", "return {first}(values, default)", (
            "Return the first entry of the waiting list `values`, or `default` when the list is empty.",
            "A dispatcher takes the first item of the iterable `values`; if there is none it must return `default` instead of failing.",
        ), G(values=L(0, 50, (0, 6)), default=I(-1, -1))),
        S("last", "last_or_default", "values default", "return {last}(values, default)", (
            "Return the most recent (final) reading of `values`, or `default` when there are no readings.",
            "A chat client shows the last message id in `values`; with an empty list it shows `default`. Return the id shown.",
        ), G(values=L(0, 50, (0, 6)), default=I(-1, -1))),
        S("one", "only_above", "values limit", "return {one}(v for v in values if v > limit)", (
            "Exactly one of the bids `values` exceeds `limit`. Return that bid, using a call that would raise an error if there were none or several.",
            "Return the single item of `values` that is greater than `limit`, asserting that the filtered sequence holds exactly one item.",
        ), _one_above),
        S("only", "unique_match", "words initial", "return {only}([w for w in words if w[0] == initial], 'none')", (
            "At most one word in `words` starts with the letter `initial`. Return it, or the string 'none' when no word does.",
            "From the words starting with `initial` (there is never more than one), return the only match; if nothing matches return 'none'.",
        ), _at_most_one),
        S("nth", "nth_or_minus_one", "values k", "return {nth}(values, k, -1)", (
            "Return the item at 0-based position `k` of the iterable `values`, or -1 if it has no such position.",
            "A race result list `values` is consulted for the runner who finished in place `k` + 1 (0-based index `k`); return -1 when fewer runners finished.",
        ), G(values=L(0, 50, (0, 7)), k=I(0, 6))),
        S("nth_or_last", "nth_or_final", "values k", "return {nth_or_last}(values, k)", (
            "Return the item at 0-based index `k` of `values`, or its last item when `values` is shorter (it is never empty).",
            "A vending machine gives the snack in slot `k`; if there are fewer slots than that, it gives the snack in the final slot of `values`. Return the snack id.",
        ), G(values=L(0, 50, (1, 7), empty=False), k=I(0, 8))),
        S("exactly_n", "exactly_positive", "values n", "return {exactly_n}(values, n, lambda v: v > 0)", (
            "A vote `values` passes only if exactly `n` members voted with a positive number. Return True or False.",
            "Return whether precisely `n` items of `values` are greater than zero (stopping early once more are found).",
        ), G(values=L(-3, 3, (0, 8)), n=I(0, 4))),
        S("is_sorted", "check_order", "values", "return {is_sorted}(values)", (
            "Return True when the page numbers `values` never decrease from one item to the next (equal neighbours allowed), else False.",
            "A librarian checks that the shelf `values` is in non-descending order. Return the boolean answer.",
        ), _sortedish),
        S("all_equal", "all_same", "values", "return {all_equal}(values)", (
            "Return True if every item of `values` equals every other (an empty list counts as True), else False.",
            "A factory line produces parts of sizes `values`; report whether all parts have the same size (True for no parts).",
        ), _maybe_equal),
        S("all_unique", "no_repeats", "values", "return {all_unique}(values)", (
            "Return True if no value occurs twice in `values`, else False.",
            "A lottery checks the drawn numbers `values` for repeats: answer True when they are all distinct.",
        ), G(values=L(0, 12, (0, 6)))),
        S("minmax", "low_high", "values", "return list({minmax}(values))", (
            "Return [smallest, largest] of the non-empty temperature list `values`, found in a single pass.",
            "For the non-empty list `values` return a two-element list with its minimum and its maximum.",
        ), nonempty),
        S("iequals", "same_sequence", "left right", "return {iequals}(left, right)", (
            "Return True if the iterables `left` and `right` produce the same items in the same order and have the same length.",
            "Two backups `left` and `right` must hold exactly the same sequence of blocks. Return True or False.",
        ), _two_lists),
        S("first_true", "first_large", "values limit", "return {first_true}(values, -1, lambda v: v > limit)", (
            "Return the first value in `values` that is greater than `limit`, or -1 if there is none.",
            "A scanner stops at the first package heavier than `limit` kilograms in `values`; return its weight, or -1 if no package is that heavy.",
        ), G(values=L(0, 20, (0, 8)), limit=I(5, 15))),
        S("quantify", "count_multiples", "values k", "return {quantify}(values, lambda v: v % k == 0)", (
            "Count how many items of `values` are divisible by `k`, by summing the truth values of a test over the items. Return the count.",
            "A cashier counts how many of the amounts `values` are exact multiples of `k`. Return that number.",
        ), G(values=L(0, 30, (0, 10)), k=I(2, 5))),
        S("argmax", "best_index", "values", "return {argmax}(values)", (
            "Return the 0-based index of the largest value in the non-empty list `values` (the first such index if it occurs several times).",
            "A talent show lists the votes `values` per act; return the index of the act with the most votes (the earliest on ties).",
        ), nonempty),
        S("argmin", "cheapest_index", "values", "return {argmin}(values)", (
            "Return the 0-based index of the smallest value in the non-empty list `values` (the first on ties).",
            "A shopper compares prices `values`; return the position of the cheapest offer, the earliest one on ties.",
        ), nonempty),
        S("longest_common_prefix", "shared_start", "paths", "return ''.join({longest_common_prefix}(paths))", (
            "Return the longest string that every path in `paths` starts with (possibly empty).",
            "A file manager shows the common beginning shared by all the strings `paths`. Return it as a string.",
        ), _paths),
        S("sum_of_squares", "energy", "values", "return {sum_of_squares}(values)", (
            "Return the sum of the squares of the samples `values` (0 for none).",
            "A signal's energy is the total of every sample `values` multiplied by itself. Return it.",
        ), G(values=L(-9, 9, (0, 8)))),
        S("count_cycle", "numbered_rounds", "values rounds", "return [list(t) for t in {count_cycle}(values, rounds)]", (
            "A carousel shows the items `values` `rounds` times over; return [round number (from 0), item] for every showing in order.",
            "Cycle through `values` `rounds` times and label each produced item with the 0-based index of the cycle it belongs to. Return the [index, item] pairs.",
        ), G(values=W((0, 3)), rounds=I(0, 3))),
        S("duplicates_everseen", "repeated_items", "values", "return list({duplicates_everseen}(values))", (
            "Return every item of `values` that has already appeared earlier in the list, each time it re-appears, in order.",
            "A guest list `values` has some names typed more than once; list each repeat occurrence (not the first occurrence) in the order encountered.",
        ), G(values=L(0, 5, (0, 10)))),
        S("duplicates_justseen", "stutters", "values", "return list({duplicates_justseen}(values))", (
            "Return the items of `values` that are equal to the item right before them, in order.",
            "A keyboard tester finds key presses in `values` that repeat the immediately preceding press. Return those repeated presses.",
        ), G(values=L(0, 3, (0, 10)))),
        S("unique_to_each", "exclusive_items", "groups", "return [list(u) for u in {unique_to_each}(*groups)]", (
            "Several shoppers have the baskets `groups` (lists of item codes). For each basket return the items that appear in no other basket, in basket order.",
            "For each list in `groups`, return the items that occur in that list and in none of the others, keeping their order.",
        ), _groups),
    ]
