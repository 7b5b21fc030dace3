"""Allow `python -m aftersales`."""

from aftersales.cli.main import main

raise SystemExit(main())
