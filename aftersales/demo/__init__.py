"""`aftersales demo`: a browser page showing both sides of elicitation, on two protocol revisions at once."""
