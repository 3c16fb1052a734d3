"""Multi-function tasks: pipelines of two or three functions (group -> summarise, deduplicate -> take,
flatten -> regroup, factor -> count, ...). Keys are "mitpipe.<family>.<variant>": the builder assigns a
whole family to train or to the multi-function test split."""

from __future__ import annotations

from sebench.libraries.more_itertools.families.common import G, I, L, T, distinct, ints


def P(family: str, tag: str, entry: str, params: str, body: str, texts: tuple[str, ...], gen):
    return T(f"mitpipe.{family}.{tag}", entry, params, body, texts, gen)


def _sized(r, i):
    values = ints(r, i, 0, 20, (2, 12), empty=False)
    return {"values": values, "size": r.randint(1, max(1, len(values) // 2))}


def _nested(r, i, depth=0):
    return [(_nested(r, i, depth + 1) if depth < 2 and r.random() < 0.35 else r.randint(-6, 9))
            for _ in range(r.randint(1, 4))]


def _lists(r, i):
    return {"lists": [ints(r, 1, 0, 9, (0, 4)) for _ in range(r.randint(1, 3))], "size": r.randint(1, 3)}


def templates() -> list:
    return [
        # ---- group into blocks, then summarise the blocks
        P("blocks", "best", "best_block", "values size", "totals = [sum(c) for c in {chunked}(values, size)]\nreturn {argmax}(totals)", (
            "A courier groups the parcel weights `values` into consecutive loads of `size` parcels (the last load may be lighter). Return the 0-based number of the heaviest load (the first one on ties).",
            "Cut `values` into consecutive blocks of `size` items (last block possibly shorter), total each block, and return the index of the largest total, earliest on ties.",
        ), _sized),
        P("blocks", "range", "load_range", "values size", "return list({minmax}(sum(c) for c in {chunked}(values, size)))", (
            "Split the shift hours `values` into consecutive weeks of `size` shifts (the last week may be shorter) and return [smallest weekly total, largest weekly total].",
            "Group `values` into consecutive chunks of `size` items, sum every chunk, and return a two-item list with the minimum and the maximum of these sums.",
        ), _sized),
        P("blocks", "lightest", "lightest_share", "values n", "return {argmin}([sum(p) for p in {divide}(n, values)])", (
            "Split the ordered jobs `values` into `n` consecutive parts of nearly equal length (earlier parts get the extra items) and return the index of the part with the smallest total (earliest on ties).",
            "Divide `values` into `n` contiguous near-equal parts (the first parts are longer when uneven; parts may be empty), sum each part, and return the position of the smallest sum, the first on ties.",
        ), G(values=L(0, 20, (1, 10), empty=False), n=I(1, 4))),
        # ---- windows over a series
        P("windows", "alarm", "first_busy_window", "values size limit", "return {first_true}((sum(w) for w in {sliding_window}(values, size)), -1, lambda s: s > limit)", (
            "A server logs requests per minute in `values`. Find the first window of `size` consecutive minutes whose total exceeds `limit` and return that total, or -1 if none does.",
            "Compute the sums of all runs of `size` adjacent items of `values`, left to right, and return the first sum greater than `limit` (-1 when there is none).",
        ), G(values=L(0, 9, (1, 10), empty=False), size=I(1, 3), limit=I(5, 20))),
        P("windows", "rises", "rise_positions", "values", "return list({locate}({pairwise}(values), lambda p: p[1] > p[0]))", (
            "A share price series `values` is checked day by day: return the 0-based indices k at which the price rises from day k to day k + 1.",
            "Look at every pair of neighbours (values[k], values[k + 1]) and return the indices k where the second is larger than the first, ascending.",
        ), G(values=L(0, 9, (0, 10)))),
        P("windows", "fresh", "distinct_windows", "values size", "return {quantify}({sliding_window}(values, size), {all_unique})", (
            "A password checker looks at every run of `size` consecutive character codes in `values` and counts the runs whose codes are all different. Return that count.",
            "Count how many windows of `size` adjacent items of `values` contain no repeated item. Return the count.",
        ), G(values=L(0, 5, (1, 10), empty=False), size=I(2, 4))),
        # ---- deduplicate, then count or take
        P("dedupe", "take", "first_distinct", "values k", "return list({take}(k, {unique_everseen}(values)))", (
            "A museum log `values` lists visitor badge numbers; return the first `k` different badges in order of first appearance (fewer if there are fewer).",
            "Drop repeated items of `values` (keeping first occurrences) and return the first `k` items of what remains.",
        ), G(values=L(0, 9, (0, 12)), k=I(1, 5))),
        P("dedupe", "runs", "count_runs", "values", "return {ilen}({unique_justseen}(values))", (
            "A traffic light logs its colour code every second in `values`. Return how many times the colour was set, counting each run of equal consecutive codes once.",
            "Return the number of maximal runs of equal adjacent items in `values` (0 for an empty list).",
        ), G(values=L(0, 2, (0, 12)))),
        P("dedupe", "repeaters", "repeated_once_each", "values", "return list({unique_everseen}({duplicates_everseen}(values)))", (
            "Return each value that occurs more than once in `values`, listed once, in the order in which it is first repeated.",
            "A teacher finds pupils who handed in homework more than once: from the submission list `values`, return every repeated pupil id once, in order of their second submission.",
        ), G(values=L(0, 6, (0, 12)))),
        # ---- flatten, then regroup or summarise
        P("nested", "regroup", "flat_then_rows", "nested size", "return [list(c) for c in {chunked}({collapse}(nested), size)]", (
            "An arbitrarily nested list of scores `nested` is flattened into reading order and then laid out in rows of `size` scores (the last row may be shorter). Return the rows.",
            "Flatten `nested` completely, then cut the flat sequence into consecutive lists of `size` items. Return the list of lists.",
        ), lambda r, i: {"nested": _nested(r, i), "size": r.randint(1, 3)}),
        P("nested", "energy", "flat_energy", "nested", "return {sum_of_squares}({collapse}(nested))", (
            "Return the sum of the squares of all integers in the arbitrarily nested list `nested`.",
            "A physics simulation stores particle charges in nested lists `nested` (any depth). Return the total of every charge squared.",
        ), lambda r, i: {"nested": _nested(r, i)}),
        P("nested", "distinct", "flat_distinct", "rows", "return list({unique}({flatten}(rows), reverse=True))", (
            "Each shelf in `rows` lists the book ids on it. Return every different id once, from the largest to the smallest.",
            "Concatenate the inner lists of `rows` and return the distinct values in descending order.",
        ), lambda r, i: {"rows": [ints(r, 1, 0, 9, (0, 4)) for _ in range(r.randint(1, 4))]}),
        # ---- splitting at markers, then measuring pieces
        P("pieces", "heaviest", "heaviest_piece", "values sep", "return {argmax}([sum(p) for p in {split_at}(values, lambda v: v == sep)])", (
            "A train manifest `values` separates wagons' cargo weights by the marker `sep`. Sum the weights of each wagon (markers excluded) and return the 0-based index of the heaviest wagon, the first on ties.",
            "Split `values` at every item equal to `sep` (dropping it), total each piece (an empty piece totals 0), and return the index of the largest total, earliest on ties.",
        ), G(values=L(0, 5, (1, 12), empty=False), sep=I(0, 1))),
        P("pieces", "runlengths", "run_length_range", "values", "return list({minmax}(len(p) for p in {split_when}(values, lambda a, b: b < a)))", (
            "A climber's altitude log `values` is cut into stretches that never go down (a new stretch starts at every drop). Return [shortest stretch length, longest stretch length].",
            "Split the non-empty `values` between neighbours x, y with y < x; return a list with the minimum and maximum length of the pieces.",
        ), G(values=L(0, 9, (1, 10), empty=False))),
        P("pieces", "starts", "block_starts", "values", "return [{first}(g) for g in {consecutive_groups}(values)]", (
            "A parking garage lists the free spaces `values` in increasing order. Return the first space number of every block of adjacent free spaces.",
            "For ascending distinct integers `values`, return the smallest number of each maximal run of consecutive integers.",
        ), lambda r, i: {"values": sorted(distinct(r, r.randint(1, 10), 0, 25))}),
        # ---- primes and factors
        P("primes", "largest", "largest_prime_below", "n", "return {last}({sieve}(n), -1)", (
            "Return the largest prime number strictly less than `n`, or -1 if there is none.",
            "A key generator needs the biggest prime below the limit `n` (-1 when no prime is that small). Return it.",
        ), G(n=I(0, 3000))),
        P("primes", "kinds", "distinct_prime_count", "n", "return {ilen}({unique_justseen}({factor}(n)))", (
            "Return how many different primes divide the positive integer `n` (0 for 1).",
            "A number-theory quiz asks for the count of distinct prime divisors of `n`. Return it.",
        ), G(n=I(1, 10000))),
        P("primes", "squarefree", "no_square_factor", "n", "return {all_unique}({factor}(n))", (
            "Return True if no prime divides the positive integer `n` twice (n is square-free), else False.",
            "A music theorist calls a beat count `n` clean when its prime factorisation has no repeated prime. Return whether `n` is clean.",
        ), G(n=I(1, 10000))),
        # ---- subsets and arrangements
        P("choices", "subsetsum", "subsets_with_total", "values target", "return {quantify}({powerset}(values), lambda s: sum(s) == target)", (
            "A shop has coins of the values `values` (each coin distinct). Count the subsets of coins, the empty one included, whose total is exactly `target`. Return the count.",
            "Return how many of the subsets of `values` (by position, the empty subset included) have a sum equal to `target`.",
        ), lambda r, i: {"values": ints(r, 1, 1, 6, (1, 6)), "target": r.randint(0, 10)}),
        P("choices", "anagrams", "anagram_count", "text", "return {ilen}({distinct_permutations}(text))", (
            "Return the number of distinct rearrangements of the letters of `text` (arrangements differing only by swapping equal letters count once), found by enumerating them.",
            "A word game counts all different anagrams of `text`, the word itself included. Return the count.",
        ), lambda r, i: {"text": "".join(r.choice("aabcd") for _ in range(r.randint(1, 6)))}),
        # ---- merge several sources, then regroup or deduplicate
        P("merge", "rounds", "fair_rounds", "lists size", "return [list(c) for c in {chunked}({roundrobin}(*lists), size)]", (
            "Job queues `lists` are served fairly, one job from each non-empty queue in turn, and the served jobs are packed into batches of `size` (the last batch may be smaller). Return the batches.",
            "Merge the lists in `lists` by visiting them cyclically (skipping exhausted ones), then cut the merged sequence into consecutive lists of `size` items. Return them.",
        ), _lists),
        P("merge", "firstseen", "merged_distinct", "lists", "return list({unique_everseen}({interleave_longest}(*lists)))", (
            "Several sensors in `lists` report ids; take one id from each sensor in turn (skipping sensors with nothing left) and return the ids in that order without repeats (first occurrence kept).",
            "Interleave the lists in `lists` one item at a time until all are used up, then remove repeated items keeping first occurrences. Return the result.",
        ), lambda r, i: {"lists": [ints(r, 1, 0, 6, (0, 4)) for _ in range(r.randint(1, 3))]}),
    ]
