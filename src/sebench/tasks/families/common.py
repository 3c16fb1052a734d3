"""Shared pieces of the families: settings (realistic contexts) per kind of data, and text helpers.

A setting is (parameter name, sentence describing where the data comes from). Statements never name a
NumPy or package function: they describe the computation in words.
"""

from __future__ import annotations

import zlib

from sebench.tasks import gens as g
from sebench.tasks.spec import Template

# (parameter, sentence) per data domain; the sentence says what the numbers are.
SETTINGS = {
    "real": [
        ("readings", "A weather station logs temperature anomalies (degrees above or below the seasonal norm) as `readings`."),
        ("changes", "A trading desk records the daily price changes of a few stocks in `changes`."),
        ("offsets", "A surveyor measures height offsets (in metres, negative below the reference mark) and stores them in `offsets`."),
        ("samples", "An audio engineer captures a short burst of signal samples in `samples`."),
        ("errors", "A calibration script collects measurement errors of several instruments in `errors`."),
        ("flows", "A bank tracks net cash flows (deposits positive, withdrawals negative) in `flows`."),
        ("velocities", "A physics lab records the velocities of carts on a track (negative means moving left) in `velocities`."),
    ],
    "pos": [
        ("concentrations", "A chemistry lab measures pollutant concentrations (all positive, in mg/L) in `concentrations`."),
        ("distances", "A delivery company logs trip distances in kilometres (all positive) in `distances`."),
        ("prices", "An online shop exports its product prices (positive amounts) as `prices`."),
        ("intensities", "A microscope camera reports positive light intensities per pixel in `intensities`."),
        ("masses", "A warehouse scale records package masses in kilograms (all positive) in `masses`."),
        ("populations", "A census office lists town populations in thousands (positive numbers) as `populations`."),
    ],
    "unit": [
        ("ratios", "A robotics controller produces normalised ratios between -1 and 1 in `ratios`."),
        ("cosines", "A geometry tool computes cosines of the angles between pairs of vectors (values in [-1, 1]) and stores them in `cosines`."),
        ("levels", "A mixing console reports normalised fader levels between -1 and 1 in `levels`."),
        ("scores", "A sentiment model scores customer reviews between -1 (negative) and 1 (positive) in `scores`."),
    ],
    "angle": [
        ("angles", "A robot arm reports its joint angles in radians in `angles`."),
        ("phases", "A power engineer measures phase angles (radians) of alternating currents in `phases`."),
        ("headings", "A drone logs its headings as angles in radians in `headings`."),
        ("theta", "A physics simulation records pendulum deflections in radians in `theta`."),
    ],
    "degrees": [
        ("bearings", "A navigation app stores compass bearings in degrees in `bearings`."),
        ("tilts", "A construction crew measures roof tilts in degrees in `tilts`."),
        ("turns", "A turntable controller logs rotations in degrees (negative is counter-clockwise) in `turns`."),
    ],
    "small": [
        ("rates", "An epidemiology model uses growth rates per day (between -3 and 3) stored in `rates`."),
        ("logits", "A classifier outputs raw scores (logits between -3 and 3) in `logits`."),
        ("activations", "A neural network layer produces pre-activation values in `activations`."),
        ("exponents", "A finance analyst keeps continuously compounded returns in `exponents`."),
    ],
    "int": [
        ("counts", "An inventory system records stock adjustments as whole numbers (negative for removals) in `counts`."),
        ("steps", "A pedometer app stores daily step differences (whole numbers) in `steps`."),
        ("codes", "A factory logs integer status codes from its machines in `codes`."),
        ("votes", "A polling app stores net votes (upvotes minus downvotes, whole numbers) in `votes`."),
    ],
}


def rotate(items: list, key: str) -> list:
    """`items` rotated by a stable hash of key, so that similar functions get different settings first."""
    k = zlib.crc32(key.encode()) % max(1, len(items))
    return list(items[k:]) + list(items[:k])


def T(key: str, entry: str, params, body: str, texts, gen, **kw) -> Template:
    """A template; `params` may be a space-separated string, `texts` a single string."""
    if isinstance(params, str):
        params = tuple(params.split())
    if isinstance(texts, str):
        texts = (texts,)
    return Template(key=key, entry=entry, params=tuple(params), body=body.strip("\n"),
                    texts=tuple(" ".join(t.split()) for t in texts), gen=gen, **kw)


__all__ = ["SETTINGS", "T", "g", "rotate"]
