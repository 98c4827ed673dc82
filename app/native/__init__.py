"""Compiled (Cython) modules, built by CMakeLists.txt from ``native/*.pyx``.

Every function here has a plain-Python reference that the tests compare it with:
``app.native.sra`` against the built-in :func:`pow`, ``app.native.handeval``
against :mod:`app.hands`.
"""
