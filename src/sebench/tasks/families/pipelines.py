"""Multi-function tasks: meaningful pipelines of 2 to 4 functions (normalise -> threshold -> count, clean ->
aggregate -> round, fit -> evaluate, ...). Each family has slots with alternative steps; every combination
is its own template (its own functions), described step by step in the statement."""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

from sebench.tasks.families.common import T, g
from sebench.tasks.spec import Template

MAX_FUNCTIONS = 4
_SENTENCE = re.compile(r"((?:^|[.!?])\s*)([a-z])")  # capitalise sentence starts after filling slots


@dataclass(frozen=True)
class Opt:
    tag: str
    code: str  # code fragment over {numpy names}
    text: str  # the same step in words


def grid(key: str, entry: str, params: str, body: str, texts: tuple[str, ...], slots: dict, gen,
         **kw) -> list[Template]:
    """One template per combination of the slots' options; <<slot>> in body and texts is replaced by the
    option's code and words. Texts rotate with the combination, so neighbours read differently."""
    names = list(slots)
    out = []
    for n, combo in enumerate(itertools.product(*(slots[s] for s in names))):
        b = body
        chosen = [texts[(n + j) % len(texts)] for j in range(min(2, len(texts)))]
        for s, o in zip(names, combo):
            b = b.replace(f"<<{s}>>", o.code)
            chosen = [t.replace(f"<<{s}>>", o.text) for t in chosen]
        chosen = [_SENTENCE.sub(lambda m: m.group(1) + m.group(2).upper(), t) for t in chosen]
        used = [p for p in params.split() if re.search(rf"\b{p}\b", b)]  # a step may not need every input
        tpl = T(f"{key}." + ".".join(o.tag for o in combo), entry, used, b, tuple(chosen), gen, **kw)
        if 2 <= len(tpl.focus) <= MAX_FUNCTIONS:
            out.append(tpl)
    return out


# ---- input generators ---------------------------------------------------------------------------


def _series(name, lo, hi, dec=1, n=(3, 10), nan=False):
    def gen(r, i):
        v = g.vec(r, r.randint(*n), lo, hi, dec)
        if nan and i % 3 == 1:
            v[r.randrange(len(v))] = g.NAN
        return {name: v}
    return gen


def _table(name, lo, hi, dec=1, rows=(2, 5), cols=(2, 6), nan=False):
    def gen(r, i):
        m = g.mat(r, r.randint(*rows), r.randint(*cols), lo, hi, dec)
        if nan and i % 3 != 0:
            for _ in range(r.randint(1, 2)):
                m[r.randrange(len(m))][r.randrange(len(m[0]))] = g.NAN
        return {name: m}
    return gen


def _with(gen, **extra):
    """gen plus extra parameters: extra = {name: (lo, hi, decimals)}."""
    def out(r, i):
        d = gen(r, i)
        d.update({k: g.num(r, lo, hi, dec) for k, (lo, hi, dec) in extra.items()})
        return d
    return out


# ---- families -----------------------------------------------------------------------------------


def normalise_threshold_count():
    norm = [
        Opt("z", "s = (x - {mean}(x)) / {std}(x)",
            "standardise the readings: subtract their mean and divide by their (population) standard deviation"),
        Opt("minmax", "s = (x - {min}(x)) / {ptp}(x)",
            "rescale the readings to [0, 1]: subtract the smallest reading and divide by the range (largest minus smallest)"),
        Opt("median", "s = x - {median}(x)",
            "centre the readings on their median (subtract the median from each)"),
        Opt("maxscale", "s = x / {max}({abs}(x))",
            "divide every reading by the largest absolute reading"),
    ]
    cmp_ = [
        Opt("above", "flags = {greater}(s, threshold)", "mark the adjusted values strictly greater than `threshold`"),
        Opt("below", "flags = {less}(s, threshold)", "mark the adjusted values strictly less than `threshold`"),
        Opt("atleast", "flags = {greater_equal}(s, threshold)", "mark the adjusted values that are at least `threshold`"),
    ]
    count = [
        Opt("nz", "return {count_nonzero}(flags)", "Return how many readings are marked, as an integer."),
        Opt("share", "return {mean}(flags)", "Return the fraction of readings that are marked, as a float."),
    ]
    texts = (
        "A factory monitors vibration readings `readings` (a flat list of floats, not all equal). First <<norm>>. Then <<cmp>>. <<count>>",
        "An energy analyst has hourly consumption values `readings` (at least two different values). Step 1: <<norm>>. Step 2: <<cmp>>. <<count>>",
        "Quality control receives the measurements `readings` of a batch (they are not all identical). <<norm>>; afterwards <<cmp>>. <<count>>",
    )
    gen = _with(_series("readings", -20, 80, 1, n=(3, 10)), threshold=(-1, 1, 1))
    return grid("pipe.normcount", "count_flagged", "readings threshold",
                "x = {array}(readings)\n<<norm>>\n<<cmp>>\n<<count>>", texts,
                {"norm": norm, "cmp": cmp_, "count": count}, gen)


def clean_aggregate_round():
    clean = [
        Opt("zero", "c = {nan_to_num}(data, nan=0.0)", "replace every missing value (NaN) by 0.0"),
        Opt("fill", "c = {where}({isnan}(data), fill, data)", "replace every missing value (NaN) by `fill`"),
    ]
    agg = [
        Opt("rowmean", "v = {mean}(c, axis=1)", "average each row"),
        Opt("colmax", "v = {max}(c, axis=0)", "take the largest value of each column"),
        Opt("rowsum", "v = {sum}(c, axis=1)", "total each row"),
        Opt("colmed", "v = {median}(c, axis=0)", "take the median of each column"),
        Opt("rowmin", "v = {min}(c, axis=1)", "take the smallest value of each row"),
    ]
    fin = [
        Opt("r2", "return {round}(v, 2)", "round the results to 2 decimals"),
        Opt("ceil", "return {ceil}(v)", "round the results up to whole numbers (as floats)"),
    ]
    texts = (
        "A weather network reports `data`, a table with one row per station and one column per day; failed readings are NaN. First <<clean>>, then <<agg>>, and finally <<fin>>. Return the list of results.",
        "A hospital exports vital-sign measurements `data` (rows: patients, columns: hours) with NaN for missing entries. <<clean>>; <<agg>>; <<fin>>. Return the resulting list.",
    )
    gen = _with(_table("data", 0, 40, 1, nan=True), fill=(-5, 5, 0))
    return grid("pipe.cleanagg", "summarise_clean", "data fill",
                "<<clean>>\n<<agg>>\n<<fin>>", texts, {"clean": clean, "agg": agg, "fin": fin}, gen)


