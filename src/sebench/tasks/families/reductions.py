"""Reductions over a table (overall, per row, per column) and running accumulations."""

from __future__ import annotations

from sebench.tasks.families.common import T, g, rotate

# (parameter, sentence, row word, column word, value range (lo, hi, decimals))
TABLES = [
    ("scores", "A teacher keeps exam scores in `scores`, a list of rows: one row per student, one column per exam.", "student", "exam", (0, 100, 0)),
    ("sales", "A retail chain records monthly sales (in thousands) in `sales`: one row per store, one column per month.", "store", "month", (0, 50, 1)),
    ("temps", "A climate lab stores hourly temperatures in `temps`: each row is one sensor, each column one hour.", "sensor", "hour", (-15, 35, 1)),
    ("image", "A grayscale image is given as `image`, a list of pixel rows with intensities.", "pixel row", "pixel column", (0, 255, 0)),
    ("laps", "A running club logs lap times in seconds in `laps`: one row per runner, one column per lap.", "runner", "lap", (55, 95, 1)),
    ("usage", "A data centre measures CPU load percentages in `usage`: one row per server, one column per minute.", "server", "minute", (0, 100, 1)),
]
FLAGS = [
    ("attended", "A school stores attendance as 0/1 values in `attended`: one row per student, one column per day (1 = present).", "student", "day", (0, 1, 0)),
    ("passed", "A test suite records results as 0/1 values in `passed`: one row per build, one column per test (1 = passed).", "build", "test", (0, 1, 0)),
    ("occupied", "A parking garage logs 0/1 occupancy in `occupied`: one row per level, one column per space (1 = car present).", "level", "space", (0, 1, 0)),
]
SMALL = [
    ("factors", "A biologist records daily growth factors of cultures in `factors`: one row per culture, one column per day.", "culture", "day", (0.5, 1.5, 2)),
    ("returns", "An investor keeps monthly gross returns (1.02 means +2%) in `returns`: one row per fund, one column per month.", "fund", "month", (0.9, 1.1, 2)),
]

# name: (description, tables, output description for one number)
REDUCE = {
    "sum": ("the total", TABLES, "number"),
    "prod": ("the product of the values", SMALL, "float"),
    "mean": ("the average", TABLES, "float"),
    "median": ("the median", TABLES, "float"),
    "std": ("the population standard deviation (dividing by the number of values)", TABLES, "float"),
    "var": ("the population variance (dividing by the number of values)", TABLES, "float"),
    "max": ("the largest value", TABLES, "number"),
    "amax": ("the maximum", TABLES, "number"),
    "min": ("the smallest value", TABLES, "number"),
    "amin": ("the minimum", TABLES, "number"),
    "ptp": ("the spread (largest value minus smallest value)", TABLES, "number"),
    "argmax": ("the 0-based position of the largest value (the first one when tied)", TABLES, "integer"),
    "argmin": ("the 0-based position of the smallest value (the first one when tied)", TABLES, "integer"),
    "count_nonzero": ("the number of nonzero entries", FLAGS, "integer"),
    "all": ("whether every entry is nonzero (True or False)", FLAGS, "boolean"),
    "any": ("whether at least one entry is nonzero (True or False)", FLAGS, "boolean"),
}
ACCUMULATE = {
    "cumsum": ("the running totals", TABLES),
    "cumprod": ("the running products", SMALL),
}


def _table_gen(param, rng_spec, nan=False):
    lo, hi, dec = rng_spec
    flags = (lo, hi, dec) == (0, 1, 0)

    def gen(r, i):
        rows, cols = (1, r.randint(1, 6)) if i == 5 else (r.randint(1, 5), r.randint(1, 6))
        if i == 6:
            rows, cols = r.randint(2, 5), 1
        if flags and i % 4 in (1, 2):  # all-zero and all-one tables, so that every answer occurs
            return {param: [[i % 4 - 1] * cols for _ in range(rows)]}
        return {param: g.mat(r, rows, cols, lo, hi, dec)}

    return gen


def _reduce_templates():
    out = []
    for name, (desc, tables, one) in REDUCE.items():
        tables = rotate(tables, name)
        variants = [
            ("overall", "", "Return {desc} over all entries of the table as a single {one}."),
            ("rows", ", axis=1", "Return {desc} for each {row}, as a list with one {one} per {row}."),
            ("cols", ", axis=0", "Return {desc} for each {col} (computed down the columns), as a list with one {one} per {col}."),
        ]
        if name in ("argmax", "argmin"):
            variants[0] = ("overall", "", "Return {desc} over the whole table read row by row (as if flattened), as a single integer.")
        for k, (tag, axis, ask) in enumerate(variants):
            p, sentence, row, col, spec = tables[k % len(tables)]
            entry = _entry(name, tag, p, row, col)
            text = f"{sentence} {ask.format(desc=desc, one=one, row=row, col=col)}"
            out.append(T(f"{name}.reduce.{tag}", entry, (p,), f"return {{{name}}}({p}{axis})", text,
                         _table_gen(p, spec)))
    for name, (desc, tables) in ACCUMULATE.items():
        tables = rotate(tables, name)
        variants = [
            ("rows", ", axis=1", "For each {row}, return {desc} along its row (same shape as the input table)."),
            ("cols", ", axis=0", "Return {desc} down each column, for each {col} separately (same shape as the input table)."),
            ("flat", "", "Read the table row by row as one long sequence and return {desc} as a flat list."),
        ]
        for k, (tag, axis, ask) in enumerate(variants):
            p, sentence, row, col, spec = tables[k % len(tables)]
            text = f"{sentence} {ask.format(desc=desc, row=row, col=col)}"
            out.append(T(f"{name}.accumulate.{tag}", _entry(name, tag, p, row, col), (p,),
                         f"return {{{name}}}({p}{axis})", text, _table_gen(p, spec)))
    return out


