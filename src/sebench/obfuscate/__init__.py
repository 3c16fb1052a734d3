"""Turns NumPy into a pseudo-novel package: seeded names (names.py), the covered surface (surface.py),
the generated package (package.py + runtime.py), docs (docs.py), the leak audit (audit.py), and the
`sebench build` pipeline that ties them together (build.py, cli.py)."""
