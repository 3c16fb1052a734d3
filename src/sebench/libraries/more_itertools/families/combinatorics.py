"""Combinatorics: distinct arrangements, partitions, subsets, and the index of an arrangement (and back)."""

from __future__ import annotations

import math

from sebench.libraries.more_itertools.families.common import G, I, L, S, Str, distinct


def _small_distinct(lo=1, hi=4):
    return lambda r, i: {"values": distinct(r, r.randint(lo, hi), 0, 9)}


def _perm_of(r, i):
    pool = distinct(r, r.randint(2, 5), 0, 9)
    k = r.randint(1, len(pool))
    return {"choice": r.sample(pool, k), "pool": pool}


def _comb_of(r, i):
    pool = distinct(r, r.randint(2, 6), 0, 20)
    picked = sorted(r.sample(range(len(pool)), r.randint(1, len(pool))))
    return {"choice": [pool[j] for j in picked], "pool": pool}


def _combr_of(r, i):
    pool = distinct(r, r.randint(2, 5), 0, 20)
    picked = sorted(r.randrange(len(pool)) for _ in range(r.randint(1, 4)))
    return {"choice": [pool[j] for j in picked], "pool": pool}


def _options(r, i):
    opts = [distinct(r, r.randint(1, 4), 0, 9) for _ in range(r.randint(1, 3))]
    return {"options": opts, "choice": [r.choice(o) for o in opts]}


def _nth_product(r, i):
    opts = [distinct(r, r.randint(1, 4), 0, 9) for _ in range(r.randint(1, 3))]
    return {"options": opts, "index": r.randrange(math.prod(len(o) for o in opts))}


def _nth_perm(r, i):
    pool = distinct(r, r.randint(1, 5), 0, 9)
    size = r.randint(1, len(pool))
    return {"pool": pool, "size": size, "index": r.randrange(math.perm(len(pool), size))}


def _nth_comb(r, i):
    pool = distinct(r, r.randint(1, 6), 0, 20)
    size = r.randint(1, len(pool))
    return {"pool": pool, "size": size, "index": r.randrange(math.comb(len(pool), size))}


def _nth_combr(r, i):
    pool = distinct(r, r.randint(1, 4), 0, 20)
    size = r.randint(1, len(pool))
    return {"pool": pool, "size": size, "index": r.randrange(math.comb(len(pool) + size - 1, size))}


