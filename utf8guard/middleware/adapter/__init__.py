"""What the adapters (asgi.py, wsgi.py, django.py) share: the one constructor,
Django's system checks, ASGI's and PEP 3333's details; no rule lives here.

Private: import from ``utf8guard.middleware``."""
