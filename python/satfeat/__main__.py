"""`python3 -m satfeat` is `python3 -m satfeat.batch` (features of an image collection)."""
from .batch import main

raise SystemExit(main())
