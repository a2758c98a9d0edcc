from paicli_tui.cli import main

raise SystemExit(main())
