"""Attention exercise package."""
from ._impl import *  # noqa: F401,F403
