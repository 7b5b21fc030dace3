"""Callers and secrets: signed caller tokens and the keys behind them."""
