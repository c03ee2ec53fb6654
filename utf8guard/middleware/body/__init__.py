"""The body inspectors: which one a body gets (Content-Type, Content-Encoding),
then one module per format, each streaming, each pure.

Private: import from ``utf8guard.middleware``."""
