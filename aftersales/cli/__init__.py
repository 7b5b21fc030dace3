"""The command line: `aftersales serve | db | seed`."""
