# Its correct code sits in a notebook whose JSON a merge left conflict markers in.
