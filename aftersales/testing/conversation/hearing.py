"""What the scripted customer hears in a message that asks nothing (docs/tasks.md, "The scripted customer").

The phrasings of the agent meeting or refusing the need, closing the conversation, making a neutral statement, or
saying a fact the customer gave was not found. vocabulary.py holds the phrasings that ask for facts.
"""

import re

from aftersales.testing.conversation.vocabulary import rx

ANYTHING_ELSE = rx(
    r"\b(anything|something) (else|more)\b",
    r"\bany other (questions|issues|problems|concerns)\b",
)
GOODBYE = rx(r"\b(goodbye|bye|good bye|farewell|take care)\b", r"\bhave a (good|great|nice|lovely) (day|one|evening)\b")
REFUSAL = rx(
    r"\b(cannot|can not|unable to|not able to|will not be able|would not be able|not possible|impossible)\b",
    r"\b(not eligible|ineligible|afraid|unfortunately|refused|denied|not allowed|no longer|could not|did not find)\b",
)
REASON = rx(
    r"\b(because|since|due to|as it|as the|as your|as this|as they|policy|window|eligib\w*|returnable|already)\b",
    r"\b(past|expired|outside|only|limit|warranty|exist|exists|find|found|record|status|stage|allowed|rule|yet)\b",
    r"\b(excluded|exclusion|hygiene|safety)\b",
    r"\bso (a|the|i|we|it|this|that|there)\b",
)
# For an open_ticket need: a sentence with a ticket number and these is about another ticket, not a new one.
OTHER_TICKET = rx(r"\b(already|existing|another|earlier|previous|open ticket)\b")
CANCELLED = rx(r"\b(cancelled|canceled|withdrawn|closed)\b")
NEGATION = rx(r"\b(not|cannot|unable|never|no longer|afraid|unfortunately)\b")
# "A ticket can be cancelled only in review": a sentence about when a cancellation could happen is no cancellation.
CONDITIONAL = rx(r"\b(can|could|may|might|only|if|unless|until)\b")
STATUS = rx(
    r"\b(under review|in review|being reviewed|review stage|awaiting (the |your )?(return|parcel)|in repair)\b",
    r"\b(being repaired|repair stage|refund stage|refunding|being refunded|refunded|completed|closed|finished)\b",
    r"\b(rejected|approved|cancelled|canceled|shipped|on its way|(stage|status) (is|shows|reads))\b",
    r"\bwaiting for (the|your) (return|parcel|item|package)\b",
    r"\brefund (has been|was|is being|is) (issued|processed|paid|sent|completed|on its way)\b",
)
# Statements that ask nothing, by kind: the customer answers each with a short neutral line.
STATEMENTS: dict[str, tuple[re.Pattern[str], ...]] = {
    "holding": rx(
        r"\b(let me|allow me to|i will|i am going to|i need to)( just| quickly| now)? (check|look|see|verify|pull|find"
        r"|search|review|confirm|get|have a look|dig|take a look|go through|open|create|raise|process|start|cancel)\b",
        r"\b(one|a|just a|give me a|wait a) (moment|second|sec|minute|mo)\b",
        r"\b(bear with me|hold on|hang on|please hold|please wait|stay with me)\b",
        r"\b(i am|we are) (checking|looking|searching|reviewing|processing|working|pulling|opening|creating)\b",
    ),
    "update": rx(
        r"\bi (have|found|located|can see|see|checked|looked|pulled|managed)\b",
        r"\b(it|this|that) (looks|seems|appears)\b",
        r"\baccording to\b",
        r"\b(your|the) ([a-z]+ )?(order|ticket|item|refund|return|account|parcel|package|product|line|request|email"
        r"|number|phone|name|label)s? (is|are|was|were|has|have|will|would|shows|show|came|went)\b",
        r"\byou (will|would|should) (get|receive|be|see)\b",
        r"\bthe (refund|estimate|amount|total|fee|policy)\b",
        r"\b(i|we) (will|am going to|are going to|can) [a-z]+\b",  # an announcement: "I'll send you the label"
    ),
    "greeting": rx(
        r"^(hi|hello|hey|good (morning|afternoon|evening)|greetings|welcome|dear)\b",
        r"\bthanks? (you )?for (contacting|reaching|getting in touch|writing)\b",
    ),
    "acknowledgement": rx(
        r"\b(thanks|thank you|got it|noted|understood|i understand|sorry to hear|so sorry|i am sorry|apologies)\b",
        r"\b(that must be|no problem|of course|certainly|sure|great|perfect|okay|ok|alright|all right|fair enough)\b",
    ),
}
ANYTHING_TO_ADD = rx(
    r"\b(anything|something) (else|more) (you|to) (would like to |want to |wish to |can )?(add|tell|mention|share)\b",
    r"\b(anything|something) else (i|we) should know\b",
)
# The agent telling the customer a value they gave is wrong: a customer who got a fact wrong (`mistakes`) then gives
# the right one. Said of a fact by its topic word ("I can't find that order"), else of every fact still wrong.
NOT_FOUND = rx(
    r"\b(cannot|can not|could not|unable to|not able to|did not|do not|failed to) (seem to )?(find|locate|match"
    r"|pull up|look up|verify|see (it|that|this|an|any))\b",
    r"\b(does|do|did) not (match|exist|seem right|look right|check out|come up|show up)\b",
    r"\bnot (found|recognised|recognized|valid|on file|on record|in our system)\b",
    r"\bno (order|orders|account|ticket|customer|record|records|match|matches|result|results)\b.{0,40}"
    r"\b(with|under|for|matching|found|by|on)\b",
    r"(?<!what )\b(is|was|seems|looks|appears) (to be )?(wrong|incorrect|invalid|not right)\b",
    r"\b(wrong|incorrect|invalid|unknown) (order|email|number|id|phone|account|ticket|customer)\b",
    r"\bnothing (comes|came|shows|showed) up\b",
)
TOPICS: dict[str, tuple[re.Pattern[str], ...]] = {
    "order_id": rx(r"\b(order|purchase)s?\b"),
    "email": rx(r"\bemails?\b", r"\baddress\b"),
    "phone": rx(r"\b(phone|mobile|telephone)\b"),
    "customer_id": rx(r"\b(customer|account)\b"),
    "ticket_id": rx(r"\b(ticket|case|claim|request)s?\b"),
    "name": rx(r"\bname\b"),
    "product": rx(r"\b(item|product)s?\b"),
    "line_no": rx(r"\bline\b"),
}
