"""The hand history's screen and view-model."""