def top_k():
    order = [
        Opt("sort", "s = {sort}(values)[len(values) - k:]", "sort the values ascending and keep the last `k` (the `k` largest)"),
        Opt("part", "s = {partition}(values, len(values) - k)[len(values) - k:]", "partially order the values so that the `k` largest end up at the back, and keep those `k`"),
    ]
    agg = [
        Opt("mean", "return {mean}(s)", "Return their average as a float."),
        Opt("sum", "return {sum}(s)", "Return their total."),
        Opt("min", "return {min}(s)", "Return the smallest of them (the k-th largest value)."),
        Opt("std", "return {std}(s)", "Return their population standard deviation."),
        Opt("prod", "return {prod}(s)", "Return the product of them."),
    ]
    texts = (
        "A talent show has the judges' total scores `values` (flat list) and wants to look at the top `k` acts (1 <= k <= number of acts). <<order>>. <<agg>>",
        "An investor ranks the yearly returns `values` of funds and keeps the best `k` (1 <= k <= len(values)). <<order>>. <<agg>>",
    )

    def gen(r, i):
        v = g.vec(r, r.randint(1, 9), 1, 20, 0)
        return {"values": v, "k": r.randint(1, len(v))}
    return grid("pipe.topk", "top_k_summary", "values k", "<<order>>\n<<agg>>", texts,
                {"order": order, "agg": agg}, gen)


def nearest_point():
    dist = [
        Opt("euclid", "d = {linalg.norm}(diff, axis=1)", "the straight-line (Euclidean) distance"),
        Opt("taxi", "d = {sum}({abs}(diff), axis=1)", "the city-block distance (sum of absolute coordinate differences)"),
        Opt("cheb", "d = {max}({abs}(diff), axis=1)", "the largest absolute coordinate difference"),
        Opt("hyp", "d = {hypot}(diff[:, 0], diff[:, 1])", "the Euclidean distance computed from the x and y differences"),
    ]
    pick = [
        Opt("argmin", "return {argmin}(d)", "Return the index of the closest point (the first one on ties)."),
        Opt("min", "return {min}(d)", "Return the smallest distance."),
        Opt("sorted", "return {argsort}(d, kind='stable')", "Return all point indices ordered from closest to farthest (ties keep index order)."),
        Opt("within", "return {count_nonzero}(d <= radius)", "Return how many points are within distance `radius` (inclusive)."),
    ]
    texts = (
        "A delivery app stores shop locations `points` (rows of [x, y]) and the customer location `home` ([x, y]). Compute, for every shop, <<dist>> to the customer. <<pick>>",
        "A wildlife tracker logs animal positions `points` (list of [x, y] rows) and the camp position `home`. For each animal measure <<dist>> from the camp. <<pick>>",
    )

    def gen(r, i):
        return {"points": g.mat(r, r.randint(1, 6), 2, -10, 10, 0), "home": g.vec(r, 2, -5, 5, 0),
                "radius": g.num(r, 2, 12, 0)}
    return grid("pipe.nearest", "closest_location", "points home radius",
                "diff = {array}(points) - {array}(home)\n<<dist>>\n<<pick>>", texts, {"dist": dist, "pick": pick}, gen)


def returns_stats():
    ret = [
        Opt("simple", "r = {diff}(p) / p[:-1]", "compute the simple daily returns (price change divided by the previous price)"),
        Opt("log", "r = {diff}({log}(p))", "compute the log returns (differences of the natural logarithms of the prices)"),
    ]
    stat = [
        Opt("mean", "return {mean}(r)", "Return the average return."),
        Opt("vol", "return {std}(r)", "Return the volatility: the population standard deviation of the returns."),
        Opt("worst", "return {min}(r)", "Return the worst (smallest) return."),
        Opt("bestday", "return {argmax}(r)", "Return the index of the best return (0 for the return from day 0 to day 1)."),
        Opt("cum", "return {cumsum}(r)", "Return the running totals of the returns."),
        Opt("updays", "return {count_nonzero}(r > 0)", "Return on how many days the return was positive."),
        Opt("med", "return {median}(r)", "Return the median return."),
    ]
    texts = (
        "A trader has daily closing prices `prices` (flat list of positive floats, at least two). First <<ret>>. <<stat>>",
        "A crypto dashboard receives the closing prices `prices` of one coin (positive, at least two days). <<ret>>, then summarise. <<stat>>",
    )
    return grid("pipe.returns", "price_statistics", "prices", "p = {array}(prices)\n<<ret>>\n<<stat>>", texts,
                {"ret": ret, "stat": stat}, _series("prices", 10, 60, 2, n=(2, 9)))


