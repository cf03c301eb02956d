# (tests for this area are listed here)
