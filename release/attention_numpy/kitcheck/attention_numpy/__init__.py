"""Probes and visible checks of attention_numpy."""
