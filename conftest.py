"""Keep pytest's doctest collection away from the entry point, which exits on import."""

collect_ignore = ["utf8guard/__main__.py"]
