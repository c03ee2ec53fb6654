"""The request head's rules (path, query, headers, cookies) and the fast lane
that reads them: each exact check sits next to its Trigger and its lane.

Private: import from ``utf8guard.middleware``."""