def grades_bins():
    score = [
        Opt("mean", "s = {mean}(marks, axis=1)", "average each student's marks"),
        Opt("wavg", "s = {average}(marks, axis=1, weights=weights)", "compute each student's weighted average with the exam weights `weights`"),
        Opt("best", "s = {max}(marks, axis=1)", "take each student's best mark"),
        Opt("median", "s = {median}(marks, axis=1)", "take the median of each student's marks"),
    ]
    binning = [
        Opt("count", "return {bincount}({digitize}(s, cutoffs), minlength=len(cutoffs) + 1)",
            "count how many students fall in each grade band defined by the ascending `cutoffs` (band 0 below the first cutoff, band i from cutoffs[i-1] up to but excluding cutoffs[i]); return the counts of all len(cutoffs) + 1 bands"),
        Opt("band", "return {digitize}(s, cutoffs)",
            "return each student's grade band for the ascending `cutoffs` (0 below the first cutoff, i if cutoffs[i-1] <= score < cutoffs[i])"),
        Opt("pass", "return {searchsorted}(cutoffs, s, side='right')",
            "return, for each student, how many of the ascending `cutoffs` are less than or equal to the score"),
    ]
    texts = (
        "A school has `marks`, one row per student and one column per exam (all marks 0-100). First <<score>>. Then <<binning>>.",
        "An online course stores quiz results `marks` (rows: learners, columns: quizzes). <<score>>, then <<binning>>.",
    )

    def gen(r, i):
        rows, cols = r.randint(1, 6), r.randint(1, 4)
        return {"marks": g.mat(r, rows, cols, 30, 100, 0), "weights": g.vec(r, cols, 1, 4, 0),
                "cutoffs": sorted(r.sample(range(40, 100), r.randint(1, 4)))}
    return grid("pipe.grades", "grade_bands", "marks weights cutoffs", "<<score>>\n<<binning>>", texts,
                {"score": score, "binning": binning}, gen)


def polynomial_fit():
    fit = [
        Opt("line", "c = {polyfit}(xs, ys, 1)", "fit a straight line (degree 1) by least squares"),
        Opt("quad", "c = {polyfit}(xs, ys, 2)", "fit a parabola (degree 2) by least squares"),
    ]
    use = [
        Opt("eval", "return {round}({polyval}(c, new_xs), 3)", "evaluate the fitted polynomial at `new_xs` and round the predictions to 3 decimals"),
        Opt("resid", "return {round}({max}({abs}({polyval}(c, xs) - ys)), 3)", "return the largest absolute residual of the fit on the data, rounded to 3 decimals"),
        Opt("roots", "return {round}({sort}({real}({roots}(c))), 3)", "return the real parts of the fitted polynomial's roots, sorted ascending and rounded to 3 decimals"),
        Opt("coef", "return {around}(c, 2)", "return the fitted coefficients (highest power first) rounded to 2 decimals"),
    ]
    texts = (
        "A physics lab measured `ys` at positions `xs` (at least four distinct positions). First <<fit>>. Then <<use>>.",
        "A sales team models revenue `ys` against advertising spend `xs` (four or more distinct values). <<fit>>; then <<use>>.",
    )

    def gen(r, i):
        xs = sorted(r.sample(range(-6, 9), r.randint(4, 7)))
        a, b, c = g.num(r, -1, 1, 1), g.num(r, -4, 4, 1), g.num(r, -5, 5, 1)
        ys = [round(a * x * x + b * x + c + g.num(r, -0.5, 0.5, 2), 2) for x in xs]
        return {"xs": xs, "ys": ys, "new_xs": g.vec(r, r.randint(1, 4), -8, 10, 1)}
    return grid("pipe.polyfit", "fit_and_use", "xs ys new_xs", "<<fit>>\n<<use>>", texts, {"fit": fit, "use": use}, gen)


def linear_systems():
    solve = [
        Opt("solve", "x = {linalg.solve}(a, b)", "solve the linear system a x = b"),
        Opt("inv", "x = {dot}({linalg.inv}(a), b)", "invert the matrix a and multiply the inverse by b"),
        Opt("lstsq", "x = {linalg.lstsq}(a, b, rcond=None)[0]", "find x with the least-squares solver"),
    ]
    fin = [
        Opt("round", "return {round}(x, 4)", "Return x rounded to 4 decimals."),
        Opt("norm", "return {round}({linalg.norm}(x), 4)", "Return the Euclidean length of x rounded to 4 decimals."),
        Opt("argmax", "return {argmax}(x)", "Return the index of the largest component of x."),
        Opt("sum", "return {round}({sum}(x), 4)", "Return the sum of the components of x, rounded to 4 decimals."),
    ]
    texts = (
        "A chemistry student balances a mixture: the square invertible matrix `a` holds the composition of each ingredient and `b` the target amounts. <<solve>>. <<fin>>",
        "An electrical circuit gives the node equations a x = b with invertible square `a` and right-hand side `b`. <<solve>>. <<fin>>",
    )

    def gen(r, i):
        n = r.randint(1, 4)
        return {"a": g.invertible(r, n), "b": g.vec(r, n, -20, 20, 0)}
    return grid("pipe.linsys", "solve_and_report", "a b", "<<solve>>\n<<fin>>", texts, {"solve": solve, "fin": fin}, gen)


def unique_sets():
    combine = [
        Opt("inter", "s = {intersect1d}(first, second)", "the ids present in both lists"),
        Opt("union", "s = {union1d}(first, second)", "the ids present in at least one list"),
        Opt("uniq", "s = {unique}({concatenate}((first, second)))", "all distinct ids of the two lists joined together"),
    ]
    fin = [
        Opt("size", "return {size}(s)", "Return how many such ids there are."),
        Opt("max", "return {max}(s) if {size}(s) else -1", "Return the largest such id, or -1 if there is none."),
        Opt("total", "return {sum}(s)", "Return the sum of those ids."),
        Opt("even", "return {count_nonzero}({mod}(s, 2) == 0)", "Return how many of those ids are even."),
    ]
    texts = (
        "Two stores record the customer ids `first` and `second` of their visitors (lists of integers with repeats). Consider <<combine>>. <<fin>>",
        "Two conference sessions list attendee badge numbers `first` and `second` (integers, repeats possible). Look at <<combine>>. <<fin>>",
    )

    def gen(r, i):
        return {"first": g.vec(r, r.randint(1, 8), 0, 12, 0), "second": g.vec(r, r.randint(1, 8), 0, 12, 0)}
    return grid("pipe.sets", "visitor_ids", "first second", "<<combine>>\n<<fin>>", texts, {"combine": combine, "fin": fin}, gen)


