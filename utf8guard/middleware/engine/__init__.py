"""The engine: what a request's findings mean (pass, fix, refuse), the body's
route, the options, the findings and the refusal; no I/O.

Private: import from ``utf8guard.middleware``."""
