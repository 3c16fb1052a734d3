"""Element-wise math: one input (roots, logs, trigonometry, rounding, tests) and two inputs (arithmetic,
comparisons, bitwise operations)."""

from __future__ import annotations

from sebench.tasks.families.common import SETTINGS, T, g, rotate

# domain -> (low, high, decimals)
RANGES = {
    "real": (-10, 10, 2), "pos": (0.1, 100, 2), "unit": (-1, 1, 3), "angle": (-3.14, 3.14, 3),
    "degrees": (-360, 360, 1), "small": (-3, 3, 2), "int": (-50, 50, 0), "open": (-0.99, 0.99, 3),
    "ge1": (1, 20, 2), "nat": (0, 255, 0), "special": (-10, 10, 2), "complex": (-5, 5, 1), "few": (-2, 2, 0),
}
SETTINGS_EXTRA = {
    "open": SETTINGS["unit"],
    "few": SETTINGS["int"],
    "ge1": [
        ("stretch", "A materials lab records stretch factors of rubber bands (each at least 1) in `stretch`."),
        ("ratios", "An optics bench measures beam expansion ratios (all at least 1) in `ratios`."),
        ("factors", "A scheduler keeps slowdown factors of jobs (1 means no slowdown, always at least 1) in `factors`."),
    ],
    "nat": [
        ("pixels", "An 8-bit grayscale image is given as pixel values from 0 to 255 in `pixels`."),
        ("flags", "A network switch reports port status bytes (integers 0 to 255) in `flags`."),
        ("masks", "A game engine stores per-tile permission masks (integers 0 to 255) in `masks`."),
    ],
    "special": [
        ("readings", "A data logger occasionally produces missing values (NaN) and overflows (infinity) among its readings `readings`."),
        ("values", "A spreadsheet export `values` contains numbers, some cells that became NaN and some infinite results of divisions."),
        ("signal", "A sensor stream `signal` may contain NaN for dropped samples and infinities for saturated ones."),
    ],
    "complex": [
        ("impedances", "An electrical engineer stores circuit impedances as complex numbers (ohms) in `impedances`."),
        ("phasors", "A power grid monitor records voltage phasors as complex numbers in `phasors`."),
        ("coeffs", "A frequency analysis produces complex spectral coefficients in `coeffs`."),
    ],
}

SHAPE = "a list of numbers, or a list of equal-length rows of numbers"
PATTERNS = (
    "{setting} The data is {shape}. Write `{entry}({p})` that returns {desc_each}, as {out} with the same nesting as `{p}` (an empty list gives an empty list).",
    "{setting} Compute, element by element, {desc_each}. `{p}` is {shape}; return {out} in exactly the same nested-list shape.",
    "{setting} Return a new list shaped like `{p}` ({shape}) in which every entry is replaced by {desc_that}. The result holds {out}.",
    "{setting} Your function receives `{p}` ({shape}) and must produce {desc_each}. Keep the shape of the input and return {out}.",
)

