"""`sebench build`: an instance directory from a seed (the obfuscate stage's package and docs, the tasks
stage's splits, the leak audit, the manifest)."""
