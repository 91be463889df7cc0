"""A tiny in-memory stand-in for the bank's backend."""

CARDS = {
    "C-100": {"id": "C-100", "label": "Gold", "customer": "U-1", "locked": False},
    "C-200": {"id": "C-200", "label": "Travel", "customer": "U-1", "locked": False},
}

BALANCES = {"A-1": 1204.5, "A-2": 88.0}


async def get_balance(account_id: str) -> float:
    return BALANCES.get(account_id, 0.0)


async def lock(card_id: str) -> bool:
    card = CARDS.get(card_id)
    if card is None:
        return False
    card["locked"] = True
    return True