# name: (description with {x}, domain, output words, entry stem)
UNARY = {
    "abs": ("the absolute value of {x}", "real", "numbers", "magnitude"),
    "absolute": ("the absolute value of {x}", "real", "numbers", "size"),
    "fabs": ("the absolute value of {x}", "int", "floats", "float_magnitude"),
    "arccos": ("the angle in radians (from 0 to pi) whose cosine equals {x}", "unit", "floats", "angle_from_cosine"),
    "acos": ("the angle in radians (from 0 to pi) whose cosine equals {x}", "unit", "floats", "recover_angle"),
    "arcsin": ("the angle in radians (from -pi/2 to pi/2) whose sine equals {x}", "unit", "floats", "angle_from_sine"),
    "asin": ("the angle in radians (from -pi/2 to pi/2) whose sine equals {x}", "unit", "floats", "sine_to_angle"),
    "arctan": ("the angle in radians (from -pi/2 to pi/2) whose tangent equals {x}", "real", "floats", "angle_from_slope"),
    "atan": ("the angle in radians (from -pi/2 to pi/2) whose tangent equals {x}", "real", "floats", "slope_angle"),
    "arccosh": ("the inverse hyperbolic cosine of {x}", "ge1", "floats", "inverse_hyp_cosine"),
    "acosh": ("the inverse hyperbolic cosine of {x}", "ge1", "floats", "area_hyp_cosine"),
    "arcsinh": ("the inverse hyperbolic sine of {x}", "real", "floats", "inverse_hyp_sine"),
    "asinh": ("the inverse hyperbolic sine of {x}", "real", "floats", "area_hyp_sine"),
    "arctanh": ("the inverse hyperbolic tangent of {x}", "open", "floats", "inverse_hyp_tangent"),
    "atanh": ("the inverse hyperbolic tangent of {x}", "open", "floats", "area_hyp_tangent"),
    "cbrt": ("the real cube root of {x} (negative numbers give negative roots)", "real", "floats", "cube_root"),
    "ceil": ("the smallest whole number that is greater than or equal to {x}", "real", "floats", "round_up"),
    "floor": ("the largest whole number that is less than or equal to {x}", "real", "floats", "round_down"),
    "trunc": ("{x} with its fractional part cut off (rounding toward zero)", "real", "floats", "chop"),
    "rint": ("{x} rounded to the nearest whole number (halves go to the even neighbour)", "real", "floats", "nearest_whole"),
    "cos": ("the cosine of {x}", "angle", "floats", "cosine"),
    "sin": ("the sine of {x}", "angle", "floats", "sine"),
    "tan": ("the tangent of {x}", "angle", "floats", "tangent"),
    "cosh": ("the hyperbolic cosine of {x}", "small", "floats", "hyp_cosine"),
    "sinh": ("the hyperbolic sine of {x}", "small", "floats", "hyp_sine"),
    "tanh": ("the hyperbolic tangent of {x}", "small", "floats", "hyp_tangent"),
    "deg2rad": ("{x} converted from degrees to radians", "degrees", "floats", "to_radians"),
    "radians": ("{x} converted from degrees to radians", "degrees", "floats", "degrees_to_rad"),
    "rad2deg": ("{x} converted from radians to degrees", "angle", "floats", "to_degrees"),
    "degrees": ("{x} converted from radians to degrees", "angle", "floats", "rad_to_deg"),
    "exp": ("e (Euler's number) raised to the power {x}", "small", "floats", "natural_growth"),
    "exp2": ("2 raised to the power {x}", "small", "floats", "power_of_two"),
    "expm1": ("e raised to the power {x}, minus 1, computed accurately even for tiny values", "small", "floats", "growth_minus_one"),
    "log": ("the natural logarithm of {x}", "pos", "floats", "natural_log"),
    "log10": ("the base-10 logarithm of {x}", "pos", "floats", "decibel_base"),
    "log2": ("the base-2 logarithm of {x}", "pos", "floats", "bits_needed"),
    "log1p": ("the natural logarithm of 1 plus {x}, accurate for tiny values", "pos", "floats", "log_one_plus"),
    "negative": ("the negation of {x} (its sign flipped)", "real", "numbers", "flip_sign"),
    "positive": ("an unchanged numeric copy of {x} (unary plus)", "real", "numbers", "unary_plus"),
    "reciprocal": ("the reciprocal of {x} (1 divided by it)", "pos", "floats", "inverse_of"),
    "sign": ("the sign of {x}: -1.0 if negative, 0.0 if zero, 1.0 if positive", "real", "floats", "direction"),
    "signbit": ("True if the sign bit of {x} is set (it is negative) and False otherwise", "real", "booleans", "is_negative"),
    "sqrt": ("the square root of {x}", "pos", "floats", "root"),
    "square": ("the square of {x}", "real", "numbers", "squared"),
    "sinc": ("the normalised sinc of {x}, sin(pi*v)/(pi*v) with value 1 at v = 0", "small", "floats", "sinc_response"),
    "spacing": ("the gap between {x} and the next floating-point number farther from zero", "real", "floats", "float_gap"),
    "isnan": ("True where {x} is NaN (not a number) and False elsewhere", "special", "booleans", "missing"),
    "isinf": ("True where {x} is positive or negative infinity and False elsewhere", "special", "booleans", "overflowed"),
    "isfinite": ("True where {x} is an ordinary finite number (neither infinite nor NaN)", "special", "booleans", "usable"),
    "isreal": ("True where {x} has a zero imaginary part", "complex", "booleans", "purely_real"),
    "real": ("the real part of {x}", "complex", "floats", "resistive_part"),
    "imag": ("the imaginary part of {x}", "complex", "floats", "reactive_part"),
    "conj": ("the complex conjugate of {x}", "complex", "complex numbers", "mirror"),
    "conjugate": ("the complex conjugate of {x}", "complex", "complex numbers", "conjugated"),
    "logical_not": ("True where {x} is zero and False where it is nonzero (logical negation)", "few", "booleans", "is_zero"),
    "invert": ("the bitwise NOT of {x} (all bits flipped, two's complement)", "int", "integers", "flip_bits"),
    "bitwise_not": ("the bitwise NOT of {x} (all bits flipped, two's complement)", "int", "integers", "complement"),
    "bitwise_invert": ("the bitwise NOT of {x} (every bit flipped, two's complement)", "nat", "integers", "negate_bits"),
    "bitwise_count": ("the number of 1 bits in the binary form of the absolute value of {x}", "nat", "integers", "popcount"),
}


