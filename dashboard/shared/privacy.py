"""Phone numbers are shown only as their last four digits, wherever they appear."""

import re

# Seven digits or more, with the separators people and transcribers write between them.
PHONE = re.compile(r"(?<!\w)[+(]?\d[\d ().\-]{5,}\d(?!\w)")
MIN_DIGITS = 7


def last_four(phone: str) -> str:
    """ "+44 7700 900123" -> "•••0123" (what is left when there are four digits or fewer)."""
    digits = re.sub(r"\D", "", phone)
    return f"•••{digits[-4:]}" if len(digits) > 4 else digits


def mask_phone_numbers(text: str) -> str:
    """Every phone number in free text (a transcript) cut to its last four digits."""

    def masked(match: re.Match) -> str:
        found = match.group()
        return last_four(found) if sum(ch.isdigit() for ch in found) >= MIN_DIGITS else found

    return PHONE.sub(masked, text)
