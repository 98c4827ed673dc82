"""The one-phone blackjack screens: menu, game, table and their view-model."""
