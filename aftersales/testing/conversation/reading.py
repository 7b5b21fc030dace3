"""Reading an agent's message with the vocabulary: sentences, clauses, requests, the facts asked, statements."""

import re
from collections.abc import Iterable

from aftersales.testing.conversation import hearing, vocabulary


def normalise(text: str) -> str:
    """Lower case, straight quotes, contractions expanded, "#" read as "number", punctuation dropped."""
    text = text.lower().replace("\u2019", "'").replace("\u2018", "'").replace("e-mail", "email")
    for pattern, replacement in vocabulary.CONTRACTIONS:
        text = re.sub(pattern, replacement, text)
    text = text.replace("#", " number ").replace("&", " and ")
    return " ".join(re.sub(r"[^a-z0-9]+", " ", text).split())


def sentences(text: str) -> list[str]:
    """The message's sentences, as written."""
    return [part.strip() for part in re.split(r"(?<=[.!?;])\s+|\n+", text) if part.strip()]


def clauses(norm: str) -> list[str]:
    """The parts of a normalised sentence that each ask one thing ("how many did you buy and how many are faulty")."""
    return [part for part in vocabulary.CLAUSE_BREAK.split(norm) if part]


def is_request(sentence: str, norm: str) -> bool:
    """Whether a sentence asks the customer something (a literal value without "?" is the agent informing)."""
    if sentence.rstrip().endswith("?"):
        return True
    if vocabulary.LITERAL.search(sentence):
        return False
    return matches(norm, vocabulary.QUESTION_START) or matches(norm, vocabulary.REQUEST_CUE)


def first_match(norm: str, patterns: Iterable[re.Pattern[str]]) -> int | None:
    """Where the earliest of the patterns matches, if any does."""
    found = [m.start() for pattern in patterns if (m := pattern.search(norm))]
    return min(found) if found else None


def matches(norm: str, patterns: Iterable[re.Pattern[str]]) -> bool:
    """Whether any of the patterns matches."""
    return first_match(norm, patterns) is not None


def asked(message: str) -> list[str]:
    """The facts a message asks for, in the order it asks them (a confirmation only from a sentence asking no fact)."""
    found: list[str] = []
    for sentence in sentences(message):
        norm = normalise(sentence)
        if not is_request(sentence, norm):
            continue
        asks = [_facts(clause) for clause in clauses(sentence_norm(sentence))]
        if any(set(hits) - {"confirm"} for hits in asks):  # "can you confirm your email?" asks for the email
            asks = [[name for name in hits if name != "confirm"] for hits in asks]
        for name in (name for hits in asks for name in hits):
            if name not in found:  # a fact asked twice (in two clauses) is given once
                found.append(name)
    return found


def sentence_norm(sentence: str) -> str:
    """A sentence normalised, keeping the commas that separate its clauses."""
    return ", ".join(normalise(part) for part in sentence.split(","))


def _facts(clause: str) -> list[str]:
    """The facts one clause asks for, in order, the more specific reading hiding the others (vocabulary.HIDES)."""
    norm = normalise(clause)
    hits = {name: at for name, patterns in vocabulary.FACTS.items() if (at := first_match(norm, patterns)) is not None}
    hidden = set().union(*(vocabulary.HIDES.get(name, frozenset()) for name in hits))
    if set(hits) - hidden - {"confirm"}:
        hidden.add("confirm")
    return sorted(set(hits) - hidden, key=hits.__getitem__)


def statement_kind(message: str) -> str | None:
    """Which kind of neutral statement a message is (hearing.STATEMENTS), if any; literal values are skipped."""
    norm = normalise(vocabulary.LITERAL.sub("", message))
    return next((kind for kind, patterns in hearing.STATEMENTS.items() if matches(norm, patterns)), None)
