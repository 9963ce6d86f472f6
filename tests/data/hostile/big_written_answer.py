# Its correct code sits in a notebook of 48 MB: a written answer of 40 MB and 100,000 answer cells.