def smoothing_peak():
    smooth = [
        Opt("box", "s = {convolve}(signal, {ones}(k) / k, mode='valid')", "smooth it with a moving average over windows of `k` consecutive samples (only full windows)"),
        Opt("sum", "s = {convolve}(signal, {ones}(k), mode='valid')", "replace it by the sums over windows of `k` consecutive samples (only full windows)"),
        Opt("corr", "s = {correlate}(signal, {full}(k, 1.0 / k), mode='valid')", "compute the average of every run of `k` consecutive samples (only complete runs)"),
    ]
    peak = [
        Opt("argmax", "return {argmax}(s)", "Return the position (0-based, in the smoothed sequence) of its maximum."),
        Opt("max", "return {round}({max}(s), 4)", "Return its maximum, rounded to 4 decimals."),
        Opt("ptp", "return {round}({ptp}(s), 4)", "Return its range (maximum minus minimum), rounded to 4 decimals."),
        Opt("argmin", "return {argmin}(s)", "Return the position (0-based, in the smoothed sequence) of its minimum."),
    ]
    texts = (
        "A seismograph records ground motion samples `signal` (flat list, at least `k` samples). First <<smooth>>. <<peak>>",
        "A step counter produces noisy acceleration samples `signal` (length at least `k`). <<smooth>>. <<peak>>",
    )

    def gen(r, i):
        k = r.randint(1, 4)
        return {"signal": g.vec(r, r.randint(k, 10), -9, 9, 1), "k": k}
    return grid("pipe.smooth", "smoothed_peak", "signal k", "<<smooth>>\n<<peak>>", texts, {"smooth": smooth, "peak": peak}, gen)


def outliers_iqr():
    bounds = [
        Opt("pct", "q1, q3 = {percentile}(x, 25), {percentile}(x, 75)", "compute the 25th and 75th percentiles q1 and q3"),
        Opt("qnt", "q1, q3 = {quantile}(x, 0.25), {quantile}(x, 0.75)", "compute the 0.25 and 0.75 quantiles q1 and q3"),
    ]
    flag = [
        Opt("or", "out = {logical_or}(x < q1 - 1.5 * (q3 - q1), x > q3 + 1.5 * (q3 - q1))", "a value is an outlier if it lies below q1 - 1.5*(q3 - q1) or above q3 + 1.5*(q3 - q1)"),
        Opt("abs", "out = {abs}(x - (q1 + q3) / 2) > 2 * (q3 - q1)", "a value is an outlier if its distance from the midpoint (q1 + q3) / 2 exceeds twice (q3 - q1)"),
    ]
    fin = [
        Opt("count", "return {count_nonzero}(out)", "Return the number of outliers."),
        Opt("where", "return {nonzero}(out)[0]", "Return the indices of the outliers, ascending."),
        Opt("mean", "return {round}({mean}(x[~out]), 4)", "Return the mean of the non-outliers rounded to 4 decimals."),
    ]
    texts = (
        "A fraud team screens transaction amounts `amounts` (flat list, at least one value). First <<bounds>> of the amounts (linear interpolation). Then <<flag>>. <<fin>>",
        "A lab cleans sensor readings `amounts` (non-empty flat list): <<bounds>> (linear interpolation); <<flag>>. <<fin>>",
    )

    def gen(r, i):
        v = g.vec(r, r.randint(3, 10), 10, 30, 1)
        for _ in range(r.randint(0, 2)):
            v[r.randrange(len(v))] = g.num(r, 60, 150, 1) * r.choice([1, -1])
        return {"amounts": v}
    return grid("pipe.iqr", "screen_outliers", "amounts", "x = {array}(amounts)\n<<bounds>>\n<<flag>>\n<<fin>>", texts,
                {"bounds": bounds, "flag": flag, "fin": fin}, gen)


def polar_coordinates():
    conv = [
        Opt("deg", "t = {deg2rad}(angles)", "convert the bearings from degrees to radians"),
        Opt("rad", "t = {radians}(angles)", "turn the angles (given in degrees) into radians"),
    ]
    trig = [
        Opt("xy", "out = {stack}((r * {cos}(t), r * {sin}(t)), axis=1)", "compute the [x, y] position of every point as [r cos(t), r sin(t)] (one row per point)"),
        Opt("x", "out = r * {cos}(t)", "compute the x coordinate r cos(t) of every point"),
        Opt("y", "out = r * {sin}(t)", "compute the y coordinate r sin(t) of every point"),
        Opt("slope", "out = {tan}(t)", "compute the tangent of every angle"),
    ]
    fin = [
        Opt("r3", "return {round}(out, 3)", "Return the result rounded to 3 decimals."),
        Opt("fix", "return {around}(out, 2)", "Return the result rounded to 2 decimals."),
    ]
    texts = (
        "A radar reports targets by distance `dist` and bearing `angles` in degrees (equal-length flat lists). First <<conv>>; then, with r = `dist`, <<trig>>. <<fin>>",
        "A surveyor records points by range `dist` and angle `angles` (degrees). <<conv>>, then (r being `dist`) <<trig>>. <<fin>>",
    )

    def gen(r, i):
        n = r.randint(1, 6)
        return {"dist": g.vec(r, n, 0, 50, 1), "angles": g.vec(r, n, -80, 80, 0)}
    return grid("pipe.polar", "radar_positions", "dist angles", "r = {array}(dist)\n<<conv>>\n<<trig>>\n<<fin>>", texts,
                {"conv": conv, "trig": trig, "fin": fin}, gen)


