"""`python -m hopgraph …`: the same command line as `hopgraph …`."""

from hopgraph.cli.app import main

if __name__ == "__main__":
    main()
