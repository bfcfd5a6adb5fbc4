from steadyhand.fronts.cli.relay import main

raise SystemExit(main())
