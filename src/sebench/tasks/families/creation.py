"""Creating arrays: ranges, grids, constant tables, identity-like matrices, conversions."""

from __future__ import annotations

from sebench.tasks.families.common import T, g


def _ints(**spec):
    """gen returning ints for each name: spec = {name: (lo, hi)}."""
    return lambda r, i: {k: r.randint(lo, hi) for k, (lo, hi) in spec.items()}


def _arange_gen(r, i):
    start = r.randint(0, 30)
    return {"start": start, "stop": start + r.randint(1, 90), "step": r.randint(3, 20)}


def _float_range(r, i):
    start = g.num(r, -2, 2, 1)
    return {"t0": start, "t1": round(start + g.num(r, 0.5, 4, 1), 1), "dt": r.choice([0.25, 0.5, 0.75, 1.0])}


def _space_gen(r, i):
    lo = g.num(r, -20, 20, 0)
    return {"start": lo, "stop": lo + r.randint(-10, 40), "num": r.randint(0 if i == 7 else 1, 9)}


def _geo_gen(r, i):
    lo = g.num(r, 1, 50, 0)
    return {"low": lo, "high": lo * r.randint(2, 40), "n": r.randint(2, 7)}


def _shape_gen(r, i):
    return {"rows": r.randint(0 if i == 7 else 1, 5), "cols": r.randint(1, 6)}


def _like_gen(lo=-9, hi=9, dec=1):
    return lambda r, i: {"grid": g.arr(r, i, lo, hi, dec, empty=True)}


def _vec_gen(name, lo, hi, dec, n=(1, 6)):
    return lambda r, i: {name: g.vec(r, r.randint(*n), lo, hi, dec)}


def _square_gen(name, lo=-9, hi=9):
    def gen(r, i):
        n = r.randint(1, 5)
        return {name: g.mat(r, n, n, lo, hi, 0)}
    return gen


def _scalar_or_list(r, i):
    if i % 3 == 0:
        return {"reading": g.num(r, -10, 10, 1)}
    return {"reading": g.arr(r, i, -10, 10, 1, empty=True)}


