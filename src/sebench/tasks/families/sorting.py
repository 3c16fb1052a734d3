"""Sorting, searching, counting and set operations."""

from __future__ import annotations

from sebench.tasks.families.common import T, g


def _distinct(r, n, lo=0, hi=999):
    return r.sample(range(lo, hi), n)


def _kth_gen(r, i):
    v = _distinct(r, r.randint(1, 9), 1, 500)
    return {"times": v, "k": r.randrange(len(v))}


def _sorted_gen(r, i):
    edges = sorted(_distinct(r, r.randint(1, 6), 0, 100))
    return {"thresholds": edges, "values": g.vec(r, r.randint(0 if i == 7 else 1, 6), -10, 110, 0)}


def _bins_gen(r, i):
    edges = sorted(_distinct(r, r.randint(2, 5), 0, 100))
    return {"ages": g.vec(r, r.randint(1, 8), 0, 110, 0), "edges": edges}


def _two_sets(r, i):
    return {"first": g.vec(r, r.randint(0 if i == 7 else 1, 8), 0, 15, 0),
            "second": g.vec(r, r.randint(1, 8), 0, 15, 0)}


def _complex_list(r, i):
    return {"poles": [complex(g.num(r, -3, 3, 0), g.num(r, -3, 3, 0)) for _ in range(r.randint(1, 6))]}


