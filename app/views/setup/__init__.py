"""Getting a phone ready for a table: Bluetooth, permissions, the device's facts."""
