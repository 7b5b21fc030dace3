"""An agent that makes no call at all: it must fail every task whose right outcome changes the world."""

print("Thank you for contacting us.")
