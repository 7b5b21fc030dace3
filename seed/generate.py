"""Regenerate the committed baseline: `python seed/generate.py` (same as `aftersales seed generate --baseline`).

The generator itself lives in aftersales/seeding/ so the CLI can use it; the random seed is fixed
(aftersales.seeding.generator.DEFAULT_SEED), so the output is byte-for-byte the same on every run.
"""

from aftersales.cli.main import main

if __name__ == "__main__":
    raise SystemExit(main(["seed", "generate", "--baseline"]))
