"""What runs beside the student's code: imports only autograder.public and this package."""
