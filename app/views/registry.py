"""The screens of the app (no Kivy import: tests and tools read this)."""

#: screen name -> "module:Class"; a module is imported when its first screen is shown.
SCREENS: dict[str, str] = {
    "home": "app.views.home:HomeScreen",
    "settings": "app.views.settings:SettingsScreen",
    "rules_oczko": "app.views.rules:OczkoRulesScreen",
    "rules_blackjack": "app.views.rules:BlackjackRulesScreen",
    "oczko_menu": "app.views.oczko_menu:OczkoMenuScreen",
    "oczko_host": "app.views.oczko_menu:OczkoHostScreen",
    "oczko_join": "app.views.oczko_menu:OczkoJoinScreen",
    "oczko_lobby": "app.views.oczko_menu:OczkoLobbyScreen",
    "oczko_table": "app.views.oczko_table:OczkoTableScreen",
    "bt_setup": "app.views.permissions:BluetoothSetupScreen",
}
SCREENS.update(
    {
        "bj_menu": "app.views.bj_menu:BlackjackMenuScreen",
        "bj_rules": "app.views.bj_menu:TableRulesScreen",
        "bj_table": "app.views.bj_table:BlackjackTableScreen",
        "bj_summary": "app.views.bj_table:SessionSummaryScreen",
        "casino_lobby": "app.views.casino_lobby:CasinoLobbyScreen",
        "casino_table": "app.views.casino_table:CasinoTableScreen",
    }
)
SCREENS.update(
    {
        "history": "app.views.history:HistoryScreen",
        "history_round": "app.views.history:RoundScreen",
        "history_stats": "app.views.history:StatsScreen",
    }
)