STEMS = {
    "sum": "total", "prod": "compound", "mean": "average", "median": "middle", "std": "spread_sd",
    "var": "variability", "max": "peak", "amax": "highest", "min": "lowest", "amin": "floor_value",
    "ptp": "value_range", "argmax": "best_position", "argmin": "worst_position", "count_nonzero": "count_marked",
    "all": "all_marked", "any": "some_marked", "cumsum": "running_total", "cumprod": "running_growth",
}


def _entry(name, tag, p, row, col):
    stem = STEMS[name]
    if tag == "rows":
        return f"{stem}_per_{row.replace(' ', '_')}"
    if tag == "cols":
        return f"{stem}_per_{col.replace(' ', '_')}"
    return f"{stem}_of_{p}"


def _extra_templates():
    def weights_gen(r, i):
        n = r.randint(1, 6)
        return {"grades": g.vec(r, n, 40, 100, 0), "credits": g.vec(r, n, 1, 6, 0)}

    def table_weights(r, i):
        rows, cols = r.randint(1, 4), r.randint(1, 5)
        return {"ratings": g.mat(r, rows, cols, 1, 5, 0), "weights": g.vec(r, cols, 1, 10, 0)}

    def q_gen(lo, hi, dec, qlo, qhi, qdec):
        def gen(r, i):
            data = g.vec1(r, i, lo, hi, dec, empty=False, n=(1, 9))
            return {"values": data, "q": g.num(r, qlo, qhi, qdec)}
        return gen

    def q_table(r, i):
        return {"times": g.mat(r, r.randint(1, 4), r.randint(1, 6), 1, 60, 1), "q": g.num(r, 0, 1, 2)}

    return [
        T("average.weighted_gpa", "grade_point_average", "grades credits",
          "return {average}(grades, weights=credits)",
          ("A university computes a weighted grade average: `grades` holds a student's course grades and `credits` the credit points of those courses (same length, all positive). Return the credit-weighted average grade as a float.",
           "Course marks `grades` count in proportion to their credit hours `credits`. Write a function that returns the weighted mean of the marks (each mark weighted by its credits) as one float."),
          weights_gen),
        T("average.weighted_columns", "weighted_rating", "ratings weights",
          "return {average}(ratings, axis=1, weights=weights)",
          ("A product review site stores `ratings` as rows (one per product) of scores given by several critics (one column per critic); `weights` gives each critic's influence. Return, for each product, the weighted average of its scores, as a list of floats.",),
          table_weights),
        T("average.plain", "mean_basket_price", "baskets",
          "return {average}(baskets, axis=0)",
          ("A supermarket stores basket totals in `baskets`: one row per day, one column per checkout lane. Return the (unweighted) average basket total of each lane, as a list of floats.",),
          _table_gen("baskets", (5, 120, 2))),
        T("percentile.latency", "latency_percentile", "values q",
          "return {percentile}(values, q)",
          ("A web service records request latencies in milliseconds in `values`. Return the `q`-th percentile of the latencies (q between 0 and 100), using linear interpolation between data points, as a float.",
           "`values` holds the waiting times of customers in a queue and `q` is a percentage between 0 and 100. Return the value below which `q` percent of the waiting times fall (linear interpolation between sorted values), as a float."),
          q_gen(1, 500, 1, 0, 100, 0)),
        T("percentile.rows", "row_percentile", "times q",
          "return {percentile}(times, q * 100, axis=1)",
          ("A swim coach stores split times in `times`: one row per swimmer. Given a fraction `q` between 0 and 1, return for each swimmer the percentile at `q` times 100 percent of their split times (linear interpolation), as a list of floats.",),
          q_table),
        T("quantile.sensor", "reading_quantile", "values q",
          "return {quantile}(values, q)",
          ("A sensor network collects readings in `values`. Return the quantile at level `q` (a fraction between 0 and 1) of the readings, interpolating linearly between sorted values, as a float.",
           "Given house prices `values` and a probability `q` in [0, 1], return the price such that a fraction `q` of the prices lie below it (linear interpolation between order statistics), as a float."),
          q_gen(-50, 50, 2, 0, 1, 2)),
        T("quantile.columns", "column_quantile", "times q",
          "return {quantile}(times, q, axis=0)",
          ("A bus company logs trip durations in minutes in `times`: one row per day, one column per route. Return, for each route, the quantile at level `q` (fraction between 0 and 1, linear interpolation) of its durations, as a list of floats.",),
          q_table),
    ]


def templates():
    return _reduce_templates() + _extra_templates()
