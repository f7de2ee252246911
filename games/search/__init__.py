"""Search policies over the game contract (games.contract): moves for bots, from what a seat may
know."""
