"""Entering the benchmark: `sebench submit` packs one method's run into a bundle (bundle.py), `sebench verify`
reads a stranger's bundle safely (safe.py), re-judges it against its own records and the rebuilt instance
(verify.py, crosscheck.py) and re-runs its method in the fence (rerun.py), and `sebench leaderboard` verifies
and ranks bundles on a static page (leaderboard.py, page.py). docs/leaderboard.md."""

from sebench.exports import front_door

__all__ = ["Bundle", "Verification", "read_bundle", "rerun_bundle", "verify_bundle", "write_bundle",
           "write_leaderboard"]
__getattr__ = front_door(__name__, __all__, {
    "bundle": ("Bundle", "read_bundle", "write_bundle"),
    "verify": ("Verification", "verify_bundle"),
    "rerun": ("rerun_bundle",),
    "leaderboard": ("write_leaderboard",),
})
