"""Smoke test through a real server: launch the app on a free port and call named endpoints."""

from __future__ import annotations

from pathlib import Path

import pytest
from app_data import GRADIO_LOOP_WARNINGS, catalog, close_gradio_loop
from http_app import launched

import app
from analysis.query import ALL

pytestmark = [*GRADIO_LOOP_WARNINGS, pytest.mark.usefixtures("close_gradio_loop")]
__all__ = ["close_gradio_loop"]


def test_endpoints_answer_through_gradio_client(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    client_module = pytest.importorskip("gradio_client")
    monkeypatch.setenv("GRADIO_ANALYTICS_ENABLED", "False")
    cat = catalog(tmp_path)
    monkeypatch.chdir(tmp_path)  # the server's folder holds the media, as the app's folder on a Space
    with launched(app.build_app(cat), **app.launch_kwargs(cat)) as base:
        url = base + "/"  # the page's media URLs are relative to it
        client = client_module.Client(url, verbose=False)
        filters = ["cmm", [], ALL, ALL, True, False, False, ""]
        view = client.predict(*filters, api_name="/view")
        table, page, info = view[0], view[1], view[2]
        assert page == 1 and info == "rows 1–2 of 2 · page 1 of 1"
        assert [r[1] for r in table["data"]] == ["cmm-2", "cmm-2"]
        # the slice filter is the last argument, with a default (callers from before it still work)
        gold = table["headers"].index("gold")
        cut = client.predict("cmm", [], ALL, ALL, False, False, False, "", "gold = no", api_name="/view")[0]
        assert cut["data"] and {r[gold] for r in cut["data"]} == {"no"}
        _, media, item, _, _ = client.predict("cmm-0", *filters, api_name="/item")
        assert "Did you see thing 0?" in item and "reorg_raw_files/v0.mp4" in media
        # the media URL is served (inside the CMM root), a path outside every root is refused
        import httpx

        src = media.split('src="')[1].split('"')[0]
        served = httpx.get(url + src)
        assert served.status_code == 200 and served.content == b"\x00"
        # named from the server's folder: the page does not say where the server keeps its files
        assert src.startswith("gradio_api/file=") and str(tmp_path) not in media, src
        outside = tmp_path / "secret.txt"
        outside.write_text("no")
        assert httpx.get(url + f"gradio_api/file={outside}").status_code == 403


def test_media_outside_the_servers_folder_are_served_by_token_never_by_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A media root elsewhere (``--media-root cmm=/data/CMM``): the page names no folder of the server."""
    import httpx

    from components import media_route

    monkeypatch.setenv("GRADIO_ANALYTICS_ENABLED", "False")
    cat = catalog(tmp_path)
    elsewhere = tmp_path / "server"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # the media lie outside the server's folder
    video = tmp_path / "cmm" / "reorg_raw_files" / "v0.mp4"
    video.write_bytes(b"0123456789")
    with launched(app.build_app(cat), **app.launch_kwargs(cat)) as base:
        url = base + "/"  # the page's media URLs are relative to it
        client = __import__("gradio_client").Client(url, verbose=False)
        filters = ["cmm", [], ALL, ALL, True, False, False, ""]
        _, media, *_ = client.predict("cmm-0", *filters, api_name="/item")
        src = media.split('src="')[1].split('"')[0]
        assert src.startswith("gradio_api/file=hs:media/") and src.endswith("/v0.mp4"), src
        assert str(tmp_path) not in media and "reorg_raw_files" not in media
        assert httpx.get(url + src).content == b"0123456789"
        part = httpx.get(url + src, headers={"Range": "bytes=2-5"})  # a player seeks by range
        assert part.status_code == 206 and part.content == b"2345"
        assert httpx.head(url + src).status_code == 200
        # an unknown token, another file's name under a known token: 404, naming nothing
        key = src.split("/")[-2]
        for bad in (f"hs:media/{'0' * len(key)}/v0.mp4", f"hs:media/{key}/v1.mp4", f"hs:media/{key}"):
            reply = httpx.get(url + "gradio_api/file=" + bad)
            assert reply.status_code == 404 and str(tmp_path) not in reply.text, (bad, reply.text)
        # a file Gradio refuses (outside every root), given a token all the same: its 403 repeats
        # the path, so the answer is the same 404
        secret = tmp_path / "secret.txt"
        secret.write_text("no")
        refused = httpx.get(url + media_route.alias_url(secret))
        assert refused.status_code == 404 and "secret" not in refused.text and refused.text != "no"
        # a name that needs escaping (space, "#", "%", a non-ASCII letter) reaches the same file
        odd = tmp_path / "cmm" / "ça va #1 %20.mp4"
        odd.write_bytes(b"odd")
        assert httpx.get(url + media_route.alias_url(odd)).content == b"odd"
        video.unlink()  # gone since the page was drawn
        assert httpx.get(url + src).status_code == 404
