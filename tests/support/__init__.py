"""Helpers shared by the test modules, one module per concern (the conftests keep only
fixtures, which may call these; no test module imports another test module or a conftest,
see tests/test_test_layout.py):

- ``tables``: tables started and played through the games services;
- ``records``: finished games stored directly (archives, ratings, stats);
- ``engine``: engine states and bot decisions for the rules and bot tests;
- ``accounts``: the accounts tests' password, cache and uploads;
- ``servers``: real Daphne servers (on the test database or their own SQLite file);
- ``workers``: a real Celery worker on the test database and broker;
- ``browser``: Debian's Chromium, what a seat may see, playing a page to the end;
- ``sockets``: in-process WebSocket communicators of the table and social sockets;
- ``protocol``: the real-socket protocol client and its leak scanner.
"""