def templates():
    return [
        T("arange.buses", "departure_minutes", "start stop step", "return {arange}(start, stop, step)",
          ("A bus leaves the depot every `step` minutes, the first at minute `start`; departures must be strictly before minute `stop`. Return the list of departure minutes as integers (empty if none fits).",
           "A sprinkler runs at minute `start` and then every `step` minutes, as long as the minute is less than `stop`. Return all the minutes at which it runs, in increasing order, as a list of integers."),
          _arange_gen),
        T("arange.count", "seat_labels", "n", "return {arange}(n)",
          ("A cinema numbers the seats of a row from 0. Given the number of seats `n`, return the list of seat numbers 0, 1, ..., n-1 as integers (empty for n = 0).",
           "A test harness needs the consecutive run indices 0 to `n`-1 for `n` runs. Return them as a list of integers."),
          _ints(n=(0, 12))),
        T("arange.float_steps", "sample_instants", "t0 t1 dt", "return {arange}(t0, t1, dt)",
          ("An oscilloscope samples a signal from time `t0` (seconds) in increments of `dt`, stopping before time `t1`. Return the list of sampling times as floats (t1 itself excluded).",),
          _float_range),
        T("linspace.points", "evenly_spaced", "start stop num", "return {linspace}(start, stop, num)",
          ("A plotting tool needs `num` evenly spaced sample points from `start` to `stop`, both ends included. Return them as a list of floats (an empty list when `num` is 0).",
           "A teacher places `num` students evenly along a line from position `start` to position `stop` (both ends occupied when there are two or more). Return the positions as floats."),
          _space_gen),
        T("linspace.fence", "post_positions", "length posts", "return {linspace}(0, length, posts)",
          ("A fence of `length` metres needs `posts` posts, the first at 0 and the last at the far end, equally spaced. Return the post positions in metres as a list of floats.",),
          lambda r, i: {"length": g.num(r, 1, 100, 1), "posts": r.randint(2, 8)}),
        T("linspace.open", "slot_starts", "start stop num", "return {linspace}(start, stop, num, endpoint=False)",
          ("A conference day from time `start` to time `stop` (hours) is cut into `num` equal slots. Return the start time of each slot as a list of floats (the end time `stop` is not a start).",),
          lambda r, i: {"start": r.randint(7, 10), "stop": r.randint(12, 19), "num": r.randint(1, 8)}),
        T("logspace.freq", "log_frequencies", "lo_exp hi_exp num", "return {logspace}(lo_exp, hi_exp, num)",
          ("An audio analyser uses `num` test frequencies spaced evenly on a logarithmic scale from 10**`lo_exp` Hz to 10**`hi_exp` Hz (both included). Return them as a list of floats.",
           "A chemist prepares `num` dilutions whose concentrations run from 10 to the power `lo_exp` up to 10 to the power `hi_exp`, equally spaced in the exponent (both ends included). Return the concentrations as floats."),
          lambda r, i: {"lo_exp": r.randint(-2, 1), "hi_exp": r.randint(2, 4), "num": r.randint(1, 6)}),
        T("logspace.base2", "memory_sizes", "lo_exp hi_exp num", "return {logspace}(lo_exp, hi_exp, num, base=2)",
          ("A benchmark tests `num` buffer sizes from 2**`lo_exp` to 2**`hi_exp` bytes, with exponents evenly spaced (both ends included). Return the sizes as a list of floats.",),
          lambda r, i: {"lo_exp": r.randint(0, 4), "hi_exp": r.randint(5, 12), "num": r.randint(2, 8)}),
        T("geomspace.tiers", "price_tiers", "low high n", "return {geomspace}(low, high, n)",
          ("A shop wants `n` price tiers from `low` to `high` (both included) where each tier is the previous one times the same factor. Return the tiers as a list of floats.",
           "A photographer picks `n` exposure times forming a geometric progression from `low` to `high` milliseconds, both ends included. Return them as floats."),
          _geo_gen),
        T("zeros.ledger", "blank_ledger", "rows cols", "return {zeros}((rows, cols))",
          ("An accountant starts a new ledger with `rows` accounts and `cols` months, every cell 0.0. Return the table as a list of rows of floats.",
           "A game board of `rows` by `cols` cells starts empty, which the engine stores as 0.0 in every cell. Return the board as a nested list of floats."),
          _shape_gen),
        T("zeros.counter", "fresh_counters", "n", "return {zeros}(n, dtype=int)",
          ("A click tracker needs `n` counters, all starting at 0. Return them as a list of `n` integer zeros.",),
          _ints(n=(0, 12)), tries=40),
        T("ones.weights", "uniform_weights", "rows cols", "return {ones}((rows, cols))",
          ("A neural network layer initialises a `rows` by `cols` weight table with every weight equal to 1.0. Return it as a list of rows of floats.",
           "A survey gives every respondent (rows) and every question (columns) an initial weight of 1.0. For `rows` respondents and `cols` questions return that table of floats."),
          _shape_gen),
        T("ones.mask", "all_visible", "n", "return {ones}(n, dtype=bool)",
          ("A map renderer starts with all `n` layers visible. Return a list of `n` True values.",),
          _ints(n=(0, 12)), tries=40),
        T("full.grid", "filled_grid", "rows cols value", "return {full}((rows, cols), value)",
          ("A greenhouse controller sets every cell of a `rows` by `cols` heating grid to the same target temperature `value`. Return the grid as a list of rows.",
           "A spreadsheet macro fills a block of `rows` rows and `cols` columns with the constant `value`. Return the block as a nested list."),
          lambda r, i: {"rows": r.randint(1, 4), "cols": r.randint(1, 4), "value": g.num(r, -20, 40, 1)}),
        T("full.row", "default_prices", "n price", "return {full}(n, price)",
          ("A shop lists `n` new products, all at the introductory price `price`. Return the list of `n` prices.",),
          lambda r, i: {"n": r.randint(0, 7), "price": g.num(r, 1, 99, 2)}),
        T("identity.unit", "unit_transform", "n", "return {identity}(n)",
          ("A graphics engine starts every object with the `n` by `n` transformation that changes nothing: 1.0 on the main diagonal and 0.0 elsewhere. Return it as a list of rows of floats.",
           "Return the `n`x`n` identity matrix (ones on the diagonal, zeros elsewhere) as nested lists of floats, used by a solver as its starting guess."),
          _ints(n=(0, 9)), tries=40),
        T("eye.band", "offset_diagonal", "rows cols offset", "return {eye}(rows, cols, k=offset)",
          ("A scheduling table of `rows` days by `cols` shifts marks with 1.0 the cells on the diagonal that starts `offset` columns to the right of the top-left corner (a negative `offset` starts below it); all other cells are 0.0. Return the table as nested lists of floats.",
           "Build a `rows` by `cols` matrix of floats with ones on the `offset`-th diagonal (0 is the main diagonal, positive above it, negative below) and zeros elsewhere."),
          lambda r, i: {"rows": r.randint(1, 5), "cols": r.randint(1, 5), "offset": r.randint(-2, 2)}),
        T("eye.square", "identity_of_size", "n", "return {eye}(n)",
          ("A robotics library needs an `n` by `n` matrix with ones on its main diagonal and zeros elsewhere. Return it as nested lists of floats.",),
          _ints(n=(0, 9)), tries=40),
        T("tri.lower", "lower_mask", "n m k", "return {tri}(n, m, k)",
          ("A tournament table of `n` rows and `m` columns marks with 1.0 every cell on or below the `k`-th diagonal (k = 0 is the main diagonal, positive k moves it right) and 0.0 elsewhere. Return it as nested lists of floats.",
           "Return an `n` by `m` table of floats that is 1 at and below the diagonal shifted by `k` and 0 above it, as used for a cumulative-sum mask."),
          lambda r, i: {"n": r.randint(1, 5), "m": r.randint(1, 5), "k": r.randint(-1, 2)}),
        T("zeros_like.blank", "blank_copy", "grid", "return {zeros_like}(grid)",
          ("A photo editor makes a blank layer with the same shape and number type as the current layer `grid` (a list or a list of rows): every value is zero. Return it.",
           "Given measurements `grid` (a flat list or list of rows), return a structure of the same shape and type filled with zeros, to be used as an accumulator."),
          _like_gen()),
        T("ones_like.mask", "full_mask", "grid", "return {ones_like}(grid)",
          ("A masking tool needs a mask shaped like the data `grid` (a list or list of rows) and of the same number type, with every entry 1. Return it.",
           "For the price table `grid`, return a table of the same shape and number type where every entry is one (a neutral multiplier)."),
          _like_gen()),
        T("full_like.fill", "fill_like", "grid value", "return {full_like}(grid, value)",
          ("A data-cleaning step replaces a whole table `grid` of floats (a list or list of rows) with a constant `value`, keeping its shape. Return the new table of floats.",
           "Given a float layout `grid` (flat or nested list) and a default `value`, return a structure of the same shape in which every entry is `value`."),
          lambda r, i: {"grid": g.arr(r, i, -9, 9, 1, empty=True), "value": g.num(r, -5, 5, 1)}),
        T("diag.build", "diagonal_weights", "weights", "return {diag}(weights)",
          ("A portfolio model turns per-asset variances `weights` into a square table with these values on the main diagonal and zeros elsewhere. Return the table as nested lists.",
           "Given scaling factors `weights` (a flat list), return the square matrix that scales each coordinate by its factor: the factors on the diagonal, 0 elsewhere."),
          _vec_gen("weights", -9, 9, 1)),
        T("diag.extract", "diagonal_of", "table", "return {diag}(table)",
          ("A round-robin results table `table` is square: entry (i, j) is what team i scored against team j, and (i, i) holds each team's training score. Return the list of the (i, i) entries.",),
          _square_gen("table")),
        T("diag.offset", "superdiagonal", "table k", "return {diag}(table, k)",
          ("A transition table `table` (square, nested lists) holds rates between consecutive stations; the entries on the diagonal shifted by `k` (k = 0 is the main diagonal, k = 1 the one just above it, k = -1 the one just below) are the ones of interest. Return them as a list.",),
          lambda r, i: {"table": _square_gen("t")(r, i)["t"], "k": r.randint(-1, 2)}),
        T("diagflat.spread", "spread_on_diagonal", "values", "return {diagflat}(values)",
          ("Per-room heating demands `values` are given as a flat list or as a small table (read row by row). Return a square matrix with these demands, in that order, on its main diagonal and zeros elsewhere.",
           "Given `values` (a list or a list of rows), flatten it row by row and return the square matrix that has the flattened values along the diagonal and 0 everywhere else."),
          lambda r, i: {"values": g.arr(r, i, -9, 9, 0, empty=False, n=(1, 4))}),
        T("diagflat.offset", "shifted_diagonal", "values k", "return {diagflat}(values, k)",
          ("A banded-system builder places the coefficients `values` (a flat list) on the diagonal shifted by `k` (positive: above the main diagonal) of the smallest square matrix that fits them; all other entries are 0. Return that matrix.",),
          lambda r, i: {"values": g.vec(r, r.randint(1, 4), -9, 9, 0), "k": r.randint(-1, 2)}),
        T("meshgrid.xy", "coordinate_grids", "xs ys", "return {meshgrid}(xs, ys)",
          ("A heat-map plot needs coordinate grids: given x positions `xs` and y positions `ys`, return two tables [X, Y], each with one row per y value and one column per x value, where X repeats `xs` along every row and Y repeats each y value across its row.",
           "For a terrain sampler, return the pair of 2-D grids built from the x coordinates `xs` and y coordinates `ys` (Cartesian indexing: shape len(ys) by len(xs)); the first grid holds the x coordinate of every point, the second the y coordinate."),
          lambda r, i: {"xs": g.vec(r, r.randint(1, 4), 0, 9, 0), "ys": g.vec(r, r.randint(1, 3), 0, 9, 0)}),
        T("meshgrid.ij", "index_grids", "rows_at cols_at", "return {meshgrid}(rows_at, cols_at, indexing='ij')",
          ("A matrix-indexing tool needs, for row positions `rows_at` and column positions `cols_at`, two tables of shape len(rows_at) by len(cols_at): the first holds the row position of every cell, the second the column position. Return them as a list of two tables.",),
          lambda r, i: {"rows_at": g.vec(r, r.randint(1, 4), 0, 9, 0), "cols_at": g.vec(r, r.randint(1, 4), 0, 9, 0)}),
        T("array.ndmin", "table_shape", "reading", "return {shape}({array}(reading, ndmin=2))",
          ("A data importer turns `reading` (a number, a flat list or a list of rows) into an array with at least two dimensions (a flat list becomes a single row). Return the shape of that array as a list of two integers.",),
          _scalar_or_list, tags=("train", "ctor")),
        T("array.truncate_total", "whole_total", "values", "return {sum}({array}(values, dtype=int))",
          ("A cashier converts the amounts `values` (flat list of floats) into an integer array, which drops the fractional parts, and returns the total of those whole amounts.",),
          lambda r, i: {"values": g.vec(r, r.randint(1, 7), -20, 50, 2)}, tags=("train", "ctor")),
        T("asarray.floats", "as_float_readings", "counts", "return {asarray}(counts, dtype=float)",
          ("A counter device reports whole-number `counts` (a list or list of rows). Convert them into an array of floating-point numbers with the same shape and return it.",
           "A dashboard needs the integer tallies `counts` as floats. Return the data with the same nesting, each number converted to float."),
          lambda r, i: {"counts": g.arr(r, i, -20, 90, 0, empty=True)}),
        T("asanyarray.table", "as_table", "rows", "return {asanyarray}(rows, dtype=float)",
          ("A CSV parser hands over `rows`, a list of lists of whole numbers. Turn them into the library's array type with floating-point values and return it.",
           "Return the nested list `rows` converted to an array of floats (same shape), ready for numerical work."),
          lambda r, i: {"rows": g.mat(r, r.randint(1, 4), r.randint(1, 4), -9, 9, 0)}),
        T("ascontiguousarray.block", "row_major_copy", "patch", "return {ascontiguousarray}(patch)",
          ("An image codec requires the pixel tile `patch` (a list of rows) as an array laid out contiguously in memory, row after row. Return that array.",
           "A driver needs the matrix `patch` as a contiguous row-major array before sending it to a device. Return it (the values are unchanged)."),
          lambda r, i: {"patch": g.mat(r, r.randint(1, 4), r.randint(1, 4), 0, 255, 0)}),
        T("asfortranarray.block", "column_major_copy", "patch", "return {asfortranarray}(patch)",
          ("A legacy solver expects the matrix `patch` stored column by column (Fortran order). Return the matrix as such an array; the values are unchanged.",
           "Convert the table `patch` into an array with column-major memory layout for a linear-algebra routine and return it."),
          lambda r, i: {"patch": g.mat(r, r.randint(1, 4), r.randint(1, 4), -9, 9, 1)}),
        T("copy.snapshot", "snapshot", "state", "return {copy}(state)",
          ("A simulation saves a snapshot of its state `state` (a list or list of rows) as an independent array copy, so later changes do not affect it. Return the copy.",
           "Return an independent array copy of the measurements `state` (flat or nested list), keeping values and shape."),
          lambda r, i: {"state": g.arr(r, i, -9, 9, 1, empty=True)}),
        T("astype.truncate", "whole_units", "amounts", "return {astype}({array}(amounts), int)",
          ("A bookkeeping system stores `amounts` (floats, a list or list of rows) and needs them as integers, dropping the fractional part (toward zero). Return the converted data.",
           "Convert the measured lengths `amounts` into whole numbers by cutting off everything after the decimal point, keeping the shape, and return them as integers."),
          lambda r, i: {"amounts": g.arr(r, i, -50, 50, 2, empty=True)}),
        T("astype.flags", "to_flags", "levels", "return {astype}({array}(levels), bool)",
          ("A sensor array reports `levels` (whole numbers, a list or list of rows); a level counts as active when it is nonzero. Convert the data to booleans (same shape) and return it.",),
          lambda r, i: {"levels": g.arr(r, i, -2, 2, 0, empty=True)}),
        T("atleast_1d.reading", "as_list_of_readings", "reading", "return {atleast_1d}(reading)",
          ("A logger's `reading` is either a single number or a list (or list of rows) of numbers. Return it as an array with at least one dimension: a single number becomes a one-element list, anything else is unchanged.",
           "Normalise the input `reading` so that a lone number becomes a list holding that number while lists keep their shape, and return it."),
          _scalar_or_list),
        T("atleast_2d.reading", "as_table_of_readings", "reading", "return {atleast_2d}(reading)",
          ("A reporting tool always needs a table: if `reading` is a single number return [[number]], if it is a flat list return it as a single row, and if it already is a list of rows return it unchanged.",
           "Make sure `reading` has at least two dimensions: a number becomes a 1x1 table and a flat list becomes a table with one row. Return the result."),
          _scalar_or_list),
        T("atleast_3d.reading", "as_volume", "reading", "return {atleast_3d}(reading)",
          ("A volume renderer needs 3-D data. Given `reading` (a number, a flat list or a list of rows), return it with at least three dimensions: a number x becomes [[[x]]], a flat list of length n becomes shape 1 x n x 1, and a table of shape (r, c) becomes shape (r, c, 1).",
           "A 3-D printer slicer expects layered data. Promote `reading` to three dimensions and return it: a lone number v turns into [[[v]]], a list [a, b] into [[[a], [b]]], and a list of rows gets each entry wrapped in its own one-element list."),
          _scalar_or_list),
    ]
