"""Stable codes from the engines, the table and the app -> translated messages.

Engines raise :class:`app.rules.errors.IllegalAction` with a stable ``code``; the
table and protocol report errors and events by code; this module is the one place
where such a code becomes text the player reads.

>>> from app.i18n import set_language
>>> _ = set_language("en")
>>> message_for("not_your_turn")
'It is not your turn.'
>>> message_for("no_such_code_yet")
'That is not possible now (no_such_code_yet).'
"""

from __future__ import annotations

from typing import Any

from app.i18n import N_, _

#: code -> English msgid; ``{name}`` placeholders are filled from the error's details.
MESSAGES: dict[str, str] = {
    # preferences and branding (app)
    "prefs_corrupt": N_("Your settings could not be read and were reset to the defaults."),
    "prefs_partly_invalid": N_("Some settings were invalid and were reset to the defaults."),
    "prefs_save_failed": N_("Your settings could not be saved."),
    # generic rules errors (both engines)
    "not_your_turn": N_("It is not your turn."),
    "game_over": N_("The game is over."),
    "round_over": N_("The round is over."),
    "round_in_progress": N_("A round is still being played."),
    "unknown_player": N_("Unknown player."),
    "unknown_action": N_("Unknown action."),
    "illegal_action": N_("That move is not allowed now."),
    # Oczko
    "already_held": N_("You have already held."),
    "already_bust": N_("You are already bust."),
    "too_few_players": N_("At least two players are needed."),
    "too_many_players": N_("At most seven players can sit at a table."),
    "player_left": N_("{name} left the table."),
    "player_lost": N_("{name} lost the connection and is out of the match."),
    "player_cheated": N_("{name} sent invalid data and was removed from the table."),
    "player_stalled": N_("{name} kept the table waiting too long and was removed."),
    "shielded_cheater": N_("The host kept a player who cheated at the table. You left it."),
    "unjustified_void": N_(
        "The host cancelled a round without a reason your phone could check. You left the table."
    ),
    "void_cheat": N_("{name} cheated: this round does not count and is played again."),
    "void_dispute": N_(
        "A card or a claim did not open: this round does not count and is played again."
    ),
    "void_stalled": N_(
        "{name} held up the check of the cards: this round does not count and is played again."
    ),
    "already_decided": N_("Your hand is already decided."),
    "not_in_round": N_("You are not playing in this round."),
    "player_gone": N_("This player has left the table."),
    "unknown_seat": N_("There is no such seat at this table."),
    "match_over": N_("The match is over."),
    "wrong_phase": N_("That is not possible at this point of the round."),
    "bad_action": N_("A phone sent an action that could not be read."),
    "bad_card": N_("A phone sent a card that does not exist."),
    "duplicate_card": N_("A card came up twice: the deck is not fair."),
    "false_claim": N_("A player made a false claim about his cards."),
    "inconsistent_hand": N_("A player's revealed cards do not match his moves."),
    "cannot_draw": N_("At 21 you cannot draw another card."),
    "claim_due": N_("A Persian 21 has to be shown first."),
    "hidden_card": N_("A card that should be known is still hidden."),
    "nothing_to_reveal": N_("No hand is waiting to be shown."),
    "turn_timeout": N_("Time is up: the game held for {name}."),
    # Blackjack
    "bet_below_minimum": N_("The bet is below the table minimum of {minimum}."),
    "bet_above_maximum": N_("The bet is above the table maximum of {maximum}."),
    "bet_above_limit": N_("The bet is above the house limit: at most {max} more here."),
    "insufficient_chips": N_("You do not have enough chips."),
    "box_taken": N_("This box is taken."),
    "no_bet": N_("Place a bet first."),
    "cannot_double": N_("You cannot double this hand."),
    "cannot_split": N_("You cannot split this hand."),
    "cannot_surrender": N_("You cannot surrender now."),
    "insurance_not_offered": N_("Insurance is not offered now."),
    "insurance_above_limit": N_("Insurance is at most half of the bet."),
    "session_over": N_("The session is over."),
    "invalid_rules": N_("These table rules do not fit together."),
    # two table rules that contradict each other: why (app.rules.table_rules)
    "surrender_needs_peek": N_(
        "Late surrender needs the American peek: without a hole card the dealer cannot "
        "check for blackjack before the players decide."
    ),
    "original_bets_need_enhc": N_(
        "'Dealer blackjack takes only original bets' is a European rule: it needs the "
        "European game without a hole card."
    ),
    "enhc_surrender_needs_original_bets": N_(
        "European surrender needs the rule that a dealer blackjack takes only the "
        "original bets."
    ),
    "min_bet_above_max": N_("The minimum bet is above the maximum bet."),
    "resplit_aces_needs_hands": N_("Resplitting aces needs splits up to at least three hands."),
    "chips_below_min_bet": N_("The starting chips are below the minimum bet: nobody could bet."),
    "already_bet": N_("You already have this bet."),
    "bad_amount": N_("That amount is not possible."),
    "bad_box": N_("There is no such box."),
    "bad_players": N_("Every player needs a different name."),
    "bet_below_limit": N_("The bet is below the house minimum of {min}."),
    "foreign_round": N_("This round does not belong to this session."),
    "insurance_above_half": N_("Insurance is at most half of the bet."),
    "no_bets": N_("Nobody has placed a bet yet."),
    "no_blackjack": N_("Even money is only for a blackjack."),
    "no_double_decision": N_("There is no double to follow now."),
    "no_insurance_decision": N_("No insurance decision is due now."),
    "player_required": N_("This action needs a player."),
    "round_not_settled": N_("The round is not finished yet."),
    "side_bet_needs_bet": N_("Bet on a box before the side bet."),
    "side_bet_not_offered": N_("This table has no side bet."),
    "unknown_field": N_("Unknown table rule."),
    "unknown_preset": N_("Unknown table rule preset."),
    "cannot_hit": N_("You cannot take a card now."),
    "cannot_stand": N_("You cannot stand now."),
    "cannot_even_money": N_("Even money is not offered now."),
    "cannot_decline_insurance": N_("No insurance decision is due now."),
    "cannot_follow_double": N_("There is no double to follow now."),
    "cannot_decline_double": N_("There is no double to follow now."),
    # table and protocol
    "connection_lost": N_("The connection was lost."),
    "host_left": N_("The host left: the table is closed."),
    "not_ready": N_("Every player must be connected and ready."),
    "player_not_ready": N_("{name} is not ready yet."),
    "connect_failed": N_("Could not reach the table at that address."),
    "bad_address": N_("That is not a table address."),
    "listen_failed": N_("The table could not be opened at that address."),
    "bad_name": N_("That name cannot be used at a table."),
    "bad_options": N_("The guests would refuse these table options."),
    "cheating_detected": N_("Cheating detected: {name} sent invalid data. The round is void."),
    "audit_failed": N_("The round audit failed: {name} did not play fair."),
    "audit_ok": N_("Audit passed: the deck was complete and every claim was verified."),
    "open_dealer": N_(
        "This table deals without card secrecy: the host's phone sees every card. "
        "For practice only."
    ),
    "no_secure_dealer": N_(
        "The secure card shuffle cannot run on this phone, so no table can be opened."
    ),
    "player_flooded": N_("{name}'s phone sent far too many messages and was removed."),
    # protocol violations (app.protocol.errors): the seat to blame is {name}
    "bad_frame": N_("{name}'s phone sent a message that could not be read."),
    "bad_signature": N_("A message said to come from {name} was forged."),
    "replay": N_("{name}'s phone sent an old message again."),
    "seq_gap": N_("A message from {name} was lost."),
    "out_of_order": N_("{name}'s phone sent a message at the wrong time."),
    "wrong_sender": N_("{name}'s phone sent a message that was not its to send."),
    "not_element": N_("Cheating detected: {name} sent an invalid card value."),
    "not_exponent": N_("Cheating detected: {name} used an invalid key."),
    "duplicate_value": N_("Cheating detected: {name} put a card into the deck twice."),
    "bad_length": N_("{name}'s phone sent a deck of the wrong size."),
    "commit_mismatch": N_("Cheating detected: {name} changed a committed value."),
    "bad_shuffle": N_("Cheating detected: {name}'s shuffle is not a shuffle of the deck."),
    "bad_lock": N_("Cheating detected: {name} locked the cards wrongly."),
    "bad_key": N_("Cheating detected: {name} revealed a wrong card key."),
    "false_complaint": N_("{name} complained about a card that opens correctly."),
    "bad_audit": N_("Cheating detected: {name}'s audit does not match his own messages."),
    "transcript_mismatch": N_("{name} sent different messages to different players."),
    "equivocation": N_("Cheating detected: {name} signed two different messages as one."),
    # the networked casino table (app/table/casino_*)
    "owner_first": N_("The owner of this box bets first."),
    "box_free": N_("Nobody sits at this box."),
    "not_your_box": N_("This box is not yours."),
    "not_now": N_("Wait a moment: the table is still dealing."),
    "wrong_round": N_("That was meant for another round."),
    "not_waiting": N_("The table announced a time-out for a player it was not waiting for."),
    "forged_intent": N_("Cheating detected: a bet or decision was not signed by its player."),
    "replayed_intent": N_("Cheating detected: a player's old decision was sent again."),
    "forged_key": N_("Cheating detected: the host announced a false key for your phone."),
    "forged_agreement": N_("Cheating detected: a round result was not signed by its player."),
    "forged_snapshot": N_(
        "Cheating detected: the host showed your phone chips the other players did not sign."
    ),
    "disagree": N_("The phones do not agree on the last round: the table cannot go on."),
    "voided_open_card": N_("Cheating detected: the host discarded a card that was dealt."),
    "chips_not_conserved": N_("The chips on this phone do not add up: the table stops."),
    "intent_refused": N_("The table did not accept that now."),
    "table_fault": N_("This phone found an error in the table and closed it."),
    "bad_announcement": N_("The host announced something this table does not know."),
    "bad_shoe": N_("The host started a shoe this table cannot use."),
    "withheld_agreement": N_(
        "The host did not pass on every player's result of a round: the table cannot go on."
    ),
    "bad_back": N_("The host announced a return that does not fit the table."),
    "bad_left": N_("The host announced a departure that does not fit the table."),
    "no_shoe": N_("The host opened the bets before any shoe was shuffled."),
    "no_default": N_("No decision could be taken for a player whose time ran out."),
    "not_the_dealer": N_("{name}'s phone tried to deal a card; only the dealer deals."),
    "table_full": N_("The table is full."),
    "game_running": N_("A game is already running at this table."),
    "bad_message": N_("A phone sent a message that could not be read."),
    "version_mismatch": N_("This phone runs a different version of the app."),
    "bluetooth_off": N_("Bluetooth is off. Turn it on to play at a table."),
    "bluetooth_permission": N_("The app needs the Bluetooth permission to play at a table."),
    "bluetooth_unavailable": N_("Playing at a table needs Bluetooth, which is not available."),
    "location_off": N_(
        "Turn Location on to search: on Android 10 and 11 the search for nearby phones "
        "works only while Location is on."
    ),
    "discovery_failed": N_(
        "The search for nearby phones could not start. Try again, or pick a paired phone."
    ),
    "player_connection_lost": N_("{name}'s connection was lost."),
    # issue 30: a decision names the box in play
    "wrong_box": N_("That box is not the one being played now."),
    # a named cheater stays out for the rest of the match (issue 30)
    "banned": N_("You were named for cheating in this match and cannot sit down again."),
    "barred_rejoin": N_(
        "The host let a player back in who may not come back now. You left the table."
    ),
    # issue 30: a host that signed two logs of one round
    "two_logs": N_(
        "Cheating detected: the host sent the players different logs of a round. "
        "You left the table."
    ),
}


def message_for(code: str, **details: Any) -> str:
    """The translated message for ``code`` with ``details`` filled in; never raises."""
    msgid = MESSAGES.get(code)
    if msgid is None:
        return _("That is not possible now ({code}).").format(code=code)
    text = _(msgid)
    try:
        return text.format(**details)
    except (KeyError, IndexError, ValueError):
        return text.replace("{", "").replace("}", "")


def error_message(error: Exception) -> str:
    """The translated message of an engine error (``.code``/``.details``) or any exception."""
    code = getattr(error, "code", None)
    if isinstance(code, str):
        return message_for(code, **getattr(error, "details", {}) or {})
    return _("Something went wrong: {error}").format(error=error)
