from steadyhand.fronts.cli import main

raise SystemExit(main())
