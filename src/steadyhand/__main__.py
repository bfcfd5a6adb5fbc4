from steadyhand.fronts.cli_relay import main

raise SystemExit(main())