def budget_cumulative():
    acc = [
        Opt("cumsum", "c = {cumsum}(costs)", "compute the running total of the costs"),
        Opt("cumsum_sorted", "c = {cumsum}({sort}(costs))", "sort the costs ascending and compute the running total of the sorted costs"),
    ]
    find = [
        Opt("search", "return {searchsorted}(c, budget, side='right')", "Return how many items can be paid before the running total exceeds `budget` (the number of running totals <= budget)."),
        Opt("count", "return {count_nonzero}(c <= budget)", "Return how many running totals are within `budget` (<= budget)."),
        Opt("last", "return {round}(c[-1] - budget, 2)", "Return by how much the final total exceeds the budget (negative if it does not), rounded to 2 decimals."),
    ]
    texts = (
        "A shopper buys items in the order given by their prices `costs` (flat list of positive amounts) with a budget `budget`. First <<acc>>. <<find>>",
        "A project manager funds tasks whose costs are `costs` (positive numbers) from a budget `budget`. <<acc>>. <<find>>",
    )

    def gen(r, i):
        return {"costs": g.vec(r, r.randint(1, 8), 1, 40, 2), "budget": g.num(r, 5, 120, 0)}
    return grid("pipe.budget", "affordable_items", "costs budget", "<<acc>>\n<<find>>", texts, {"acc": acc, "find": find}, gen)


def matrix_spectrum():
    build = [
        Opt("cov", "m = {cov}(data)", "compute the covariance matrix of the variables (rows of `data`, N - 1 normalisation)"),
        Opt("corr", "m = {corrcoef}(data)", "compute the matrix of Pearson correlations between the variables (rows of `data`)"),
        Opt("gram", "m = {dot}(data, {transpose}(data))", "compute the Gram matrix data times its transpose"),
    ]
    spec = [
        Opt("top", "return {round}({max}({linalg.eigvalsh}(m)), 4)", "Return its largest eigenvalue, rounded to 4 decimals."),
        Opt("all", "return {round}({linalg.eigvalsh}(m), 4)", "Return all its eigenvalues in ascending order, rounded to 4 decimals."),
        Opt("trace", "return {round}({trace}(m), 4)", "Return its trace (sum of the diagonal), rounded to 4 decimals."),
        Opt("det", "return {round}({linalg.det}(m), 4)", "Return its determinant, rounded to 4 decimals."),
    ]
    texts = (
        "A portfolio analyst stores daily returns in `data`: one row per asset, one column per day (at least three days, no constant rows). First <<build>>. <<spec>>",
        "A climate scientist keeps several indicators in `data` (rows: indicators, columns: years; at least three years, rows not constant). <<build>>. <<spec>>",
    )

    def gen(r, i):
        rows, cols = r.randint(2, 3), r.randint(3, 6)
        m = g.mat(r, rows, cols, -5, 5, 1)
        for row in m:
            if len(set(row)) == 1:
                row[0] += 1
        return {"data": m}
    return grid("pipe.spectrum", "spectrum_summary", "data", "<<build>>\n<<spec>>", texts, {"build": build, "spec": spec}, gen)


def image_ops():
    geo = [
        Opt("flipud", "a = {flip}(image, 0)", "flip the image upside down"),
        Opt("rot", "a = {rot90}(image)", "rotate the image 90 degrees counter-clockwise"),
        Opt("transpose", "a = {transpose}(image)", "transpose the image (rows become columns)"),
        Opt("fliplr", "a = {flip}(image, 1)", "mirror the image left to right"),
    ]
    post = [
        Opt("pad", "return {pad}(a, 1)", "surround it with a border of zeros one pixel wide and return it"),
        Opt("clip", "return {clip}(a, 50, 200)", "clip all intensities to the range [50, 200] and return it"),
        Opt("rowsum", "return {sum}(a, axis=1)", "return the total intensity of each row of the result"),
        Opt("flat", "return {ravel}(a)", "return the pixels of the result as one flat list, row by row"),
        Opt("argmax", "return {argmax}(a, axis=0)", "return, for each column of the result, the row index of its brightest pixel"),
    ]
    texts = (
        "A photo editor holds a grayscale `image` (list of rows of intensities 0-255). First <<geo>>; then <<post>>.",
        "A satellite tile `image` (rows of pixel values 0-255) is processed: <<geo>>, and then <<post>>.",
    )
    return grid("pipe.image", "process_tile", "image", "<<geo>>\n<<post>>", texts, {"geo": geo, "post": post},
                _table("image", 0, 255, 0, rows=(1, 4), cols=(1, 4)))


def log_means():
    trans = [
        Opt("log", "m = {exp}({mean}({log}(x)))", "the geometric mean: exponentiate the average of the natural logarithms"),
        Opt("log1p", "m = {expm1}({mean}({log1p}(x)))", "the 'log1p mean': average log(1 + value) and transform back with exp(.) - 1"),
        Opt("log10", "m = 10 ** {mean}({log10}(x))", "the mean on a base-10 log scale: 10 to the power of the average base-10 logarithm"),
        Opt("log2", "m = {exp2}({mean}({log2}(x)))", "2 raised to the average base-2 logarithm"),
        Opt("sqrt", "m = {square}({mean}({sqrt}(x)))", "the square of the average square root"),
    ]
    fin = [
        Opt("r3", "return {round}(m, 3)", "rounded to 3 decimals"),
        Opt("floor", "return {floor}(m)", "rounded down to a whole number (as a float)"),
    ]
    texts = (
        "An investor has growth factors `values` (flat list of positive floats) and wants <<trans>>, <<fin>>. Return it.",
        "A microbiologist averages positive colony counts `values` on a transformed scale: compute <<trans>>, <<fin>>, and return it.",
    )
    return grid("pipe.logmean", "transformed_mean", "values", "x = {array}(values)\n<<trans>>\n<<fin>>", texts,
                {"trans": trans, "fin": fin}, _series("values", 0.5, 40, 2, n=(1, 8)))


