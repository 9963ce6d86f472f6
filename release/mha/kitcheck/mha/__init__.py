"""Probes and visible checks of mha."""
