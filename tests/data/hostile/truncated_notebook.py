# Its correct code sits in a notebook cut off two thirds of the way through, as an interrupted upload leaves it.
