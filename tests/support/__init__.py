"""Helpers the tests share."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # the source checkout the tests run from
