"""The Kivy shell: screens that render engine state and send the player's intents.

Nothing here holds game rules. Each screen has a pure presenter (``*_vm.py``:
engine state -> what the screen shows, testable without Kivy) and a thin Kivy view.
Importing this package imports no Kivy; screens are imported lazily when first shown.
"""
