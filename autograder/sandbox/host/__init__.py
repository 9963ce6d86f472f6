"""The trusted side of the sandbox: starts, bounds, talks to and ends student processes."""
