"""Combining: flattening, interleaving, zipping, sorting together, matrices and products."""

from __future__ import annotations

from sebench.libraries.more_itertools.families.common import G, I, L, S, ints


def _nested(r, i, depth=0):
    out = []
    for _ in range(r.randint(0 if i == 0 and depth == 0 else 1, 3)):
        if depth < 3 and r.random() < 0.4:
            out.append(_nested(r, 1, depth + 1))
        else:
            out.append(r.randint(0, 9))
    return out


def _rows(r, i):
    return {"rows": [ints(r, 1, 0, 9, (0, 3)) for _ in range(r.randint(0 if i == 0 else 1, 4))]}


def _lists(r, i):
    return {"lists": [ints(r, 1, 0, 9, (0, 4)) for _ in range(r.randint(1, 3))]}


def _pair(equal=False):
    def gen(r, i):
        a = ints(r, i, 0, 9, (0, 6))
        b = [r.randint(10, 19) for _ in range(len(a) if equal else r.randint(0, 6))]
        return {"left": a, "right": b}
    return gen


def _matrix(rows, cols, lo=-3, hi=3):
    return lambda r: [[r.randint(lo, hi) for _ in range(cols)] for _ in range(rows)]


def _matmul(r, i):
    n, k, m = r.randint(1, 3), r.randint(1, 3), r.randint(1, 3)
    return {"a": _matrix(n, k)(r), "b": _matrix(k, m)(r)}


def _table(r, i):
    rows, cols = r.randint(1, 4), r.randint(1, 4)
    return {"rows": _matrix(rows, cols, 0, 9)(r)}


def _reshape(r, i):
    rows, cols = r.randint(1, 4), r.randint(1, 4)
    total = rows * cols
    new = r.choice([d for d in range(1, total + 1) if total % d == 0])
    return {"rows": _matrix(rows, cols, 0, 9)(r), "cols": new}


def _vectors(r, i):
    n = r.randint(0 if i == 0 else 1, 6)
    return {"left": [r.randint(-5, 5) for _ in range(n)], "right": [r.randint(-5, 5) for _ in range(n)]}


def _ranked(r, i):
    names = r.sample(("ana", "ben", "cai", "dev", "eli", "fay", "gus", "hal"), r.randint(1, 6))
    return {"names": names, "scores": r.sample(range(0, 100), len(names))}


def _mappings(r, i):
    keys = r.sample(("ana", "ben", "cai", "dev", "eli"), r.randint(1, 4))
    return {"products": keys, "prices": [r.randint(1, 9) for _ in keys], "stock": [r.randint(0, 5) for _ in keys]}


def _label(r, i):
    return r.choice(("tag", "id", "x", "unit", "kg"))


