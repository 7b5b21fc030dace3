"""The seeded world: a deterministic generator, the dataset file, and its loader."""
