"""Numerical helpers: rounding and clipping, differences and integrals, signal operations, products,
comparisons of whole arrays, polynomials, number formatting."""

from __future__ import annotations

import math

from sebench.tasks.families.common import T, g


def _v(name, lo=-9, hi=9, dec=1, n=(1, 8)):
    return lambda r, i: {name: g.vec(r, r.randint(*n), lo, hi, dec)}


def _pair(a, b, lo=-9, hi=9, dec=0, n=(1, 6)):
    def gen(r, i):
        k = r.randint(*n)
        return {a: g.vec(r, k, lo, hi, dec), b: g.vec(r, k, lo, hi, dec)}
    return gen


def _mats(a, b, lo=-5, hi=5):
    def gen(r, i):
        p, q, s = r.randint(1, 4), r.randint(1, 4), r.randint(1, 4)
        return {a: g.mat(r, p, q, lo, hi, 0), b: g.mat(r, q, s, lo, hi, 0)}
    return gen


def _vec3(a, b):
    return lambda r, i: {a: g.vec(r, 3, -9, 9, 0), b: g.vec(r, 3, -9, 9, 0)}


def _clip_gen(r, i):
    lo = g.num(r, -5, 5, 0)
    return {"levels": g.arr(r, i, -20, 20, 1, empty=True), "low": lo, "high": lo + r.randint(0, 10)}


def _round_gen(r, i):
    return {"amounts": g.arr(r, i, -100, 100, 4, empty=True), "decimals": r.randint(0, 3)}


def _interp_gen(r, i):
    xp = sorted(r.sample(range(0, 50), r.randint(2, 6)))
    return {"times": g.vec(r, r.randint(1, 6), -5, 55, 1), "known_t": xp, "known_v": g.vec(r, len(xp), -9, 9, 1)}


def _poly_fit_gen(r, i):
    deg = r.randint(1, 2)
    coeffs = g.vec(r, deg + 1, -3, 3, 0)
    xs = sorted(r.sample(range(-5, 8), r.randint(deg + 2, 7)))
    ys = [sum(c * x ** (deg - k) for k, c in enumerate(coeffs)) + g.num(r, -0.5, 0.5, 2) for x in xs]
    return {"xs": xs, "ys": [round(y, 2) for y in ys], "degree": deg}


def _tol_gen(r, i):
    a = g.vec(r, r.randint(1, 6), -9, 9, 3)
    b = [round(v + r.choice([0, 0, 1e-4, 0.01, 0.5]) * r.choice([-1, 1]), 5) for v in a]
    return {"measured": a, "expected": b, "tol": r.choice([1e-3, 0.01, 0.1])}


def _equal_gen(r, i):
    a = g.arr(r, i, 0, 3, 0, empty=True)
    b = a if r.random() < 0.4 else g.same_shape(r, a, 0, 3, 0)
    if i % 5 == 4 and isinstance(a, list) and a and not isinstance(a[0], list):
        b = [*a, 1]
    return {"first": a, "second": b}


def _equiv_gen(r, i):
    row = g.vec(r, r.randint(1, 4), 0, 3, 0)
    table = [list(row) for _ in range(r.randint(1, 3))]
    if i % 2:
        table[r.randrange(len(table))][r.randrange(len(row))] += 1
    return {"row": row, "table": table}


