"""Errors the kit reports to a person: each says what is wrong and what to do."""


class KitError(Exception):
    """Bad input or set-up. The command prints the message and exits with status 2."""