def templates():
    return [
        T("sort.ascending", "rank_times", "times", "return {sort}(times)",
          ("A race organiser has the finishing times `times` (flat list of seconds) in arrival-list order. Return them sorted from fastest to slowest (ascending).",
           "Return the values of the list `times` in ascending order, as a new flat list."),
          lambda r, i: {"times": g.vec1(r, i, 30, 99, 1, empty=True)}),
        T("sort.rows", "sort_each_row", "table", "return {sort}(table, axis=1)",
          ("A tournament sheet `table` has one row per player with the points from each round. Sort every row's points in ascending order independently and return the table.",
           "Return `table` (a list of rows) with the values inside each row sorted ascending."),
          lambda r, i: {"table": g.mat(r, r.randint(1, 4), r.randint(1, 5), 0, 50, 0)}),
        T("sort.columns", "sort_each_column", "table", "return {sort}(table, axis=0)",
          ("A lab records `table` with one column per experiment. Sort each column in ascending order (top to bottom), independently of the other columns, and return the table.",),
          lambda r, i: {"table": g.mat(r, r.randint(1, 4), r.randint(1, 4), 0, 50, 0)}),
        T("argsort.order", "finishing_order", "times", "return {argsort}(times, kind='stable')",
          ("Given the finishing times `times` of runners listed by bib position, return the bib positions (0-based indices) ordered from fastest to slowest; equal times keep their original order.",
           "Return the indices that would sort the list `times` ascending, keeping tied values in their original order (stable)."),
          lambda r, i: {"times": g.vec(r, r.randint(0 if i == 7 else 1, 8), 10, 30, 0)}),
        T("argsort.rows", "ranking_per_row", "table", "return {argsort}(table, axis=1, kind='stable')",
          ("A judging sheet `table` has one row per judge with scores for each contestant. For every judge, return the contestant indices ordered from lowest to highest score (ties keep index order).",),
          lambda r, i: {"table": g.mat(r, r.randint(1, 4), r.randint(1, 5), 0, 20, 0)}),
        T("partition.kth", "kth_fastest", "times k", "return {partition}(times, k)[k]",
          ("A coach wants the time that would be at position `k` (0-based) if the list `times` were sorted ascending, without fully sorting it. Return that time.",
           "Return the `k`-th smallest value (0-based: k = 0 is the minimum) of the list `times`."),
          _kth_gen),
        T("partition.split", "kth_split", "times k", "p = {partition}(times, k)\nreturn [p[k], len(p)]",
          ("A scheduler splits the job durations `times` around the one that ranks `k`-th (0-based) in ascending order. Return a list with that duration and the total number of jobs.",),
          _kth_gen),
        T("argpartition.kth", "kth_index", "times k", "return {argpartition}(times, k)[k]",
          ("The list `times` holds distinct response times of servers. Return the index (in `times`) of the server whose time ranks `k`-th smallest (0-based).",
           "Return the position in `times` of the element that would land at index `k` after an ascending sort (all values are distinct)."),
          _kth_gen),
        T("lexsort.names", "sort_by_two_keys", "surnames_rank ages", "return {lexsort}((ages, surnames_rank))",
          ("People are sorted primarily by `surnames_rank` (an integer code of their surname) and, for equal codes, by `ages`. Return the indices of the people in that order.",
           "Return the indices that sort records by the primary key `surnames_rank` and then by the secondary key `ages` (both ascending)."),
          lambda r, i: (lambda n: {"surnames_rank": g.vec(r, n, 0, 3, 0), "ages": g.vec(r, n, 18, 80, 0)})(r.randint(1, 8))),
        T("searchsorted.bands", "band_index", "thresholds values", "return {searchsorted}(thresholds, values)",
          ("A tariff uses ascending price limits `thresholds`. For each amount in `values`, return the index at which it would be inserted into `thresholds` to keep it sorted (before any equal limit).",
           "For every element of `values`, find its left insertion position in the sorted list `thresholds` and return the positions."),
          _sorted_gen),
        T("searchsorted.right", "rank_after", "thresholds values", "return {searchsorted}(thresholds, values, side='right')",
          ("A leaderboard keeps ascending cutoff scores `thresholds`. For each new score in `values`, return how many cutoffs are less than or equal to it (its right insertion position).",),
          _sorted_gen),
        T("sort_complex.poles", "order_poles", "poles", "return {sort_complex}(poles)",
          ("A control engineer lists system poles `poles` as complex numbers. Return them sorted by real part, then by imaginary part, as complex numbers.",
           "Sort the complex numbers `poles` lexicographically (real part first, imaginary part second) and return them."),
          _complex_list),
        T("digitize.ages", "age_group", "ages edges", "return {digitize}(ages, edges)",
          ("A survey groups respondents by age with the increasing bin edges `edges`. For each age in `ages` return the bin number: 0 if below the first edge, i if edges[i-1] <= age < edges[i], and len(edges) if at or above the last edge.",
           "Return, for each value of `ages`, the index of the bin it falls in given the ascending boundaries `edges` (bins include their left edge)."),
          _bins_gen),
        T("digitize.right", "bin_inclusive_right", "ages edges", "return {digitize}(ages, edges, right=True)",
          ("An insurance table groups ages with ascending limits `edges`, where each bin includes its right edge: bin i means edges[i-1] < age <= edges[i]. Return the bin index of every age in `ages`.",),
          _bins_gen),
        T("unique.values", "distinct_codes", "codes", "return {unique}(codes)",
          ("A shop's transaction log lists product codes `codes` with repeats. Return the distinct codes in ascending order.",
           "Return the sorted list of distinct values that appear in `codes`."),
          lambda r, i: {"codes": g.vec(r, r.randint(0 if i == 7 else 1, 10), 0, 9, 0)}),
        T("unique.counts", "code_frequencies", "codes", "return {unique}(codes, return_counts=True)",
          ("A quality inspector logs defect codes `codes`. Return two lists: the distinct codes in ascending order and how many times each occurs.",
           "Return [distinct sorted values of `codes`, number of occurrences of each]."),
          lambda r, i: {"codes": g.vec(r, r.randint(1, 10), 0, 6, 0)}),
        T("unique.first", "first_seen", "codes", "return {unique}(codes, return_index=True)[1]",
          ("For the visitor ids `codes` (in arrival order), return, for each distinct id in ascending order, the position of its first visit.",),
          lambda r, i: {"codes": g.vec(r, r.randint(1, 10), 0, 6, 0)}),
        T("intersect1d.common", "common_members", "first second", "return {intersect1d}(first, second)",
          ("Two clubs have member ids `first` and `second` (lists, maybe with repeats). Return the sorted ids that belong to both clubs, each once.",
           "Return the sorted unique values present in both `first` and `second`."),
          _two_sets),
        T("union1d.all", "all_members", "first second", "return {union1d}(first, second)",
          ("Two mailing lists hold subscriber ids `first` and `second`. Return every id that is on at least one list, sorted and without repeats.",
           "Return the sorted union of the values of `first` and `second` (each value once)."),
          _two_sets),
        T("bincount.votes", "tally_votes", "votes", "return {bincount}(votes)",
          ("An election records each ballot as a candidate number (0, 1, 2, ...) in `votes`. Return a list whose entry c is the number of ballots for candidate c, up to the highest candidate number that received a vote.",
           "Count how often each non-negative integer 0..max(votes) occurs in `votes` and return the counts as a list."),
          lambda r, i: {"votes": g.vec(r, r.randint(1, 12), 0, 6, 0)}),
        T("bincount.weights", "revenue_per_product", "product sales", "return {bincount}(product, weights=sales)",
          ("A till records, for every sale, the product number `product` (0, 1, 2, ...) and the amount `sales`. Return the total amount per product number from 0 up to the largest product number, as floats.",),
          lambda r, i: (lambda n: {"product": g.vec(r, n, 0, 4, 0), "sales": g.vec(r, n, 1, 50, 2)})(r.randint(1, 8))),
        T("bincount.minlength", "tally_with_minimum", "votes slots", "return {bincount}(votes, minlength=slots)",
          ("A poll with at least `slots` answer options records the chosen option number of every respondent in `votes`. Return the count per option as a list of length max(slots, highest option + 1).",),
          lambda r, i: {"votes": g.vec(r, r.randint(0, 8), 0, 5, 0), "slots": r.randint(1, 8)}),
        T("histogram.bins", "score_histogram", "scores bins", "return {histogram}(scores, bins)",
          ("A teacher draws a histogram of exam `scores` with `bins` equal-width bins spanning the lowest to the highest score. Return [counts per bin, bin edges] (the last bin includes its right edge).",
           "Return the histogram of `scores` with `bins` equal-width bins over the data range: a list [counts, edges]."),
          lambda r, i: {"scores": g.vec(r, r.randint(1, 12), 0, 100, 0), "bins": r.randint(1, 5)}),
        T("histogram.edges", "bucket_counts", "waits edges", "return {histogram}(waits, edges)[0]",
          ("A call centre buckets waiting times `waits` by the ascending bucket edges `edges`. Return the number of waits in each bucket (a bucket includes its left edge; the last one also its right edge).",),
          lambda r, i: {"waits": g.vec(r, r.randint(1, 12), 0, 60, 0), "edges": sorted(_distinct(r, r.randint(2, 5), 0, 61))}),
    ]