def templates() -> list:
    return [
        S("distinct_permutations", "anagrams", "text", "return [''.join(p) for p in {distinct_permutations}(text)]", (
            "List every distinct rearrangement of the letters of `text` (repeated letters make some rearrangements equal; each appears once), in lexicographic order, as strings.",
            "A word game needs all different anagrams of `text`, sorted alphabetically and without duplicates. Return them as a list of strings.",
        ), G(text=Str((2, 5), "aabcde"))),
        S("distinct_combinations", "distinct_picks", "values size", "return [list(c) for c in {distinct_combinations}(sorted(values), size)]", (
            "A bag holds marbles whose colours are the numbers `values` (colours repeat). Sort the colours ascending and list every different choice of `size` marbles, where two choices with the same colours are the same choice. Return each choice as an ascending list, the choices in lexicographic order.",
            "Return the size-`size` combinations of the ascending-sorted `values` without repeats (equal items are interchangeable), each as a list, in lexicographic order.",
        ), G(values=L(0, 3, (1, 6), empty=False), size=I(1, 3))),
        S("partitions", "cut_points", "values", "return [[list(p) for p in part] for part in {partitions}(values)]", (
            "Return every way to cut the list `values` into consecutive non-empty pieces (from no cut to a cut between every pair of items), each way as a list of pieces, in the standard order of cut positions.",
            "A train of wagons `values` can be split into shorter trains between any adjacent wagons. Return all possible splits, each a list of the resulting trains.",
        ), _small_distinct(1, 4)),
        S("set_partitions", "team_splits", "values k", "return [[list(b) for b in part] for part in {set_partitions}(values, k)]", (
            "Return every way to divide the distinct players `values` into exactly `k` non-empty teams (order of teams and within teams as produced by the standard recursive enumeration), each way as a list of teams.",
            "List all partitions of the set `values` into `k` non-empty blocks, each partition as a list of lists.",
        ), lambda r, i: {**_small_distinct(1, 4)(r, i), "k": r.randint(1, 2)}),
        S("powerset", "all_subsets", "values", "return [list(s) for s in {powerset}(values)]", (
            "Return all subsets of `values` as lists, ordered by size (the empty subset first), and within a size in the order of the items' positions.",
            "A pizza shop lists every possible topping combination from `values`, from no toppings to all of them, by increasing number of toppings. Return the combinations as lists.",
        ), _small_distinct(0, 4)),
        S("derangements", "secret_santa", "values", "return [list(d) for d in {derangements}(values)]", (
            "Return every rearrangement of `values` in which no item stays in its original position, as lists, in the order the permutations are generated.",
            "A secret-santa draw over the people `values` must give nobody their own position. Return all such arrangements, as lists in permutation order.",
        ), _small_distinct(1, 4)),
        S("product_index", "menu_index", "choice options", "return {product_index}(choice, *options)", (
            "A menu enumerates all meals as one choice from each course in `options`, in nested-loop order. Return the 0-based position of the meal `choice`.",
            "Return the index of the tuple `choice` in the Cartesian product of the lists in `options` (lexicographic in the lists' order).",
        ), _options),
        S("combination_index", "combo_number", "choice pool", "return {combination_index}(choice, pool)", (
            "Return the 0-based position of the combination `choice` (items of `pool` in pool order) among all combinations of the same size of `pool`, in the standard order.",
            "A lottery numbers every way of drawing len(choice) distinct balls from `pool` in standard combination order. Return the number of the draw `choice`.",
        ), _comb_of),
        S("combination_with_replacement_index", "multiset_number", "choice pool", "return {combination_with_replacement_index}(choice, pool)", (
            "Return the 0-based position of `choice` among all combinations with repetition of len(choice) items of `pool`, in standard order.",
            "An ice-cream shop numbers every cup of len(choice) scoops from the flavours `pool` (repeats allowed, order of flavours as in pool). Return the number of the cup `choice`.",
        ), _combr_of),
        S("permutation_index", "arrangement_number", "choice pool", "return {permutation_index}(choice, pool)", (
            "Return the 0-based position of the arrangement `choice` among all len(choice)-item permutations of `pool`, in standard order.",
            "A race with runners `pool` lists all possible podiums of len(choice) places in standard permutation order. Return the position of the podium `choice`.",
        ), _perm_of),
        S("nth_product", "meal_at", "index options", "return list({nth_product}(index, *options))", (
            "Return the element at position `index` of the Cartesian product of the lists in `options`, as a list.",
            "A menu lists all meals (one item per course in `options`) in nested-loop order. Return meal number `index` (0-based).",
        ), _nth_product),
        S("nth_permutation", "podium_at", "pool size index", "return list({nth_permutation}(pool, size, index))", (
            "Return the permutation of `size` items of `pool` at 0-based position `index` in standard permutation order, as a list.",
            "All podiums of `size` places from the runners `pool` are numbered in standard order. Return podium number `index`.",
        ), _nth_perm),
        S("nth_combination", "draw_at", "pool size index", "return list({nth_combination}(pool, size, index))", (
            "Return the `size`-item combination of `pool` at 0-based position `index` in standard combination order, as a list.",
            "A lottery numbers the draws of `size` balls from `pool` in standard order. Return draw number `index` as a list of balls.",
        ), _nth_comb),
        S("nth_combination_with_replacement", "cup_at", "pool size index", "return list({nth_combination_with_replacement}(pool, size, index))", (
            "Return the `size`-item combination with repetition of `pool` at 0-based position `index` in standard order, as a list.",
            "An ice-cream shop numbers every cup of `size` scoops from the flavours `pool` (repeats allowed). Return cup number `index`.",
        ), _nth_combr),
        S("gray_product", "one_step_grid", "left right", "return [list(t) for t in {gray_product}(left, right)]", (
            "List all pairs [a, b] with a from `left` and b from `right` in an order where consecutive pairs differ in exactly one position (a reflected Gray-code order). Return the pairs.",
            "A tester visits every combination of a setting from `left` and one from `right`, changing only one setting between consecutive visits, in Gray-code order. Return the visited pairs.",
        ), lambda r, i: {"left": distinct(r, r.randint(2, 3), 0, 9), "right": distinct(r, r.randint(2, 3), 10, 19)}),
    ]