def _gen(param: str, domain: str):
    lo, hi, dec = RANGES[domain]

    def gen(r, i):
        if domain == "complex":
            shape = g.arr(r, i, 0, 1, 0, empty=True)
            return {param: _complexify(r, shape, i)}
        value = g.arr(r, i, lo, hi, dec, nan=domain not in ("int", "nat", "few"))
        if domain == "special" and isinstance(value, list) and value:
            _sprinkle(r, value)
        return {param: value}

    return gen


def _sprinkle(r, value):
    flat = value if not isinstance(value[0], list) else value[r.randrange(len(value))]
    for _ in range(r.randint(1, 2)):
        flat[r.randrange(len(flat))] = r.choice([g.NAN, g.INF, -g.INF])


def _complexify(r, like, i):
    if isinstance(like, list):
        return [_complexify(r, v, i) for v in like]
    im = 0.0 if r.random() < 0.3 else g.num(r, -5, 5, 1)
    return complex(g.num(r, -5, 5, 1), im)


def unary_templates():
    out = []
    for name, (desc, domain, outw, stem) in UNARY.items():
        settings = rotate(SETTINGS.get(domain) or SETTINGS_EXTRA[domain], name)
        for k, (p, setting) in enumerate(settings[:4]):
            pattern = PATTERNS[(k + len(name)) % len(PATTERNS)]
            entry = f"{stem}_of_{p}"
            text = pattern.format(setting=setting, shape=SHAPE, entry=entry, p=p, out=outw,
                                  desc_each=desc.format(x="each value"),
                                  desc_that=desc.format(x="that entry"))
            out.append(T(f"{name}.unary.{p}", entry, (p,), f"return {{{name}}}({p})", text, _gen(p, domain)))
    return out


