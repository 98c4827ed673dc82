"""Pure game rules: state + action -> new state + events. No I/O, no clock, no randomness."""