def clip_scale():
    lim = [
        Opt("clip", "c = {clip}(x, low, high)", "limit every value to the range [`low`, `high`]"),
        Opt("minmax", "c = {minimum}({maximum}(x, low), high)", "raise values below `low` to `low`, then lower values above `high` to `high`"),
        Opt("fminmax", "c = {fmin}({fmax}(x, low), high)", "raise values below `low` to `low`, then cap values above `high` at `high` (ignoring missing values when comparing)"),
    ]
    agg = [
        Opt("mean", "return {round}({mean}(c), 3)", "Return the average of the limited values, rounded to 3 decimals."),
        Opt("sum", "return {round}({sum}(c), 3)", "Return the total of the limited values, rounded to 3 decimals."),
        Opt("cum", "return {round}({cumsum}(c), 3)", "Return the running total of the limited values, rounded to 3 decimals."),
        Opt("diff", "return {round}({diff}(c), 3)", "Return the differences between consecutive limited values, rounded to 3 decimals."),
    ]
    texts = (
        "A thermostat log `temps` (flat list) contains glitches. First <<lim>>. <<agg>>",
        "A speed camera stores measured speeds `temps` (flat list); implausible ones must be tamed: <<lim>>. <<agg>>",
    )

    def gen(r, i):
        lo = g.num(r, 0, 10, 0)
        return {"temps": g.vec(r, r.randint(2, 9), -20, 50, 1), "low": lo, "high": lo + g.num(r, 5, 25, 0)}
    return grid("pipe.clip", "tame_values", "temps low high", "x = {array}(temps)\n<<lim>>\n<<agg>>", texts,
                {"lim": lim, "agg": agg}, gen)


def histogram_mode():
    hist = [
        Opt("bins", "counts, edges = {histogram}(values, bins)", "build a histogram with `bins` equal-width bins over the data range"),
    ]
    pick = [
        Opt("edge", "return edges[{argmax}(counts)]", "Return the left edge of the fullest bin (the first one on ties)."),
        Opt("mid", "k = {argmax}(counts)\nreturn (edges[k] + edges[k + 1]) / 2", "Return the centre of the fullest bin (the first one on ties)."),
        Opt("empty", "return {count_nonzero}(counts == 0)", "Return how many bins are empty."),
        Opt("share", "return {round}({max}(counts) / {sum}(counts), 4)", "Return the share of values in the fullest bin, rounded to 4 decimals."),
        Opt("cum", "return {cumsum}(counts)", "Return the cumulative counts of the bins."),
    ]
    texts = (
        "A traffic study records vehicle speeds `values` (flat list, non-empty). First <<hist>> (the last bin includes its right edge). <<pick>>",
        "An HR analyst looks at salaries `values` (non-empty flat list): <<hist>>, last bin closed on the right. <<pick>>",
    )

    def gen(r, i):
        return {"values": g.vec(r, r.randint(2, 12), 20, 120, 0), "bins": r.randint(2, 6)}
    return grid("pipe.hist", "histogram_summary", "values bins", "<<hist>>\n<<pick>>", texts, {"hist": hist, "pick": pick}, gen)


def rank_scores():
    stat = [
        Opt("mean", "s = {mean}(scores, axis=1)", "the average score"),
        Opt("sum", "s = {sum}(scores, axis=1)", "the total score"),
        Opt("max", "s = {max}(scores, axis=1)", "the best single score"),
        Opt("med", "s = {median}(scores, axis=1)", "the median score"),
    ]
    rank = [
        Opt("order", "return {argsort}(-s, kind='stable')", "Return the team indices from best to worst (ties keep index order)."),
        Opt("winner", "return {argmax}(s)", "Return the index of the best team (first on ties)."),
        Opt("flip", "return {flip}({argsort}(s, kind='stable'))", "Return the team indices sorted by this value ascending (ties by index) and then reversed."),
        Opt("top", "return {sort}(s)[-1] - {sort}(s)[0]", "Return the gap between the highest and the lowest team value."),
    ]
    texts = (
        "A quiz league stores `scores`, one row per team and one column per round. For every team compute <<stat>>. <<rank>>",
        "A hackathon keeps judge scores `scores` (rows: teams, columns: judges). Compute <<stat>> of each team. <<rank>>",
    )
    return grid("pipe.rank", "rank_teams", "scores", "<<stat>>\n<<rank>>", texts, {"stat": stat, "rank": rank},
                _table("scores", 0, 20, 0, rows=(1, 5), cols=(1, 4)))


def interpolate_resample():
    grid_ = [
        Opt("lin", "t = {linspace}(times[0], times[-1], n)", "build `n` evenly spaced times from the first to the last timestamp (inclusive)"),
        Opt("ar", "t = {arange}(times[0], times[-1], step)", "build the times from the first timestamp in steps of `step`, stopping before the last timestamp"),
    ]
    fin = [
        Opt("r3", "return {round}({interp}(t, times, values), 3)", "Linearly interpolate the values at those times and return them rounded to 3 decimals."),
        Opt("mean", "return {round}({mean}({interp}(t, times, values)), 3)", "Linearly interpolate the values at those times and return their average rounded to 3 decimals."),
        Opt("trapz", "return {round}({trapz}({interp}(t, times, values), t), 3)", "Linearly interpolate the values at those times and return the trapezoidal integral over those times, rounded to 3 decimals."),
    ]
    texts = (
        "A glucose monitor logged `values` at increasing timestamps `times` (minutes, at least two, first < last). <<grid>>. <<fin>>",
        "A tide gauge measured water levels `values` at increasing times `times` (hours). <<grid>>. <<fin>>",
    )

    def gen(r, i):
        ts = sorted(r.sample(range(0, 60), r.randint(2, 6)))
        return {"times": ts, "values": g.vec(r, len(ts), 50, 150, 1), "n": r.randint(2, 7), "step": r.randint(3, 15)}
    return grid("pipe.resample", "resample_series", "times values n step", "<<grid>>\n<<fin>>", texts,
                {"grid": grid_, "fin": fin}, gen)


