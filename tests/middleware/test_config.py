"""GuardConfig checks every option once; ``configure`` is the adapters' constructor."""

from __future__ import annotations

import re

import pytest

from utf8guard import IDENTIFIER, STRICT, Policy, is_valid
from utf8guard._record import fields
from utf8guard.middleware import GuardConfig
from utf8guard.middleware.engine._config import MODES, GuardOptions, configure
from utf8guard.middleware.engine._finding import safe_name


def test_defaults_are_safe() -> None:
    config = GuardConfig()
    assert config.mode == "block"
    assert config.effective_path_policy == IDENTIFIER
    assert config.skip_headers == frozenset()


@pytest.mark.parametrize(
    ("options", "error", "message"),
    [
        ({"mode": "lenient"}, ValueError, "mode must be one of block, normalize"),
        ({"policy": "strict"}, TypeError, "policy must be a Policy, not str"),
        ({"path_policy": 1}, TypeError, "path_policy must be a Policy, not int"),
        ({"max_body_size": 0}, ValueError, "max_body_size must be > 0, not 0"),
        ({"memory_body_size": -1}, ValueError, "memory_body_size must be > 0, not -1"),
        ({"max_body_size": True}, TypeError, "max_body_size must be an int, not bool"),
        ({"max_multipart_parts": 0}, ValueError, "max_multipart_parts must be > 0"),
        ({"max_multipart_parts": 1.5}, TypeError, "max_multipart_parts must be an int"),
        ({"max_upload_size": 0}, ValueError, "max_upload_size must be > 0, not 0"),
        ({"max_upload_size": "1G"}, TypeError, "max_upload_size must be an int"),
        ({"windows_upload_names": "yes"}, TypeError, "windows_upload_names must be"),
        ({"stream_body": 1}, TypeError, "stream_body must be a bool"),
        ({"on_violation": 3}, TypeError, "on_violation must be callable or None"),
        ({"skip_headers": "cookie"}, TypeError, "skip_headers must be a collection"),
        ({"skip_headers": 5}, TypeError, "skip_headers must be a collection"),
        ({"skip_headers": [b"cookie"]}, TypeError, "skip_headers must hold str"),
    ],
)
def test_config_mistakes_raise(
    options: dict[str, object], error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message):
        GuardConfig(**options)  # type: ignore[arg-type]  # wrong types on purpose


@pytest.mark.parametrize(
    "policy",
    [STRICT, IDENTIFIER, Policy(allow_nul=False), Policy(allow_controls=False)],
    ids=["strict", "identifier", "no-nul", "no-controls"],
)
def test_plain_ascii_is_what_the_validator_allows(policy: Policy) -> None:
    # The ASCII bytes each pattern refuses come from the policy's code-point sets;
    # the oracle is the validator itself, one byte at a time, and a run of them.
    config = GuardConfig(policy=policy, path_policy=policy)
    for byte in range(0x80):
        one = bytes([byte])
        allowed = is_valid(one, policy)
        assert config.is_plain(one) is allowed, byte
        assert config.is_plain(b"ab" + one + b"cd") is allowed, byte
        assert config.is_plain(one, path=True) is is_valid(
            one, config.effective_path_policy
        ), byte
    assert not config.is_plain("é".encode())


def test_path_policy_keeps_its_other_flags() -> None:
    config = GuardConfig(path_policy=Policy(allow_private_use=False))
    assert config.effective_path_policy == Policy(
        allow_private_use=False,
        allow_nul=False,
        allow_controls=False,
        allow_bidi_controls=False,
    )


def test_options_type_lists_every_option() -> None:
    # GuardOptions types the adapters' **options; it must name GuardConfig's fields.
    assert set(GuardOptions.__annotations__) == {
        f.name for f in fields(GuardConfig) if f.init
    }
    assert MODES == ("block", "normalize", "report")


def test_new_options_are_checked() -> None:
    config = GuardConfig(
        request_id_header="X-Request-ID",
        exclude_paths=["/hooks", re.compile(r"/ws/[0-9]+")],
    )
    assert config.request_id_header == "x-request-id"
    assert config.exclude_paths == ("/hooks", re.compile(r"/ws/[0-9]+"))


@pytest.mark.parametrize(
    ("options", "error", "message"),
    [
        ({"on_refuse": "x"}, TypeError, "on_refuse must be callable or None"),
        ({"exclude_paths": "/hooks"}, TypeError, "exclude_paths must be a collection"),
        ({"exclude_paths": [b"/hooks"]}, TypeError, "exclude_paths must be a coll"),
        ({"exclude_paths": ["hooks"]}, ValueError, "must start with /, not 'hooks'"),
        ({"exclude_paths": [re.compile(b"/h")]}, TypeError, "must be str patterns"),
        ({"request_id_header": 5}, TypeError, "request_id_header must be a str"),
        ({"request_id_header": "x id"}, ValueError, "must be a header name"),
    ],
)
def test_new_option_mistakes_raise(
    options: dict[str, object], error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message):
        GuardConfig(**options)  # type: ignore[arg-type]  # wrong types on purpose


def test_configure_takes_a_config_or_options_never_both() -> None:
    config = GuardConfig(mode="report")
    assert configure(config, {}) is config
    assert configure(None, {"mode": "report"}) == config
    with pytest.raises(TypeError, match="not both: mode, policy"):
        configure(config, {"mode": "block", "policy": STRICT})
    with pytest.raises(TypeError, match="config must be a GuardConfig, not dict"):
        configure({"mode": "report"}, {})  # type: ignore[arg-type]  # on purpose
    with pytest.raises(TypeError, match="unknown option 'modes'"):
        configure(None, {"modes": "block"})


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        (b"user_id", "user_id"),
        (b"items[0].name", "items[0].name"),
        (b"a b", None),
        (b"\n", None),
        (b"x" * 65, None),
        ("ä".encode(), None),
        (b"", None),
    ],
)
def test_safe_name(raw: bytes, shown: str | None) -> None:
    assert safe_name(raw) == shown
