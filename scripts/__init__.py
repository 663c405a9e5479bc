"""Maintenance scripts, run by hand (`python scripts/NAME.py --help`)."""
