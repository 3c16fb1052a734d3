"""placeholder"""
def write_leaderboard(bundles, out):
    raise NotImplementedError
