# Its correct code, on a host where the sandbox's uid cannot read the kit's copy of it (the copy's folder 0700).
