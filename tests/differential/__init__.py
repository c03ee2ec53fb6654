"""The differential end-to-end suite (issue 11's proof): raw requests on every stack.

``table.py`` holds the requests, ``stacks.py`` the servers and apps, ``oracle.py``
the verdicts, ``cluster.py`` runs them; the echo apps are ``asgi_echo.py``,
``flask_echo.py`` and ``django_echo.py``. ``pytest -m differential`` runs it alone;
the summary prints a row x stack matrix of what failed.
"""
