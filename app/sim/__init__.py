"""Tables of phones in simulated time: the real table code on phone CPU and Bluetooth link
models (``oczko``, ``casino``), the CPU profiles, the soak and the terminal demo. Tools
above the table, never imported by it (tests/test_layering.py)."""