# Two inputs. name: (description with {a}/{b}, domain of a, domain of b, output words, stem)
BINARY = {
    "add": ("`{a}` plus `{b}`", "real", "real", "numbers", "combined"),
    "subtract": ("`{a}` minus `{b}`", "real", "real", "numbers", "difference"),
    "multiply": ("`{a}` times `{b}`", "real", "real", "numbers", "product"),
    "divide": ("`{a}` divided by `{b}` (true division)", "real", "pos", "floats", "ratio"),
    "true_divide": ("`{a}` divided by `{b}` (true, non-integer division)", "real", "pos", "floats", "quotient"),
    "floor_divide": ("`{a}` divided by `{b}`, rounded down to the nearest whole number", "int", "posint", "numbers", "whole_quotient"),
    "mod": ("the remainder of `{a}` divided by `{b}`, with the sign of the divisor (like Python's %)", "int", "posint", "numbers", "leftover"),
    "remainder": ("the remainder of `{a}` divided by `{b}`, taking the sign of the divisor (as Python's % does)", "int", "nzint", "numbers", "remaining"),
    "fmod": ("the remainder of `{a}` divided by `{b}` taking the sign of the dividend (C-style fmod)", "int", "nzint", "numbers", "c_remainder"),
    "power": ("`{a}` raised to the power `{b}`", "pos", "small", "floats", "raised"),
    "pow": ("`{a}` raised to the power `{b}`", "pos", "small", "floats", "exponentiated"),
    "maximum": ("the larger of `{a}` and `{b}` (NaN wins if either is NaN)", "real", "real", "numbers", "larger"),
    "minimum": ("the smaller of `{a}` and `{b}` (NaN wins if either is NaN)", "real", "real", "numbers", "smaller"),
    "fmax": ("the larger of `{a}` and `{b}`, ignoring NaN when only one of them is NaN", "realnan", "realnan", "numbers", "larger_known"),
    "fmin": ("the smaller of `{a}` and `{b}`, ignoring NaN when only one of them is NaN", "realnan", "realnan", "numbers", "smaller_known"),
    "hypot": ("the hypotenuse length sqrt(`{a}`**2 + `{b}`**2)", "real", "real", "floats", "hypotenuse"),
    "arctan2": ("the angle in radians (from -pi to pi) of the point with y-coordinate `{a}` and x-coordinate `{b}`", "real", "real", "floats", "bearing"),
    "atan2": ("the angle in radians (from -pi to pi) of the point with y-coordinate `{a}` and x-coordinate `{b}`", "real", "real", "floats", "polar_angle"),
    "copysign": ("the magnitude of `{a}` with the sign of `{b}`", "real", "real", "floats", "signed_like"),
    "logaddexp": ("log(exp(`{a}`) + exp(`{b}`)) computed without overflow", "small", "small", "floats", "log_sum"),
    "logaddexp2": ("log2(2**`{a}` + 2**`{b}`) computed without overflow", "small", "small", "floats", "log2_sum"),
    "nextafter": ("the next floating-point number after `{a}` in the direction of `{b}`", "real", "real", "floats", "step_toward"),
    "heaviside": ("the step function of `{a}`: 0 where `{a}` is negative, 1 where positive, and `{b}` where `{a}` is zero", "intf", "half", "floats", "step"),
    "gcd": ("the greatest common divisor of `{a}` and `{b}`", "int", "int", "integers", "common_divisor"),
    "lcm": ("the least common multiple of `{a}` and `{b}`", "smallint", "smallint", "integers", "common_multiple"),
    "ldexp": ("`{a}` multiplied by 2 to the power `{b}` (`{b}` is a whole number)", "real", "exp_int", "floats", "scale_by_two"),
    "greater": ("True where `{a}` is strictly greater than `{b}`", "real", "real", "booleans", "exceeds"),
    "greater_equal": ("True where `{a}` is greater than or equal to `{b}`", "int", "int", "booleans", "at_least"),
    "less": ("True where `{a}` is strictly less than `{b}`", "real", "real", "booleans", "below"),
    "less_equal": ("True where `{a}` is less than or equal to `{b}`", "int", "int", "booleans", "at_most"),
    "equal": ("True where `{a}` equals `{b}`", "int", "int", "booleans", "matches"),
    "not_equal": ("True where `{a}` differs from `{b}`", "int", "int", "booleans", "differs"),
    "logical_and": ("True where both `{a}` and `{b}` are nonzero", "bin", "bin", "booleans", "both_on"),
    "logical_or": ("True where at least one of `{a}` and `{b}` is nonzero", "bin", "bin", "booleans", "either_on"),
    "logical_xor": ("True where exactly one of `{a}` and `{b}` is nonzero", "bin", "bin", "booleans", "one_on"),
    "bitwise_and": ("the bitwise AND of `{a}` and `{b}`", "nat", "nat", "integers", "common_bits"),
    "bitwise_or": ("the bitwise OR of `{a}` and `{b}`", "nat", "nat", "integers", "merged_bits"),
    "bitwise_xor": ("the bitwise XOR of `{a}` and `{b}`", "nat", "nat", "integers", "toggled_bits"),
    "left_shift": ("`{a}` with its bits shifted left by `{b}` places", "nat", "shift", "integers", "shift_up"),
    "bitwise_left_shift": ("`{a}` with its bits shifted left by `{b}` positions", "nat", "shift", "integers", "bits_up"),
    "right_shift": ("`{a}` with its bits shifted right by `{b}` places", "nat", "shift", "integers", "shift_down"),
    "bitwise_right_shift": ("`{a}` with its bits shifted right by `{b}` positions", "nat", "shift", "integers", "bits_down"),
}
RANGES2 = dict(RANGES, posint=(1, 9, 0), nzint=(1, 9, 0), realnan=(-10, 10, 2), intf=(-3, 3, 0),
               half=(0, 1, 1), smallint=(1, 30, 0), exp_int=(-4, 6, 0), bin=(0, 1, 0), shift=(0, 4, 0))