def table_reshape():
    shape = [
        Opt("reshape", "t = {reshape}(values, (-1, width))", "arrange the values into rows of `width` values each (row by row)"),
        Opt("split", "t = {stack}({split}({array}(values), len(values) // width))", "cut the values into consecutive chunks of `width` and stack the chunks as rows"),
    ]
    agg = [
        Opt("rowsum", "return {sum}(t, axis=1)", "Return the total of each row."),
        Opt("colmean", "return {mean}(t, axis=0)", "Return the average of each column."),
        Opt("rowmax", "return {max}(t, axis=1)", "Return the maximum of each row."),
        Opt("transpose", "return {transpose}(t)", "Return the table transposed (columns become rows)."),
        Opt("colargmax", "return {argmax}(t, axis=0)", "Return, for each column, the index of the row holding its largest value."),
    ]
    texts = (
        "A smart meter emits `values` as one flat list, `width` readings per day (the length is a multiple of `width`). First <<shape>>. <<agg>>",
        "A gym logs repetitions `values` in one flat list, `width` sets per session (length divisible by `width`). <<shape>>. <<agg>>",
    )

    def gen(r, i):
        w = r.randint(1, 4)
        return {"values": g.vec(r, w * r.randint(1, 4), 0, 30, 0), "width": w}
    return grid("pipe.reshape", "daily_table", "values width", "<<shape>>\n<<agg>>", texts, {"shape": shape, "agg": agg}, gen)


def vector_geometry():
    prod = [
        Opt("cross", "n = {cross}(u, v)", "compute the cross product n = u x v"),
        Opt("lcross", "n = {linalg.cross}(u, v)", "compute the normal vector n as the cross product of u and v"),
    ]
    fin = [
        Opt("norm", "return {round}({linalg.norm}(n), 4)", "Return its length rounded to 4 decimals (twice the triangle area)."),
        Opt("unit", "return {round}(n / {linalg.vector_norm}(n), 4)", "Return it scaled to unit length, rounded to 4 decimals (u and v are not parallel)."),
        Opt("abs", "return {abs}(n)", "Return the absolute values of its components."),
    ]
    texts = (
        "A 3-D modelling tool gets two edge vectors `u` and `v` (3 components each, not parallel) of a triangle. First <<prod>>. <<fin>>",
        "A drone computes the normal of a surface patch spanned by the 3-D vectors `u` and `v` (not parallel): <<prod>>. <<fin>>",
    )

    def not_parallel(uv):
        u, v = uv
        return any((u[a] * v[b] - u[b] * v[a]) != 0 for a, b in ((0, 1), (1, 2), (0, 2)))

    def gen(r, i):
        u, v = g.redraw(lambda: (g.vec(r, 3, -5, 5, 0), g.vec(r, 3, -5, 5, 0)), not_parallel)
        return {"u": u, "v": v}
    return grid("pipe.geometry", "triangle_normal", "u v", "<<prod>>\n<<fin>>", texts, {"prod": prod, "fin": fin}, gen)


def matrix_chain():
    build = [
        Opt("power", "m = {linalg.matrix_power}(step, k)", "raise the transition matrix `step` to the power `k`"),
        Opt("multi", "m = {linalg.multi_dot}([step] * k) if k > 1 else {array}(step)", "multiply `k` copies of `step` together in one chained product (k >= 1)"),
    ]
    fin = [
        Opt("start", "return {round}({dot}(start, m), 4)", "Return the distribution after `k` steps when starting from the distribution `start` (start times the result), rounded to 4 decimals."),
        Opt("diag", "return {round}({diagonal}(m), 4)", "Return the diagonal of the result (the probabilities of being back where one started), rounded to 4 decimals."),
        Opt("trace", "return {round}({trace}(m), 4)", "Return the trace of the result, rounded to 4 decimals."),
        Opt("best", "return {argmax}({dot}(start, m))", "Return the index of the most likely state after `k` steps when starting from `start`."),
    ]
    texts = (
        "A board game moves a token between squares with the row-stochastic transition matrix `step` (square), and `k` >= 1 turns are played. First <<build>>. <<fin>>",
        "A customer-loyalty model uses the square transition matrix `step` between brands and a horizon of `k` >= 1 months. <<build>>. <<fin>>",
    )

    def gen(r, i):
        n = r.randint(2, 3)
        rows = []
        for _ in range(n):
            w = [r.randint(1, 5) for _ in range(n)]
            rows.append([round(x / sum(w), 2) for x in w])
            rows[-1][-1] = round(1 - sum(rows[-1][:-1]), 2)
        start = [0.0] * n
        start[r.randrange(n)] = 1.0
        return {"step": rows, "start": start, "k": r.randint(1, 4)}
    return grid("pipe.markov", "markov_forecast", "step start k", "<<build>>\n<<fin>>", texts, {"build": build, "fin": fin}, gen)


