"""Conversation trials: a simulated customer the agent talks with over a channel, its turns in the world's trace."""