def templates() -> list:
    return [
        S("collapse", "flatten_all", "nested", "return list({collapse}(nested))", (
            "An org chart is given as arbitrarily nested lists of employee ids `nested`. Return all ids in one flat list, in reading order.",
            "Flatten `nested`, a list that may contain lists inside lists to any depth, into a single list of its integers, left to right.",
        ), lambda r, i: {"nested": _nested(r, i)}),
        S("flatten", "join_rows", "rows", "return list({flatten}(rows))", (
            "A seating plan `rows` lists each row's seat numbers; return all seat numbers in one list, row after row.",
            "Concatenate the inner lists of `rows` (one level of nesting only) into one list.",
        ), _rows),
        S("interleave", "alternate_short", "lists", "return list({interleave}(*lists))", (
            "Take one item from each list in `lists` in turn (first items of all lists, then second items, ...) and stop as soon as any list runs out. Return the merged list.",
            "Several DJs in `lists` alternate songs in a fixed order until one DJ has no more songs; then the set ends. Return the played songs.",
        ), _lists),
        S("interleave_longest", "alternate_all", "lists", "return list({interleave_longest}(*lists))", (
            "Merge the lists in `lists` by taking one item from each in turn, skipping lists that are used up, until all items are taken. Return the merged list.",
            "Card players in `lists` lay down their cards one at a time in turn; a player who has no cards left is skipped. Return the order in which all cards are laid down.",
        ), _lists),
        S("roundrobin", "fair_queue", "lists", "return list({roundrobin}(*lists))", (
            "A print server serves the job queues `lists` fairly: one job from each queue in turn, skipping empty queues, until none are left. Return the job order.",
            "Return all items of the lists in `lists`, visiting the lists cyclically and taking one item per visit (exhausted lists are dropped from the cycle).",
        ), _lists),
        S("interleave_evenly", "spread_evenly", "left right", "return list({interleave_evenly}([left, right]))", (
            "Merge `left` and `right` (keeping each one's order) so that the items of each list are spread as evenly as possible over the merged sequence. Return it.",
            "A radio station mixes the songs `left` with the adverts `right` so that both are distributed evenly over the programme, each in its own order. Return the programme.",
        ), _pair()),
        S("zip_offset", "lagged_pairs", "values lag", "return [list(t) for t in {zip_offset}(values, values, offsets=(0, lag))]", (
            "Pair every reading of `values` with the reading `lag` positions later, as [reading, later reading], stopping when the later one runs out.",
            "Zip `values` with itself shifted forward by `lag` positions (item k with item k + `lag`), and return the pairs as lists.",
        ), G(values=L(0, 9, (0, 8)), lag=I(0, 3))),
        S("zip_broadcast", "label_all", "label values", "return [list(t) for t in {zip_broadcast}(label, values)]", (
            "Attach the tag string `label` to every value of `values`, returning [label, value] pairs; the string is used whole for every pair, not split into characters.",
            "Zip the scalar `label` (a string) with the list `values`, repeating the scalar alongside each item. Return the pairs as lists.",
        ), G(label=_label, values=L(0, 9, (1, 6), empty=False))),
        S("unzip", "split_pairs", "pairs", "return [list(part) for part in {unzip}(pairs)]", (
            "A list of [x, y] points `pairs` must be turned into two lists: all x values and all y values. Return [xs, ys] (an empty input gives an empty list).",
            "Undo a zip: given `pairs` (lists of two items), return the list of first items and the list of second items, as a list of those lists.",
        ), lambda r, i: {"pairs": [[r.randint(0, 9), r.randint(10, 19)] for _ in range(r.randint(0 if i == 0 else 1, 6))]}),
        S("sort_together", "rank_names", "names scores", "return [list(x) for x in {sort_together}([names, scores], key_list=(1,), reverse=True)]", (
            "A contest has the contestants `names` and their distinct `scores` (same positions). Sort both lists together by score, highest first, and return [sorted names, sorted scores].",
            "Sort the parallel lists `names` and `scores` by the values of `scores`, descending, moving the names along. Return the two reordered lists.",
        ), _ranked),
        S("join_mappings", "merge_tables", "products prices stock",
          "table = {join_mappings}(price=dict(zip(products, prices)), stock=dict(zip(products, stock)))\n"
          "return sorted([k, v['price'], v['stock']] for k, v in table.items())", (
            "A shop keeps two dicts keyed by the product names `products`: one from product to price (`prices`, same order) and one from product to stock (`stock`). Build both dicts, join them into one record per product with the fields 'price' and 'stock', and return [product, price, stock] rows sorted by product.",
            "Make the mappings product -> price and product -> stock from the parallel lists `products`, `prices` and `stock`, then combine them into a mapping from each product to a dict with the fields 'price' and 'stock'. Return a sorted list of [product, price, stock].",
        ), _mappings),
        S("partial_product", "one_change_at_a_time", "left right", "return [list(t) for t in {partial_product}(left, right)]", (
            "Start from the first items of `left` and `right`, then advance through `left`'s remaining items one at a time, then through `right`'s, keeping the other value fixed. Return each visited pair as a list.",
            "A tuning script changes one knob at a time: knob A takes the values `left`, knob B the values `right` (both non-empty). Return the settings visited, [a, b] each, starting from both first values.",
        ), lambda r, i: {"left": ints(r, 1, 0, 9, (1, 4)), "right": ints(r, 1, 10, 19, (1, 4))}),
        S("outer_product", "times_table", "left right", "return [list(row) for row in {outer_product}(lambda x, y: x * y, left, right)]", (
            "Build a multiplication table: row k, column j holds left[k] * right[j]. Return the rows as lists.",
            "A pricing grid has base prices `left` (rows) and multipliers `right` (columns); every cell is their product. Return the grid.",
        ), lambda r, i: {"left": ints(r, 1, 1, 9, (1, 4)), "right": ints(r, 1, 1, 9, (1, 4))}),
        S("dotproduct", "weighted_total", "left right", "return {dotproduct}(left, right)", (
            "Return the sum of the products left[k] * right[k] for the equally long lists `left` and `right`.",
            "A cash register multiplies quantities `left` by unit prices `right` and adds up all products. Return the total.",
        ), _vectors),
        S("transpose", "columns", "rows", "return [list(c) for c in {transpose}(rows)]", (
            "A table `rows` (equal-length rows) must be flipped so that its columns become rows. Return the columns as lists.",
            "Return the transpose of the rectangular list of rows `rows`, as a list of lists.",
        ), _table),
        S("reshape", "regrid", "rows cols", "return [list(r) for r in {reshape}(rows, cols)]", (
            "Read the rectangular table `rows` row by row and lay its values out again in rows of `cols` values each. Return the new rows.",
            "A photo grid `rows` is rearranged into rows of `cols` photos, keeping the reading order of all photos. Return the rearranged grid.",
        ), _reshape),
        S("matmul", "matrix_product", "a b", "return [list(r) for r in {matmul}(a, b)]", (
            "Multiply the matrix `a` (a list of rows) by the matrix `b`, whose row count equals `a`'s column count. Return the product's rows.",
            "A factory's weekly orders per product `a` times the parts needed per product `b` gives the parts per week: return this matrix product as rows.",
        ), _matmul),
        S("convolve", "smooth", "signal kernel", "return list({convolve}(signal, kernel))", (
            "Return the full discrete convolution of `signal` with `kernel` (length len(signal) + len(kernel) - 1).",
            "An audio filter convolves the samples `signal` with the impulse response `kernel`, keeping all output positions. Return the output samples.",
        ), lambda r, i: {"signal": ints(r, 1, -5, 5, (1, 6)), "kernel": ints(r, 1, -2, 2, (1, 3))}),
    ]
