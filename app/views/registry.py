"""The screens of the app (no Kivy import: tests and tools read this)."""

#: screen name -> "module:Class"; a module is imported when its first screen is shown.
SCREENS: dict[str, str] = {
    "home": "app.views.home:HomeScreen",
    "settings": "app.views.settings:SettingsScreen",
    "rules_oczko": "app.views.rules:OczkoRulesScreen",
    "rules_blackjack": "app.views.rules:BlackjackRulesScreen",
    "oczko_menu": "app.views.oczko.menu:OczkoMenuScreen",
    "oczko_host": "app.views.oczko.menu:OczkoHostScreen",
    "oczko_join": "app.views.oczko.menu:OczkoJoinScreen",
    "oczko_lobby": "app.views.oczko.menu:OczkoLobbyScreen",
    "oczko_table": "app.views.oczko.table:OczkoTableScreen",
    "bt_setup": "app.views.setup.permissions:BluetoothSetupScreen",
}
SCREENS.update(
    {
        "bj_menu": "app.views.blackjack.menu:BlackjackMenuScreen",
        "bj_rules": "app.views.blackjack.menu:TableRulesScreen",
        "bj_table": "app.views.blackjack.table:BlackjackTableScreen",
        "bj_summary": "app.views.blackjack.table:SessionSummaryScreen",
        "casino_lobby": "app.views.casino.lobby:CasinoLobbyScreen",
        "casino_table": "app.views.casino.table:CasinoTableScreen",
    }
)
SCREENS.update(
    {
        "history": "app.views.history.screen:HistoryScreen",
        "history_round": "app.views.history.screen:RoundScreen",
        "history_stats": "app.views.history.screen:StatsScreen",
    }
)
