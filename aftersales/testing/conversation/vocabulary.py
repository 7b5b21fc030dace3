"""What the scripted customer understands: the one place its phrasings live (docs/tasks.md, "The scripted customer").

reading.py splits an agent's message into sentences and normalises them (lower case, straight quotes, contractions
expanded, punctuation dropped). A sentence is a *request* when it ends with "?", starts with a question word, or
holds a request cue ("please", "could you", "tell me", "I need", ...). Only requests ask for facts; a request that
names a literal value without a question mark ("Your ticket number is T-2026-0412.") informs, it does not ask.

    what the agent says                                  what it asks for (fact name)
    "what's your order number?", "which order is it?"    order_id
    "the email on your account?"                         email
    "a phone number we can reach you on?"                phone
    "your customer ID / account number?"                 customer_id
    "may I have your full name?"                         name
    "which ticket?", "the case number?"                  ticket_id
    "which item is it?", "what did you buy?"             product (line_no when the product is not known)
    "which line on the order?"                           line_no
    "how many did you buy?"                              quantity_bought
    "how many pairs are faulty?", "all or just one?"     wants.quantity
    "when did it arrive?", "the delivery date?"          delivered_on
    "when did you order it?"                             ordered_on
    "what happened?", "what's wrong with it?"            story
    "a short description for the ticket?"                wants.description (story when it has none)
    "why are you returning it?", "the reason?"           wants.reason_code
    "how can I help?", "refund or exchange?"             wants.kind (wants.action for cancel or check needs)
    "original card or store credit?"                     wants.refund_method
    "would a repair be OK?"                              wants.accepts_repair
    "shall I go ahead?", "can you confirm?"              confirm (only when the sentence asks nothing else)

A message that asks nothing is read, with hearing.py's patterns, as one of: the agent meeting the need (a ticket
number for an open_ticket need, "cancelled" for cancel_ticket, a stage or status for check_ticket), a refusal ("I'm
afraid I can't ... because ..."), a closing ("anything else?", "goodbye"), or a neutral statement (a greeting, a
holding message such as "let me check that", an acknowledgement, an update such as "I can see your order").
Anything else is a miss. A customer who gave a fact wrong (`mistakes`) hears hearing.NOT_FOUND ("I can't find that
order") as asking for it again (hearing.TOPICS).
"""

import re

MISS_REPLY = "Sorry, I don't follow — what do you need from me?"

CONTRACTIONS = (
    (r"\bcan't\b", "cannot"),
    (r"\bwon't\b", "will not"),
    (r"\bshan't\b", "shall not"),
    (r"\blet's\b", "let us"),
    (r"\b(what|that|it|who|where|there|how|here|which|this)'s\b", r"\1 is"),
    (r"n't\b", " not"),
    (r"'re\b", " are"),
    (r"'ve\b", " have"),
    (r"'ll\b", " will"),
    (r"'d\b", " would"),
    (r"'m\b", " am"),
    (r"'s\b", ""),  # a possessive: "the order's number" reads as "the order number"
)


CLAUSE_BREAK = re.compile(
    r",?\s+and\s+(?=(?:what|which|how|when|who|whose|why|where|the|your|tell|could|can|would|will|is|are|do|did|if)\b)"
    r"|,\s+(?=(?:and|also|then|plus)\b)"
)


def rx(*patterns: str) -> tuple[re.Pattern[str], ...]:
    """Patterns compiled, to be matched on normalised text (reading.matches)."""
    return tuple(re.compile(pattern) for pattern in patterns)


QUESTION_START = rx(
    r"^(and |so |also |ok |okay |great |thanks |first |next |lastly |finally )?(what|which|who|whose|when|where|how"
    r"|could|can|would|will|may|might|do|does|did|is|are|was|were|have|has|shall|should)\b"
)
REQUEST_CUE = rx(
    r"\bplease\b(?! (note|be aware|allow|wait|hold|bear|see|expect|keep))",
    r"\b(i|we) (will |would |also |just )?(need|require)\b",
    r"\b(let me know|tell me|share|provide|give me|send me|remind me|confirm|mind)\b",
    r"\b(i|we) would like (your|the|to know|to have|to confirm)\b",
    r"\b(type|enter) (in )?(your|the)\b",
)
# A literal identifier, e-mail address or amount: a sentence holding one without "?" is the agent telling a value.
LITERAL = re.compile(r"\b[A-Za-z]-\d{4,}(-\d+)?\b|[\w.+-]+@[\w-]+\.[\w.]+|\b\d+[.,]\d{2}\b")
TICKET_NUMBER = re.compile(r"\bT-\d{4}-\d{3,}\b", re.IGNORECASE)


