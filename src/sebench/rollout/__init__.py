"""Asking models for solutions: prompts per mode, backends chosen by spec, and the resumable run."""
