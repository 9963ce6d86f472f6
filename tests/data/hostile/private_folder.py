# Its correct code sits in a folder only its owner may open (mode 0700), as an instructor's umask 077 leaves it.