_KIND_WORD = r"(refund|return|exchange|replacement|replace|repair|swap|money back|send|keep|fix)\w*"
# Fact name -> the phrasings that ask for it, on normalised text.
FACTS: dict[str, tuple[re.Pattern[str], ...]] = {
    "order_id": rx(
        r"\b(order|purchase) (number|no|num|id|identifier|reference|ref|code|confirmation)\b",
        r"\b(which|what) (order|purchase)\b",
        r"\bnumber (of|on|for) (the|your|that) order\b",
        r"\b(order|purchase) (is|was) (this|it|that) (about|for|from|regarding|on|under)\b",
    ),
    "email": rx(
        r"\bemail address(es)?\b",
        r"\b(your|the|which|what|registered|account|contact|login|same) (\w+ )?email\b",
        r"\bemail (on|for|linked|associated|registered|tied|attached|used|you used|you registered)\b",
        r"^(and )?(your )?email\b",
    ),
    "phone": rx(
        r"\b(phone|mobile|cell|telephone|contact) (number|no)\b",
        r"\b(your|a|the) (mobile|telephone)\b",
        r"\bnumber (i|we) can (call|reach|text)\b",
        r"\b(call|reach|text) you (on|at)\b",
    ),
    "customer_id": rx(
        r"\b(customer|client|account|member|membership|loyalty|user) (id|identifier|number|no|code|reference)\b",
    ),
    "name": rx(
        r"\b(your|full|first|last|family) name\b",
        r"\bname (is )?(it )?(on|for|under) (the|your|it)\b",
        r"\bwhat name\b",
        r"\bwho (am i|i am) (speaking|talking|chatting) (to|with)\b",
        r"\bwhat (should|shall|can|may) i call you\b",
        r"\bwhose name\b",
    ),
    "ticket_id": rx(
        r"\b(ticket|case|request|claim|return|rma|complaint|incident) (number|no|id|reference|ref)\b",
        r"(?<!order )\breference (number|code)\b",
        r"\b(which|what) (ticket|case|claim|request|return)\b",
        r"\bticket (do you|you) (want|would like|mean|need)\b",
    ),
    "product": rx(
        r"\b(which|what) (item|product|article|model|device|thing|goods|book|appliance)s?\b",
        r"\b(item|product|model)s? (is it|is this|is that|are we talking|are you)\b",
        r"\bwhat (did|have) you (buy|bought|order|purchase|get)\b",
        r"\bname of the (item|product)\b",
        r"\bwhat (are you|would you like to|do you want to|you want to) (return|send|exchang|get repaired|refund)\w*\b",
        r"\bwhat (is|was) (the|your) (item|product)\b",
    ),
    "line_no": rx(
        r"\b(which|what) (line|position|row)\b",
        r"\bline (number|no|item)\b",
        r"\bline on the order\b",
        r"\bthe line\b(?! (of|down|across|running|on the screen))",
    ),
    "quantity_bought": rx(
        r"\b(how many|quantity|number)\b.*\b(did you (buy|order|purchase|get)|you (bought|ordered|purchased))\b",
        r"\bhow many\b.*\b(were (on|in) (the|your) order|bought|ordered|purchased|in total)\b",
        r"\bhow many (came|were) in (the|your) (order|parcel|package)\b",
    ),
    "wants.quantity": rx(
        r"\bhow many\b(?! (days|weeks|months|times|hours|minutes|years))",
        r"\b(quantity|number of (items|units|pieces|pairs))\b",
        r"\b(all|both) of them or\b",
        r"\b(just|only) (one|the one|some)\b.*\bor\b",
        r"\bor (just|only) (one|some|part)\b",
    ),
    "delivered_on": rx(
        r"\bwhen\b.*\b(arrive|arrived|deliver|delivered|receive|received|get it|got it|get them|got them|come)\b",
        r"\bdelivery date\b",
        r"\b(date|day) (of|it was) (delivery|delivered|arrival)\b",
        r"\bhow long (ago|have you had)\b",
    ),
    "ordered_on": rx(
        r"\bwhen (did|was|were) (you |it |they |this |the order )?(buy|bought|order|purchase|place)(ed|d)?\b",
        r"\bwhen you (bought|ordered|purchased|placed)\b",
        r"\b(order|purchase) date\b",
    ),
    "wants.description": rx(
        r"\bdescription\b",
        r"\bin your own words\b",
        r"\bwhat (should|shall) i (write|put|note)\b",
    ),
    "story": rx(
        r"\bwhat (exactly )?(happened|happens|is happening|went wrong|is wrong|seems to be|is going on)\b",
        r"\bwhat (exactly )?(is the matter|is up)\b",
        r"\bwhen did (it|they) (stop|start|break)\b",
        r"\bwhat (is|was) (the )?(issue|problem|fault|defect|trouble)\b",
        r"\b(describe|explain)\b",
        r"\btell me (more|about|what)\b",
        r"\bwhat (kind|sort|type) of (problem|issue|fault|damage|defect)\b",
        r"\b(in what way|how) (is|was|are|were) (it|they) (faulty|broken|damaged|defective)\b",
        r"\bwhat (is|are) the (symptoms|problems|issues)\b",
    ),
    "wants.reason_code": rx(
        r"\breason (for|why|behind|you)\b",
        r"\bwhat (is|was) the reason\b",
        r"\b(main|your) reason\b",
        r"(?<!that is )(?<!this is )\bwhy (do|did|are|would|is|does|was|were) (you|it|they|the|this)\b",
        r"^(and |so |but )?why\b",
    ),
    "wants.kind": rx(
        r"\bhow (can|may|could|shall) (i|we) help\b",
        r"\bwhat (can|could|may) (i|we) do for you\b",
        r"\bwhat (would|do) you (like|want|need) (to do|done|us to do|me to do|from us|from me|to happen)\b",
        r"\bwhat (are you|you are) (looking|hoping|asking) for\b",
        r"\b(kind|type|sort) of (help|resolution|solution|service|request|ticket|outcome)\b",
        r"\bhow (would|do) you (like|want) (this|it|that|them|things) (resolved|handled|sorted|dealt with|fixed)\b",
        r"\b(would|do) you (like|want|prefer) (a|an|to get a|your) (refund|replacement|exchange|money back)\b",
        rf"\b{_KIND_WORD}\b.{{0,60}}\bor\b.{{0,60}}\b{_KIND_WORD}\b",
    ),
    "wants.refund_method": rx(
        r"\b(original|same) (payment|card|method|account|form of payment)\b",
        r"\bstore credit\b",
        r"\b(refund|payout|payment) (method|option|preference)\b",
        r"\bhow (would|do|should) you (like|want|prefer) (to be (refunded|paid)|(your|the) (refund|money))\b",
        r"\bwhere (should|shall|do you want|would you like) (the|your) (money|refund)\b",
        r"\b(card|wallet|bank) or (store )?credit\b",
        r"\bcredit or (card|original|a refund to)\b",
    ),
    "wants.accepts_repair": rx(r"\b(repair|repaired|repairing|fixed|fix it|fix them|fixing|mended)\b"),
    "confirm": rx(
        r"\b(shall|should|can|may) (i|we) (go ahead|proceed|continue|submit|open|create|raise|file|log|cancel|place"
        r"|start|process|book|register|put|do)\b",
        r"\b(do|would) you (want|like) me to\b",
        r"\b(is|does) (that|this|it) (ok|okay|alright|all right|fine|correct|right|good|sound|work)\b",
        r"\bconfirm\b",
        r"\b(go ahead|proceed|agree|happy for me|are you sure|ok to|okay to)\b",
        r"\bwant me to\b",
    ),
}
# A fact found in a sentence hides these in that sentence: the more specific reading wins.
HIDES: dict[str, frozenset[str]] = {
    "wants.refund_method": frozenset({"wants.kind", "wants.accepts_repair"}),
    "wants.kind": frozenset({"wants.accepts_repair", "product", "ticket_id"}),
    "quantity_bought": frozenset({"wants.quantity"}),
    "wants.description": frozenset({"story"}),
    "ordered_on": frozenset({"delivered_on"}),
}
# A confirmation is asked only by a sentence that asks nothing else ("can you confirm your email?" asks the email).