PAIRS = {
    "real": [
        ("before", "after", "Two sensors on a machine report values before and after a maintenance step: `before` and `after`."),
        ("forecast", "actual", "A weather service compares forecast temperatures `forecast` with measured temperatures `actual`."),
        ("left", "right", "A stereo recorder stores left-channel samples `left` and right-channel samples `right`."),
        ("ours", "theirs", "Two labs measure the same quantities; their results are `ours` and `theirs`."),
    ],
    "pos": [
        ("base", "growth", "A finance model keeps positive base amounts `base` and exponents `growth` for compounding."),
        ("side", "k", "A geometry exercise gives positive lengths `side` and exponents `k`."),
        ("values", "powers", "A physics worksheet lists positive quantities `values` and the powers `powers` to apply."),
    ],
    "int": [
        ("a", "b", "A number-theory homework gives two lists of whole numbers `a` and `b`."),
        ("minutes", "slot", "A timetable tool has durations in whole minutes `minutes` and slot lengths `slot`."),
        ("stock", "pack", "A warehouse has item counts `stock` and pack sizes `pack` (whole numbers)."),
    ],
    "nat": [
        ("pixels", "mask", "An image tool has 8-bit pixel values `pixels` (0 to 255) and per-pixel bit patterns `mask`."),
        ("flags", "other", "A firmware update compares permission bytes `flags` with bytes `other` (integers 0 to 255)."),
        ("register", "bits", "A microcontroller reads register values `register` and control values `bits` (integers 0 to 255)."),
    ],
    "bin": [
        ("door_open", "alarm_armed", "A security system logs per-minute states as 0/1 values: `door_open` and `alarm_armed`."),
        ("passed_theory", "passed_practice", "A driving school stores 0/1 results of the theory test `passed_theory` and the practical test `passed_practice`."),
        ("rain", "wind", "A weather log marks with 0 or 1 whether there was rain (`rain`) and strong wind (`wind`) each day."),
    ],
}
PAIR_DOMAIN = {"pos": "pos", "small": "real", "int": "int", "posint": "int", "nzint": "int", "smallint": "int",
               "nat": "nat", "bin": "bin", "intf": "real", "realnan": "real", "real": "real"}
BIN_PATTERNS = (
    "{setting} Both are {shape}; `{b}` may also be a single number that applies everywhere. Write `{entry}({a}, {b})` returning {desc} for each position, as {out} shaped like the broadcast result.",
    "{setting} Compute {desc} position by position (`{b}` is either a single number or has the same shape as `{a}`) and return the result as {out} in the same nested-list shape.",
    "{setting} Return {out} with one entry per position: {desc}. `{a}` is {shape}; `{b}` matches its shape or is one number.",
)


def _gen2(a, b, da, db):
    lo, hi, dec = RANGES2[da]
    blo, bhi, bdec = RANGES2[db]

    def gen(r, i):
        x = g.arr(r, i, lo, hi, dec, nan=da == "realnan", empty=True)
        if i % 4 == 3 or not isinstance(x, list):
            y = g.num(r, blo, bhi, bdec)
        else:
            y = g.same_shape(r, x, blo, bhi, bdec)
            if db == "realnan" and x and not isinstance(x[0], list):
                y[r.randrange(len(y))] = g.NAN
        if db in ("nzint", "posint") and i % 2 and isinstance(x, list):
            x = g.same_shape(r, x, -30, 30, 0)
        if db == "half" and isinstance(x, list) and x and not isinstance(x[0], list):
            x[r.randrange(len(x))] = 0
        return {a: x, b: y}

    return gen


def binary_templates():
    out = []
    for name, (desc, da, db, outw, stem) in BINARY.items():
        pairs = rotate(PAIRS[PAIR_DOMAIN[da]], name)
        for k, (a, b, setting) in enumerate(pairs[:3]):
            entry = f"{stem}_{a}"
            text = BIN_PATTERNS[(k + len(name)) % len(BIN_PATTERNS)].format(
                setting=setting, shape=SHAPE, entry=entry, a=a, b=b, out=outw, desc=desc.format(a=a, b=b))
            out.append(T(f"{name}.binary.{a}", entry, (a, b), f"return {{{name}}}({a}, {b})", text,
                         _gen2(a, b, da, db)))
    return out


def templates():
    return unary_templates() + binary_templates()