def templates():
    return [
        T("clip.limits", "limit_levels", "levels low high", "return {clip}(levels, low, high)",
          ("A speaker protection circuit limits the signal `levels` (a list or list of rows) to the range from `low` to `high`: values below `low` become `low`, values above `high` become `high`. Return the limited signal.",
           "Return `levels` with every value forced into the interval [`low`, `high`] (values outside are replaced by the nearest bound)."),
          _clip_gen),
        T("clip.floor", "no_negative_stock", "stock", "return {clip}(stock, 0, None)",
          ("An inventory report `stock` (flat or nested list) may contain negative values from booking errors. Replace every negative value by 0 (no upper limit) and return the report.",),
          lambda r, i: {"stock": g.arr(r, i, -20, 50, 0, empty=True)}),
        T("around.money", "round_amounts", "amounts decimals", "return {around}(amounts, decimals)",
          ("An invoicing tool rounds the amounts `amounts` (a list or list of rows) to `decimals` decimal places; exact halves go to the nearest even digit. Return the rounded amounts as floats.",
           "Round every value in `amounts` to `decimals` digits after the decimal point (round-half-to-even) and return them."),
          _round_gen),
        T("around.tens", "round_to_tens", "amounts", "return {around}(amounts, -1)",
          ("A population report rounds every count in `amounts` (flat list) to the nearest ten (halves to the even ten). Return the rounded values.",),
          lambda r, i: {"amounts": g.vec(r, r.randint(1, 7), 0, 1000, 0)}),
        T("round.grades", "round_grades", "amounts decimals", "return {round}(amounts, decimals)",
          ("A gradebook shows averages `amounts` (a list or list of rows) rounded to `decimals` decimals, with ties rounded to the even digit. Return the rounded averages.",
           "Return the numbers `amounts` rounded to `decimals` decimal places (banker's rounding on exact halves), keeping their shape."),
          _round_gen),
        T("round.whole", "nearest_whole", "amounts", "return {round}(amounts)",
          ("A step counter reports fractional step estimates `amounts` (flat list). Round each to the nearest whole number (halves to even) and return them as floats.",),
          lambda r, i: {"amounts": g.vec(r, r.randint(1, 7), -20, 20, 1)}),
        T("diff.daily", "daily_change", "totals", "return {diff}(totals)",
          ("A fitness app stores cumulative distances `totals` at the end of each day (flat list). Return the distance covered each day after the first: the difference between consecutive entries.",
           "Return the list of differences between consecutive elements of `totals` (element k is totals[k+1] - totals[k])."),
          lambda r, i: {"totals": g.vec1(r, i, 0, 100, 1, empty=False)}),
        T("diff.second", "acceleration_steps", "positions", "return {diff}(positions, n=2)",
          ("A tracker samples positions `positions` at equal time steps. Return the second differences (the difference of the differences), a simple acceleration estimate.",),
          lambda r, i: {"positions": g.vec(r, r.randint(3, 8), -20, 20, 0)}),
        T("diff.rows", "changes_per_row", "prices", "return {diff}(prices, axis=1)",
          ("A table `prices` has one row per stock with daily closing prices. Return, for each stock, the day-to-day price changes.",),
          lambda r, i: {"prices": g.mat(r, r.randint(1, 4), r.randint(2, 6), 10, 50, 1)}),
        T("gradient.slope", "local_slope", "heights", "return {gradient}(heights)",
          ("A hiking app has elevation samples `heights` at equally spaced points (spacing 1). Estimate the slope at every point: central differences inside, one-sided differences at both ends. Return the slopes as floats.",
           "Return the numerical gradient of the samples `heights` (unit spacing; central differences in the interior, first-order differences at the boundaries)."),
          lambda r, i: {"heights": g.vec(r, r.randint(2, 8), 0, 50, 1)}),
        T("gradient.spacing", "rate_of_change", "heights dx", "return {gradient}(heights, dx)",
          ("A chemical reactor logs concentrations `heights` every `dx` seconds. Return the estimated rate of change at every sample (central differences inside, one-sided at the ends).",),
          lambda r, i: {"heights": g.vec(r, r.randint(2, 8), 0, 50, 1), "dx": g.num(r, 0.5, 5, 1)}),
        T("convolve.smooth", "moving_sum", "signal kernel", "return {convolve}(signal, kernel, mode='valid')",
          ("A DSP student convolves the signal `signal` with the filter `kernel` (not longer than the signal) and keeps only the positions where the filter fully overlaps the signal. Return the result.",
           "Return the 'valid' part of the discrete convolution of `signal` with `kernel`: only the outputs computed with full overlap."),
          lambda r, i: {"signal": g.vec(r, r.randint(3, 8), -5, 5, 0), "kernel": g.vec(r, r.randint(1, 3), -2, 2, 0)}),
        T("convolve.full", "full_convolution", "signal kernel", "return {convolve}(signal, kernel)",
          ("Multiplying two polynomials given by their coefficient lists `signal` and `kernel` amounts to their full discrete convolution. Return the full convolution (length len(signal) + len(kernel) - 1).",),
          lambda r, i: {"signal": g.vec(r, r.randint(1, 5), -5, 5, 0), "kernel": g.vec(r, r.randint(1, 4), -5, 5, 0)}),
        T("correlate.match", "template_match", "signal pattern", "return {correlate}(signal, pattern, mode='valid')",
          ("A radar receiver slides the pulse `pattern` along the echo `signal` and, at each fully overlapping position, sums the products of aligned samples (cross-correlation without flipping). Return these sums.",
           "Return the 'valid' cross-correlation of `signal` with `pattern` (no reversal of `pattern`)."),
          lambda r, i: {"signal": g.vec(r, r.randint(3, 8), -5, 5, 0), "pattern": g.vec(r, r.randint(1, 3), -2, 2, 0)}),
        T("correlate.full", "lagged_products", "signal pattern", "return {correlate}(signal, pattern, mode='full')",
          ("An acoustics tool computes the full cross-correlation of two recordings `signal` and `pattern` over every lag (length len(signal) + len(pattern) - 1). Return it.",),
          lambda r, i: {"signal": g.vec(r, r.randint(1, 5), -5, 5, 0), "pattern": g.vec(r, r.randint(1, 4), -5, 5, 0)}),
        T("cov.matrix", "covariance_table", "series", "return {cov}(series)",
          ("An analyst stores several time series in `series`, one variable per row and one observation per column (at least two observations). Return the sample covariance matrix (dividing by N - 1) of the variables.",
           "Return the covariance matrix of the variables in the rows of `series` (unbiased estimate, N - 1 in the denominator)."),
          lambda r, i: {"series": g.mat(r, r.randint(1, 3), r.randint(2, 6), -9, 9, 1)}),
        T("cov.pair", "covariance_of_pair", "hours scores", "return {cov}(hours, scores)",
          ("A study records hours studied `hours` and test scores `scores` for the same students. Return the 2x2 sample covariance matrix of the two variables.",),
          lambda r, i: (lambda n: {"hours": g.vec(r, n, 0, 10, 1), "scores": g.vec(r, n, 40, 100, 0)})(r.randint(2, 7))),
        T("corrcoef.pair", "correlation_table", "hours scores", "return {corrcoef}(hours, scores)",
          ("A study records hours of sleep `hours` and reaction scores `scores` for the same people. Return the 2x2 matrix of Pearson correlation coefficients between the two variables.",
           "Return the Pearson correlation coefficient matrix of the two equally long lists `hours` and `scores`."),
          lambda r, i: (lambda n: {"hours": g.vec(r, n, 0, 10, 1), "scores": g.vec(r, n, 40, 100, 0)})(r.randint(3, 7))),
        T("corrcoef.rows", "correlations_between_rows", "series", "return {corrcoef}(series)",
          ("A finance team has daily returns in `series`: one row per stock. Return the matrix of Pearson correlation coefficients between the stocks.",),
          lambda r, i: {"series": g.mat(r, r.randint(2, 3), r.randint(3, 6), -9, 9, 1)}),
        T("interp.fill", "estimate_at_times", "times known_t known_v", "return {interp}(times, known_t, known_v)",
          ("A weather station measured values `known_v` at increasing times `known_t`. Estimate the values at the times `times` by linear interpolation; times before the first (after the last) measurement get the first (last) value. Return the estimates.",
           "Return the piecewise-linear interpolation of the points (`known_t`, `known_v`) evaluated at `times` (values outside the range are clamped to the end values)."),
          _interp_gen),
        T("trapz.area", "area_under_curve", "speeds", "return {trapz}(speeds)",
          ("A car's speeds `speeds` were sampled once per second. Estimate the distance travelled as the area under the speed curve with the trapezoidal rule (unit spacing). Return it as a float.",
           "Integrate the samples `speeds` (spacing 1) with the trapezoidal rule and return the result."),
          lambda r, i: {"speeds": g.vec(r, r.randint(1, 8), 0, 30, 1)}),
        T("trapz.x", "area_with_positions", "values positions", "return {trapz}(values, positions)",
          ("A river survey measured depths `values` at the (increasing) distances `positions` from the bank. Return the cross-section area estimated with the trapezoidal rule.",),
          lambda r, i: (lambda n: {"values": g.vec(r, n, 0, 9, 1), "positions": sorted(g.vec(r, n, 0, 30, 1))})(r.randint(1, 7))),
        T("unwrap.phase", "continuous_phase", "phases", "return {unwrap}(phases)",
          ("A phase sensor reports angles `phases` in radians wrapped to (-pi, pi]. Remove the jumps larger than pi between consecutive samples by adding or subtracting multiples of 2*pi, and return the continuous phase.",
           "Return the unwrapped version of the radian angles `phases` (consecutive jumps bigger than pi are corrected by multiples of 2*pi)."),
          lambda r, i: {"phases": [round(math.remainder(0.9 * k * r.choice([1, -1]) + g.num(r, -1, 1, 2), 2 * math.pi), 3) for k in range(r.randint(1, 8))]}),
        T("cross.torque", "torque", "lever force", "return {cross}(lever, force)",
          ("A mechanics exercise gives the lever arm `lever` and the force `force` as 3-component vectors. Return the torque, the cross product lever x force.",
           "Return the vector (cross) product of the 3-D vectors `lever` and `force`."),
          _vec3("lever", "force")),
        T("dot.cost", "basket_cost", "quantities prices", "return {dot}(quantities, prices)",
          ("A shopping basket has item quantities `quantities` and unit prices `prices` (same length). Return the total cost: the sum of quantity times price.",
           "Return the dot product of the vectors `quantities` and `prices`."),
          _pair("quantities", "prices", 0, 9, 0)),
        T("dot.matrix", "apply_recipe", "recipes amounts", "return {dot}(recipes, amounts)",
          ("A bakery stores `recipes` (one row per product, one column per ingredient: grams of that ingredient per unit) and `amounts`, the cost of one gram of each ingredient. Return the ingredient cost of one unit of every product (the matrix-vector product).",),
          lambda r, i: (lambda c: {"recipes": g.mat(r, r.randint(1, 4), c, 0, 9, 0), "amounts": g.vec(r, c, 0, 5, 0)})(r.randint(1, 4))),
        T("inner.score", "weighted_score", "answers weights", "return {inner}(answers, weights)",
          ("A quiz scores the answers `answers` (1 correct, 0 wrong) with the points `weights` of each question. Return the total score: the inner product of the two lists.",
           "Return the inner product (sum of element-wise products) of `answers` and `weights`."),
          _pair("answers", "weights", 0, 5, 0)),
        T("outer.table", "multiplication_table", "rows_by cols_by", "return {outer}(rows_by, cols_by)",
          ("A teacher prints a multiplication chart: entry (i, j) is rows_by[i] * cols_by[j]. Return the chart as a list of rows.",
           "Return the outer product of the vectors `rows_by` and `cols_by`."),
          lambda r, i: {"rows_by": g.vec(r, r.randint(1, 4), 1, 9, 0), "cols_by": g.vec(r, r.randint(1, 5), 1, 9, 0)}),
        T("vdot.signals", "signal_overlap", "first second", "return {vdot}(first, second)",
          ("Two recorded waveforms `first` and `second` (tables of equal shape) are compared by flattening both and summing the products of corresponding samples. Return that number.",
           "Return the dot product of `first` and `second` after flattening both (same number of elements)."),
          lambda r, i: (lambda a: {"first": a, "second": g.same_shape(r, a, -5, 5, 0)})(g.mat(r, r.randint(1, 3), r.randint(1, 3), -5, 5, 0))),
        T("vdot.complex", "conjugate_overlap", "first second", "return {vdot}(first, second)",
          ("A quantum simulation stores two state vectors `first` and `second` as complex numbers. Return their inner product, conjugating the first vector.",),
          lambda r, i: (lambda n: {"first": [complex(g.num(r, -3, 3, 0), g.num(r, -3, 3, 0)) for _ in range(n)], "second": [complex(g.num(r, -3, 3, 0), g.num(r, -3, 3, 0)) for _ in range(n)]})(r.randint(1, 4))),
        T("kron.tile", "block_pattern", "pattern cell", "return {kron}(pattern, cell)",
          ("A quilt designer replaces every cell of the layout `pattern` (a list of rows of numbers) with the block `cell` multiplied by that cell's value. Return the resulting quilt (the Kronecker product).",
           "Return the Kronecker product of the matrices `pattern` and `cell`."),
          lambda r, i: {"pattern": g.mat(r, r.randint(1, 2), r.randint(1, 3), 0, 3, 0), "cell": g.mat(r, r.randint(1, 2), r.randint(1, 2), 1, 4, 0)}),
        T("matmul.transform", "transform_points", "transform points", "return {matmul}(transform, points)",
          ("A robotics library applies the linear map `transform` (a list of rows) to the points stored as columns of `points`. Return the matrix product transform @ points.",
           "Return the matrix product of `transform` and `points` (the number of columns of the first equals the number of rows of the second)."),
          _mats("transform", "points")),
        T("tensordot.full", "total_overlap", "weights grid", "return {tensordot}(weights, grid)",
          ("A heat map `grid` and a weight mask `weights` have the same shape (lists of rows). Return the sum of element-wise products over both axes (a full tensor contraction).",
           "Contract the last two axes of `weights` with the first two axes of `grid` (same 2-D shape) and return the resulting number."),
          lambda r, i: (lambda a: {"weights": a, "grid": g.same_shape(r, a, -5, 5, 0)})(g.mat(r, r.randint(1, 3), r.randint(1, 4), -5, 5, 0))),
        T("tensordot.axes", "contract_one_axis", "weights grid", "return {tensordot}(weights, grid, axes=1)",
          ("Contract the last axis of the matrix `weights` with the first axis of the matrix `grid` (an ordinary matrix product) and return the result, as a routing model does.",),
          _mats("weights", "grid")),
        T("trace.sum", "diagonal_total", "table", "return {trace}(table)",
          ("A confusion matrix `table` (square list of rows) counts predictions: entry (i, j) counts items of class i predicted as j. Return the number of correct predictions, the sum of the main diagonal.",
           "Return the sum of the main-diagonal entries of the matrix `table`."),
          lambda r, i: (lambda n: {"table": g.mat(r, n, n, 0, 20, 0)})(r.randint(1, 4))),
        T("trace.offset", "offset_total", "table k", "return {trace}(table, k)",
          ("Return the sum of the entries of `table` that lie on the diagonal shifted by `k` (positive above the main diagonal), as a timetable checker does.",),
          lambda r, i: {"table": g.mat(r, r.randint(1, 4), r.randint(1, 4), 0, 9, 0), "k": r.randint(-1, 1)}),
        T("frexp.parts", "mantissa_exponent", "values", "return {frexp}(values)",
          ("A floating-point teaching tool decomposes each number in `values` into a mantissa m (0.5 <= |m| < 1, or 0) and an integer exponent e with value = m * 2**e. Return [mantissas, exponents].",
           "Split every element of `values` into mantissa and base-2 exponent and return the two lists [mantissas, exponents]."),
          _v("values", -100, 100, 2)),
        T("modf.parts", "split_fraction", "values", "return {modf}(values)",
          ("A clock app splits durations `values` (hours, possibly negative) into fractional and whole parts, both carrying the sign of the value. Return [fractional parts, whole parts] as floats.",
           "Return the fractional and integral parts of every element of `values` as two lists [fractions, integers-as-floats]."),
          _v("values", -50, 50, 2)),
        T("divmod.packs", "packs_and_rest", "items box_size", "return {divmod}(items, box_size)",
          ("A packing station puts `items` (a list of item counts) into boxes of `box_size` items. For each count return the number of full boxes and the leftover items, as two lists [boxes, leftovers] (floor division and remainder).",
           "Return [floor quotients, remainders] of dividing each element of `items` by `box_size`."),
          lambda r, i: {"items": g.vec(r, r.randint(1, 7), 0, 100, 0), "box_size": r.randint(1, 12)}),
        T("isclose.check", "within_tolerance", "measured expected tol", "return {isclose}(measured, expected, atol=tol, rtol=0)",
          ("A calibration check compares `measured` with `expected` (same length) and marks each pair as matching when their absolute difference is at most `tol`. Return the list of booleans.",
           "Return, element by element, whether |measured - expected| <= tol (pure absolute tolerance)."),
          _tol_gen),
        T("allclose.check", "all_within_tolerance", "measured expected tol", "return {allclose}(measured, expected, atol=tol, rtol=0)",
          ("A regression test passes when every value in `measured` is within an absolute distance `tol` of the corresponding value in `expected`. Return True if it passes, else False.",
           "Return whether all pairs of `measured` and `expected` differ by at most `tol` in absolute value."),
          _tol_gen),
        T("array_equal.same", "identical_tables", "first second", "return {array_equal}(first, second)",
          ("A backup verifier checks whether the restored data `second` has exactly the same shape and values as the original `first`. Return True or False.",
           "Return True when the two (possibly nested) lists `first` and `second` have the same shape and identical elements."),
          _equal_gen),
        T("array_equiv.broadcast", "consistent_rows", "row table", "return {array_equiv}(row, table)",
          ("A config checker verifies that every row of `table` equals the reference row `row` (shapes consistent by broadcasting). Return True or False.",
           "Return whether `row` and `table` are equal after broadcasting `row` to the shape of `table`."),
          _equiv_gen),
        T("piecewise.tax", "shipping_fee", "weights",
          "w = {array}(weights)\nreturn {piecewise}(w, [w <= 1, w > 1], [5.0, lambda v: 5.0 + 2.0 * (v - 1)])",
          ("A courier charges 5.0 for parcels up to 1 kg and 5.0 plus 2.0 per kg above 1 kg for heavier parcels. Given parcel weights `weights` (flat list of floats), return the fees.",
           "Evaluate the piecewise function f(w) = 5.0 for w <= 1 and 5.0 + 2.0 * (w - 1) for w > 1 on every element of `weights`."),
          _v("weights", 0.1, 6, 2)),
        T("piecewise.abs", "ramp", "signal",
          "s = {array}(signal)\nreturn {piecewise}(s, [s < 0, s >= 0], [0.0, lambda v: v * 1.5])",
          ("An amplifier passes positive inputs amplified by 1.5 and outputs 0.0 for negative inputs. Return the outputs for the inputs `signal` (flat list).",),
          _v("signal", -5, 5, 1)),
        T("vectorize.grade", "letter_grades", "marks",
          "label = {vectorize}(lambda m: 'A' if m >= 85 else ('B' if m >= 70 else ('C' if m >= 50 else 'F')))\nreturn label(marks)",
          ("A school maps marks `marks` (a flat list) to letters: 'A' for 85 or more, 'B' for 70 to 84, 'C' for 50 to 69 and 'F' below 50. Apply this rule, written as a plain Python function, element-wise with the library and return the letters.",
           "Turn a scalar Python rule (85+ -> 'A', 70+ -> 'B', 50+ -> 'C', else 'F') into an element-wise function and apply it to `marks`; return the resulting list of strings."),
          _v("marks", 0, 100, 0)),
        T("vectorize.collatz", "collatz_steps", "starts",
          "def steps(n):\n    k = 0\n    while n != 1:\n        n = n // 2 if n % 2 == 0 else 3 * n + 1\n        k += 1\n    return k\nreturn {vectorize}(steps)(starts)",
          ("For each positive integer in `starts` (flat list) count how many Collatz steps (n -> n/2 if even, 3n+1 if odd) it takes to reach 1. Write the rule for one number in plain Python and apply it element-wise with the library's vectorising helper; return the counts.",),
          _v("starts", 1, 60, 0)),
        T("polyfit.line", "fit_trend", "xs ys degree", "return {polyfit}(xs, ys, degree)",
          ("A lab fits a polynomial trend of degree `degree` to the measurements (`xs`, `ys`) by least squares. Return the coefficients from the highest power down to the constant term.",
           "Return the least-squares polynomial coefficients (highest degree first) of degree `degree` fitting the points `xs`, `ys`."),
          _poly_fit_gen),
        T("polyval.evaluate", "evaluate_polynomial", "coeffs xs", "return {polyval}(coeffs, xs)",
          ("A calibration curve is the polynomial with coefficients `coeffs` (highest power first). Evaluate it at every raw reading in `xs` and return the calibrated values.",
           "Return the values of the polynomial `coeffs` (highest degree first) at the points `xs`."),
          lambda r, i: {"coeffs": g.vec(r, r.randint(1, 4), -5, 5, 0), "xs": g.vec(r, r.randint(1, 6), -3, 3, 1)}),
        T("roots.quadratic", "polynomial_roots", "coeffs", "return {roots}(coeffs)",
          ("A physics exercise asks for the roots of the polynomial whose coefficients are `coeffs` (highest power first, leading coefficient nonzero). Return all roots (complex where needed).",
           "Return the roots of the polynomial with coefficient list `coeffs` (highest degree first)."),
          lambda r, i: {"coeffs": [r.choice([1, 2, -1]), *g.vec(r, r.randint(1, 3), -6, 6, 0)]}),
        T("base_repr.code", "to_base", "number base", "return {base_repr}(number, base)",
          ("A URL shortener writes the non-negative integer `number` in base `base` (2 to 36, digits then capital letters). Return the representation as a string.",
           "Return the string representation of `number` in the numeral system with radix `base`."),
          lambda r, i: {"number": r.randint(0, 5000), "base": r.randint(2, 36)}),
        T("binary_repr.bits", "to_bits", "number width", "return {binary_repr}(number, width=width)",
          ("A firmware tool prints register values in binary. Return the binary string of the integer `number` padded with leading zeros to `width` digits (negative numbers in two's complement of that width).",
           "Return the `width`-digit binary (two's complement for negatives) representation of `number` as a string."),
          lambda r, i: {"number": r.randint(-100, 255), "width": r.randint(9, 12)}),
        T("binary_repr.plain", "binary_string", "number", "return {binary_repr}(number)",
          ("A teaching app converts the integer `number` to its binary representation as a string (with a leading '-' for negatives). Return it.",),
          lambda r, i: {"number": r.randint(-300, 3000)}),
        T("array2string.csv", "format_row", "values", "return {array2string}({array}(values), separator=', ')",
          ("A report generator formats the readings `values` (flat list) the way the library prints arrays, using ', ' between elements. Return the string.",
           "Return the library's text rendering of the array built from `values`, with ', ' as the separator."),
          _v("values", -9, 9, 0)),
        T("array_str.plain", "as_text", "values", "return {array_str}({array}(values))",
          ("A logging helper converts the measurements `values` (flat list) to the library's plain string form of an array (as printing it would show). Return that string.",
           "Return the string form (the printed form) of the array made from `values`."),
          _v("values", 0, 99, 0)),
        T("array_repr.debug", "debug_text", "values", "return {array_repr}({array}(values))",
          ("A debugger shows arrays with their type name. Return the library's representation string (repr) of the array built from `values` (flat list of integers).",
           "Return the repr string of the array constructed from `values`."),
          _v("values", 0, 99, 0), tags=("repr",)),
        T("nan_to_num.clean", "clean_values", "values", "return {nan_to_num}(values, nan=0.0, posinf=1e6, neginf=-1e6)",
          ("A dashboard cannot display NaN or infinity. In `values` (flat list) replace NaN by 0.0, positive infinity by 1e6 and negative infinity by -1e6, and return the cleaned list.",
           "Return `values` with NaN -> 0.0, +inf -> 1000000.0 and -inf -> -1000000.0, other numbers unchanged."),
          lambda r, i: {"values": (lambda v: [r.choice([g.NAN, g.INF, -g.INF]) if r.random() < 0.3 else x for x in v])(g.vec(r, r.randint(1, 7), -9, 9, 1))}),
    ]
