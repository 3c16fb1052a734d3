"""Numbers: polynomials, primes and factors, multinomial coefficients, running medians, the DFT."""

from __future__ import annotations

from sebench.libraries.more_itertools.families.common import G, I, L, S


def _poly(r, i):
    return {"coefficients": [r.randint(-5, 5) for _ in range(r.randint(1, 5))], "x": r.randint(-4, 4)}


def templates() -> list:
    return [
        S("polynomial_eval", "evaluate_poly", "coefficients x", "return {polynomial_eval}(coefficients, x)", (
            "A polynomial is given by its integer `coefficients`, highest power first (so [2, 0, 1] is 2x^2 + 1). Return its value at `x`.",
            "An engineer stores a calibration curve as the coefficient list `coefficients` in descending powers of x. Evaluate it at the point `x` and return the value.",
        ), _poly),
        S("polynomial_derivative", "slope_poly", "coefficients", "return list({polynomial_derivative}(coefficients))", (
            "Return the coefficients (highest power first) of the derivative of the polynomial whose coefficients, highest power first, are `coefficients`.",
            "A physics app stores position as a polynomial in time, `coefficients` in descending powers. Return the velocity polynomial's coefficients in the same convention (a constant gives an empty list).",
        ), lambda r, i: {"coefficients": [r.randint(-5, 5) for _ in range(r.randint(1, 6))]}),
        S("polynomial_from_roots", "expand_roots", "roots", "return list({polynomial_from_roots}(roots))", (
            "Return the coefficients, highest power first, of the monic polynomial whose roots are the integers `roots` (with multiplicity); no roots gives [1].",
            "Expand the product (x - r1)(x - r2)... over the roots in `roots` and return the coefficient list in descending powers.",
        ), G(roots=L(-4, 4, (0, 5)))),
        S("sieve", "primes_below", "n", "return list({sieve}(n))", (
            "Return all prime numbers strictly less than `n`, in increasing order.",
            "A cryptography class needs the table of primes below the bound `n`. Return it as an ascending list.",
        ), G(n=I(0, 200))),
        S("factor", "prime_factors", "n", "return list({factor}(n))", (
            "Return the prime factors of the positive integer `n` in non-decreasing order, each repeated as often as it divides `n` (1 has none).",
            "A maths tutor decomposes `n` into primes, listing repeated primes as many times as they occur, smallest first. Return the list.",
        ), G(n=I(1, 10000))),
        S("is_prime", "prime_check", "n", "return {is_prime}(n)", (
            "Return True if the integer `n` is a prime number, else False.",
            "A game gives a bonus on prime-numbered turns; return whether turn `n` is prime.",
        ), G(n=I(0, 5000))),
        S("nth_prime", "prime_number", "k", "return {nth_prime}(k)", (
            "Return the prime at 0-based position `k` of the ascending list of all primes (k = 0 gives 2).",
            "Primes are numbered from 0 (2 is prime number 0, 3 is prime number 1, ...). Return prime number `k`.",
        ), G(k=I(0, 1000))),
        S("totient", "coprime_count", "n", "return {totient}(n)", (
            "Return how many integers from 1 to `n` share no common factor greater than 1 with `n` (Euler's phi).",
            "A clock with `n` positions: count the step sizes from 1 to `n` that are coprime to `n`. Return that count.",
        ), G(n=I(1, 5000))),
        S("multinomial", "arrangements_of_counts", "counts", "return {multinomial}(*counts)", (
            "Return the number of distinct orderings of a multiset in which the k-th kind of item occurs counts[k] times (the multinomial coefficient).",
            "A bead maker has counts[k] identical beads of colour k. In how many different orders can all the beads be strung in a row? Return the number.",
        ), G(counts=L(0, 4, (1, 4), empty=False))),
        S("running_median", "median_so_far", "values", "return list({running_median}(values))", (
            "For each prefix of `values` (first item, first two items, ...), return its median; for an even count the median is the mean of the two middle values.",
            "A stock app shows, after each new price in `values`, the median of all prices seen so far (averaging the two middle prices for even counts). Return those medians.",
        ), G(values=L(0, 20, (0, 8)))),
        S("dft", "spectrum_magnitudes", "samples", "return [round(abs(c), 6) for c in {dft}(samples)]", (
            "Compute the discrete Fourier transform of `samples` and return the magnitude of each coefficient, rounded to 6 decimals.",
            "A sound engineer wants the magnitude (absolute value, rounded to 6 decimals) of every DFT coefficient of the samples `samples`.",
        ), G(samples=L(-4, 4, (1, 6), empty=False))),
    ]
