"""``python -m tools.sdk_types [--check]``: write the SDKs' generated constants
and types, or check that the checked-in ones are what the server's documents
give (exit status 1, with the differences, when they are not)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import REGENERATE, ROOT, differences, documents, render, write


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.sdk_types", description=__doc__)
    parser.add_argument("--check", action="store_true", help="fail if the checked-in files are not what it generates")
    parser.add_argument("--root", type=Path, default=ROOT, help="the repository to write or check (default: this one)")
    args = parser.parse_args(argv)
    files = render(*documents())
    if args.check:
        reports = differences(files, args.root)
        if reports:
            print("\n\n".join(reports), file=sys.stderr)
            print(f"\nThe SDKs' generated types are out of date: {REGENERATE}.", file=sys.stderr)
            return 1
        print(f"SDK types up to date ({len(files)} files)")
        return 0
    write(files, args.root)
    print(f"wrote {len(files)} files under {', '.join(sorted({name.rsplit('/', 1)[0] for name in files}))}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
