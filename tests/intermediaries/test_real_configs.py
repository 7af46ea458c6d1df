"""The real intermediaries' configuration writers: what each variant sets, and that the
program itself accepts the file (its own syntax check; skipped when it is not installed)."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from mixbatch_conformance.intermediaries.real import (
    INTERMEDIARIES,
    Layout,
    install_command,
    intermediary,
    split_name,
)
from mixbatch_conformance.intermediaries.real._cert import self_signed
from mixbatch_conformance.intermediaries.real._launch import PROGRAMS, unprivileged
from mixbatch_conformance.intermediaries.real._rows import rows_from

ROWS = [(i.name, v) for i in INTERMEDIARIES.values() for v in i.variants]


def _layout(tmp: Path, *, tls: bool = False, origins: int = 1) -> Layout:
    cert = key = None
    if tls:
        cert, key = self_signed(tmp)
    upstreams = tuple(("127.0.0.1", 41000 + n) for n in range(origins))
    return Layout(tmp, 40999, upstreams, cert, key)


def _config(tmp: Path, name: str, variant: str) -> str:
    chosen = intermediary(name)
    layout = _layout(
        tmp, tls=variant in chosen.tls_variants, origins=2 if "-" in variant[2:] else 1
    )
    text: str = PROGRAMS[name].config(variant, layout)
    return text


@pytest.mark.parametrize(("name", "variant"), ROWS)
def test_every_variant_listens_on_its_port_and_names_its_origin(
    tmp_path: Path, name: str, variant: str
) -> None:
    text = _config(tmp_path, name, variant)
    if name != "varnish":  # varnishd takes its listen address on the command line
        assert "40999" in text
    if name != "trafficserver":  # the origin is in remap.config, written by prepare
        assert "41000" in text


def test_nginx_default_keeps_the_defaults_that_break_batches(tmp_path: Path) -> None:
    text = _config(tmp_path, "nginx", "default")
    assert "proxy_set_header" not in text
    assert "client_max_body_size" not in text


def test_nginx_recommended_passes_host_and_large_bodies_on(tmp_path: Path) -> None:
    text = _config(tmp_path, "nginx", "recommended")
    assert "proxy_set_header Host $http_host;" in text
    assert "client_max_body_size 0;" in text
    assert "proxy_http_version 1.1;" in text


def test_nginx_gzip_compresses_every_type_and_h2_terminates_tls(tmp_path: Path) -> None:
    assert "gzip_types *;" in _config(tmp_path, "nginx", "gzip")
    h2 = _config(tmp_path, "nginx", "h2")
    assert "ssl http2" in h2
    assert "ssl_certificate " in h2


def test_haproxy_scale_out_balances_two_origins_by_client(tmp_path: Path) -> None:
    text = _config(tmp_path, "haproxy", "scale-out")
    assert "balance source" in text
    assert "41000" in text
    assert "41001" in text
    assert "balance roundrobin" in _config(tmp_path, "haproxy", "round-robin")
    assert "timeout server" not in _config(tmp_path, "haproxy", "default")


@pytest.mark.parametrize(
    ("name", "setting"),
    [
        ("apache", "ProxyPreserveHost On"),
        ("h2o", "proxy.preserve-host: ON"),
        ("squid", "vhost"),
        ("squid", "login=PASSTHRU"),
        ("squid", "client_request_buffer_max_size 64 MB"),
        ("trafficserver", "pristine_host_hdr INT 1"),
        ("varnish", "return (pipe)"),
    ],
)
def test_recommended_has_what_default_lacks(tmp_path: Path, name: str, setting: str) -> None:
    assert setting in _config(tmp_path, name, "recommended")
    assert setting not in _config(tmp_path, name, "default")


def test_rows_are_read_from_names_variants_all_and_real() -> None:
    assert [r.label for r in rows_from(["nginx"])] == ["nginx:default"]
    assert [r.label for r in rows_from(["haproxy:gzip", "haproxy:gzip"])] == ["haproxy:gzip"]
    assert len(rows_from(["caddy:all"])) == len(INTERMEDIARIES["caddy"].variants)
    assert len(rows_from(["real"])) == len(ROWS)
    with pytest.raises(ValueError, match="has no variant 'h2'"):
        rows_from(["squid:h2"])
    assert split_name("passthrough") is None


def test_a_missing_program_is_named_with_its_install_command() -> None:
    assert install_command(INTERMEDIARIES["apache"]) == "apt-get install -y apache2"


#: Each program's own check of a configuration file, or None when it has none usable here.
SYNTAX_CHECK = {
    "nginx": lambda b, c, w: [b, "-t", "-p", f"{w}/", "-c", str(c), "-e", f"{w}/error.log"],
    "haproxy": lambda b, c, w: [b, "-c", "-f", str(c)],
    "apache": lambda b, c, w: [b, "-t", "-d", str(w), "-f", str(c)],
    "caddy": lambda b, c, w: [b, "adapt", "--config", str(c), "--adapter", "caddyfile"],
    "varnish": lambda b, c, w: [b, "-C", "-f", str(c), "-n", f"{w}/varnish"],
    "squid": lambda b, c, w: [b, "-k", "parse", "-f", str(c)],
    "h2o": lambda b, c, w: [b, "-t", "-c", str(c)],
    "lighttpd": lambda b, c, w: [b, "-tt", "-f", str(c)],
}


@pytest.fixture
def run_dir() -> Iterator[Path]:
    """A dir like the launcher's: under the system temp dir, reachable by another user."""
    path = Path(tempfile.mkdtemp(prefix="mixbatch-test-"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.mark.parametrize(("name", "variant"), [r for r in ROWS if r[0] in SYNTAX_CHECK])
def test_the_program_accepts_the_configuration(run_dir: Path, name: str, variant: str) -> None:
    tmp_path = run_dir
    chosen = intermediary(name)
    binary = chosen.binary_path()
    if binary is None:
        pytest.skip(f"{name} is not installed: {install_command(chosen)}")
    layout = _layout(
        tmp_path, tls=variant in chosen.tls_variants, origins=2 if "-" in variant[2:] else 1
    )
    program = PROGRAMS[name]
    conf = tmp_path / program.CONFIG_NAME
    conf.write_text(program.config(variant, layout))
    program.prepare(binary, conf, layout)
    done = subprocess.run(
        SYNTAX_CHECK[name](binary, conf, tmp_path),
        capture_output=True,
        text=True,
        timeout=30,
        cwd=tmp_path,
        **unprivileged(tmp_path),
    )
    assert done.returncode == 0, (done.stdout + done.stderr)[-2000:]


def test_the_certificate_is_written_for_the_loopback_address(tmp_path: Path) -> None:
    cert, key = self_signed(tmp_path)
    assert cert.read_bytes().startswith(b"-----BEGIN CERTIFICATE-----")
    assert b"PRIVATE KEY" in key.read_bytes()
    if shutil.which("openssl"):
        text = subprocess.run(
            ["openssl", "x509", "-noout", "-text", "-in", str(cert)],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        assert "IP Address:127.0.0.1" in text
