"""Home: choose Oczko or Blackjack (and a venue's logo and welcome text)."""

from __future__ import annotations

from pathlib import Path

from kivy.lang import Builder
from kivy.properties import StringProperty

from app.i18n import get_language
from app.views.base import BaseScreen

Builder.load_file(str(Path(__file__).with_suffix(".kv")))


class HomeScreen(BaseScreen):
    title = StringProperty("")  # the top bar shows the venue or app name
    welcome = StringProperty("")
    logo = StringProperty("")

    def refresh(self) -> None:
        branding = self.app.branding
        self.welcome = branding.welcome_text(get_language()) if branding else ""
        self.logo = str(branding.logo) if branding and branding.logo else ""
