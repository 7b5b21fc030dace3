"""What the scripted customer says: short fixed lines and templates filled with the task's values."""

from aftersales.testing.tasks import Scalar

_WORDS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth")

_TEMPLATES = {
    "order_id": "My order number is {}.",
    "email": "My email is {}.",
    "phone": "My phone number is {}.",
    "customer_id": "My customer ID is {}.",
    "name": "My name is {}.",
    "ticket_id": "The ticket number is {}.",
    "product": "It's the {}.",
    "quantity_bought": "I bought {}.",
    "delivered_on": "It arrived on {}.",
    "ordered_on": "I ordered it on {}.",
}
# What the customer calls a fact it does not have.
_LABELS = {
    "order_id": "the order number",
    "email": "the email address",
    "phone": "a phone number",
    "customer_id": "a customer ID",
    "name": "that",
    "ticket_id": "a ticket number",
    "product": "the product's name",
    "line_no": "the line number",
    "quantity_bought": "how many I bought",
    "delivered_on": "the delivery date",
    "ordered_on": "the order date",
}
_KINDS = {
    "return_and_refund": "I'd like to send it back for a refund.",
    "refund_only": "I'd like a refund without sending it back.",
    "exchange": "I'd like to exchange it for the same item.",
    "repair": "I'd like it repaired.",
}
_ACTIONS = {
    "open_ticket": "I'd like some help with my order.",
    "cancel_ticket": "I'd like to cancel my ticket.",
    "check_ticket": "I'd like to know how my ticket is getting on.",
}
_REASONS = {
    "damaged": "It arrived damaged.",
    "defective": "It's faulty.",
    "wrong_item": "I was sent the wrong item.",
    "not_as_described": "It isn't as described.",
    "missing_parts": "Parts are missing.",
    "no_longer_needed": "I just don't need it any more.",
    "late_delivery": "It arrived too late.",
    "other": "It's for another reason.",
}
_METHODS = {
    "original_payment": "Back to my original payment method, please.",
    "store_credit": "Store credit, please.",
    "bank_transfer": "To my bank account, please.",
}
NO_METHOD = {
    "decline": "I'd rather not choose how the money comes back.",
    "cancel": "I'm not sure yet how I want the money back.",
    None: "I don't mind how the money comes back.",
}
REPAIR = {True: "Yes, a repair would be fine.", False: "No, I don't want a repair."}
CONFIRM = {"yes": "Yes, please go ahead.", "no": "No, please don't.", "unsure": "I'd rather not decide now, so no."}

MET = "Great, thank you, that's all I needed."
REFUSED = "I see. Thanks for explaining."
WHY_NOT = "Oh. Can you tell me why not?"
ALL_SAID = "No, that's all, thanks. Bye."
GOODBYE = "Bye, thanks."
NOTHING_TO_ADD = "No, that's everything."
STATEMENT = {
    "holding": "Sure, I'll wait.",
    "update": "Okay.",
    "greeting": "Hi.",
    "acknowledgement": "Okay, thanks.",
}
TURN_LIMIT = "Sorry, I have to go now."
CORRECTED = "Sorry, I got that wrong."  # before the right value of a fact they first gave wrong
CHANGED_MIND = "Actually, I've changed my mind."  # before the new value, the first time they give it


def count(number: int) -> str:
    """A small number as a word ("three"), a large one as digits."""
    return _WORDS[number - 1] if 1 <= number <= len(_WORDS) else str(number)


def line(number: int) -> str:
    """An order line as the customer thinks of it: "the first item on the order"."""
    place = _ORDINALS[number - 1] if 1 <= number <= len(_ORDINALS) else f"number {number}"
    return f"It's the {place} item on the order."


def fact(name: str, value: Scalar) -> str:
    """The sentence that gives one known fact."""
    if name in _TEMPLATES:
        return _TEMPLATES[name].format(value)
    if name == "line_no":
        return line(int(str(value)))
    if name == "wants.quantity":
        number = int(str(value))
        return "Just one." if number == 1 else f"{count(number).capitalize()} of them."
    if name == "wants.kind":
        return _KINDS[str(value)]
    if name == "wants.action":
        return _ACTIONS[str(value)]
    if name == "wants.reason_code":
        return _REASONS[str(value)]
    if name == "wants.refund_method":
        return _METHODS[str(value)]
    if name == "wants.accepts_repair":
        return REPAIR[bool(value)]
    return str(value)  # story and wants.description: the customer's own words


def unknown(name: str) -> str:
    """The sentence for a fact the customer does not have."""
    return f"I'm afraid I don't have {_LABELS.get(name, 'that')} to hand."
