def pct(part: float, whole: float) -> float | None:
    """`part` as a percentage of `whole`, to one decimal; None when there is no whole."""
    return round(100 * part / whole, 1) if whole else None
