"""Domain rules: pure Python, no I/O."""
