from hpcab.cli import main

raise SystemExit(main())
