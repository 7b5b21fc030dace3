"""Benchmarks: aftersales against the SDK's own floor, and query cost as the data grows (`make bench`)."""