def bits_pack():
    op = [
        Opt("and", "m = {bitwise_and}(flags, mask)", "keep only the bits also set in `mask` (bitwise AND)"),
        Opt("or", "m = {bitwise_or}(flags, mask)", "set the bits of `mask` as well (bitwise OR)"),
        Opt("xor", "m = {bitwise_xor}(flags, mask)", "toggle the bits that are set in `mask` (bitwise XOR)"),
    ]
    fin = [
        Opt("count", "return {bitwise_count}(m)", "Return the number of set bits of each result."),
        Opt("shift", "return {right_shift}(m, 1)", "Return each result shifted right by one bit."),
        Opt("bin", "return [{binary_repr}(int(v), width=8) for v in m]", "Return each result as an 8-character binary string."),
        Opt("nonzero", "return {count_nonzero}(m)", "Return how many results are nonzero."),
    ]
    texts = (
        "A firmware tool holds permission bytes `flags` (integers 0-255) and a byte `mask` (0-255). First <<op>>. <<fin>>",
        "An IoT hub receives status bytes `flags` (0-255) from devices and applies the byte `mask`: <<op>>. <<fin>>",
    )

    def gen(r, i):
        return {"flags": g.vec(r, r.randint(1, 6), 0, 255, 0), "mask": r.randint(0, 255)}
    return grid("pipe.bits", "apply_mask", "flags mask", "<<op>>\n<<fin>>", texts, {"op": op, "fin": fin}, gen)


def modular_schedule():
    split = [
        Opt("divmod", "full, rest = {divmod}(minutes, 60)", "split each duration into whole hours and remaining minutes (floor division and remainder by 60)"),
        Opt("fdmod", "full, rest = {floor_divide}(minutes, 60), {mod}(minutes, 60)", "compute the whole hours (floor division by 60) and the leftover minutes (remainder by 60) of each duration"),
    ]
    fin = [
        Opt("stack", "return {stack}((full, rest), axis=1)", "Return one [hours, minutes] row per duration."),
        Opt("max", "return [{max}(full), {max}(rest)]", "Return [largest number of hours, largest leftover minutes]."),
        Opt("sum", "return {sum}(full) * 60 + {sum}(rest)", "Return the total number of minutes recomputed from the two parts."),
        Opt("round", "return {where}(rest >= 30, full + 1, full)", "Return the durations rounded to the nearest hour (30 minutes or more round up)."),
    ]
    texts = (
        "A call centre logs call durations `minutes` (flat list of non-negative whole minutes). First <<split>>. <<fin>>",
        "A cinema lists film lengths `minutes` (whole, non-negative minutes): <<split>>. <<fin>>",
    )
    return grid("pipe.minutes", "hours_and_minutes", "minutes", "<<split>>\n<<fin>>", texts, {"split": split, "fin": fin},
                _series("minutes", 0, 400, 0, n=(1, 8)))


def concat_summary():
    join = [
        Opt("concat", "a = {concatenate}((first, second))", "join the two lists end to end"),
        Opt("hstack", "a = {hstack}((first, second))", "stack the two lists horizontally into one sequence"),
    ]
    fin = [
        Opt("unique", "return {unique}(a)", "Return the distinct values in ascending order."),
        Opt("sort", "return {sort}(a)[::-1]", "Return all values sorted from largest to smallest."),
        Opt("median", "return {median}(a)", "Return the median of all values."),
        Opt("bincount", "return {bincount}(a)", "Return how often each number 0..max occurs."),
        Opt("ptp", "return {ptp}(a)", "Return the range (largest minus smallest)."),
    ]
    texts = (
        "Two shifts record the number of defects per machine: `first` and `second` (flat lists of non-negative integers, not both empty). First <<join>>. <<fin>>",
        "Two classes report the number of books read per pupil, `first` and `second` (non-negative integers; at least one value overall): <<join>>. <<fin>>",
    )

    def gen(r, i):
        return {"first": g.vec(r, r.randint(1, 6), 0, 9, 0), "second": g.vec(r, r.randint(0, 6), 0, 9, 0)}
    return grid("pipe.concat", "combined_counts", "first second", "<<join>>\n<<fin>>", texts, {"join": join, "fin": fin}, gen)


def trig_wave():
    wave = [
        Opt("sin", "y = amp * {sin}(2 * math.pi * freq * t)", "a sine wave amp * sin(2 pi freq t)"),
        Opt("cos", "y = amp * {cos}(2 * math.pi * freq * t)", "a cosine wave amp * cos(2 pi freq t)"),
    ]
    times = [
        Opt("lin", "t = {linspace}(0, 1, n)", "at `n` evenly spaced times from 0 to 1 second (inclusive)"),
        Opt("ar", "t = {arange}(n) / n", "at the `n` times 0, 1/n, ..., (n-1)/n seconds"),
    ]
    fin = [
        Opt("rms", "return {round}({sqrt}({mean}({square}(y))), 4)", "Return its root-mean-square value rounded to 4 decimals."),
        Opt("peak", "return {round}({max}({abs}(y)), 4)", "Return its peak absolute value rounded to 4 decimals."),
        Opt("samples", "return {round}(y, 3)", "Return the samples rounded to 3 decimals."),
        Opt("cross", "return {count_nonzero}({diff}({signbit}(y)))", "Return how many times the sign bit changes between consecutive samples."),
    ]
    texts = (
        "A synthesiser samples <<wave>> <<times>> (amplitude `amp`, frequency `freq` in Hz). First build the time points, then the samples. <<fin>>",
        "A physics teacher simulates <<wave>> sampled <<times>>, with amplitude `amp` and frequency `freq`. <<fin>>",
    )

    def gen(r, i):
        return {"amp": g.num(r, 0.5, 5, 1), "freq": r.randint(1, 4), "n": r.randint(2, 12)}
    return grid("pipe.wave", "sample_wave", "amp freq n", "<<times>>\n<<wave>>\n<<fin>>", texts,
                {"wave": wave, "times": times, "fin": fin}, gen)


FAMILIES = (
    normalise_threshold_count, clean_aggregate_round, top_k, nearest_point, returns_stats, grades_bins,
    polynomial_fit, linear_systems, unique_sets, smoothing_peak, outliers_iqr, polar_coordinates,
    budget_cumulative, matrix_spectrum, image_ops, log_means, clip_scale, histogram_mode, rank_scores,
    interpolate_resample, table_reshape, vector_geometry, matrix_chain, bits_pack, modular_schedule,
    concat_summary, trig_wave,
)


def templates():
    return [t for family in FAMILIES for t in family()]
