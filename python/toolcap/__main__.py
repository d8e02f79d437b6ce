"""`python -m toolcap`: the toolcap command."""

from toolcap._toolcap import main

raise SystemExit(main())
