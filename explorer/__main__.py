"""``python -m explorer`` runs the command line."""

from explorer.cli import main

main()
